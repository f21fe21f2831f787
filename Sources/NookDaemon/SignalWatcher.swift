#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Logging

/// SIGTERM/SIGINT stop the daemon (a second one exits at once); SIGHUP reloads (N1, N2).
final class SignalWatcher: @unchecked Sendable {
    /// Set once in init, then only read.
    private let sources: [any DispatchSourceSignal]

    init(logger: Logger, stop: @escaping @Sendable () -> Void, reload: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "nookd.signals")
        let stops = Counter()
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if number == SIGHUP {
                    reload()
                    return
                }
                if stops.increment() > 1 {
                    logger.warning("second stop signal: exiting now")
                    exit(1)
                }
                stop()
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
        // A journal at a file-size limit gets EFBIG and degrades to memory; it must not kill nookd.
        signal(SIGXFSZ, SIG_IGN)
        // libdispatch installs its handler for a signal source on its manager thread, after
        // resume() has returned; until then the disposition is the SIG_IGN set above and a stop
        // signal is dropped. nookd opens its socket only after this returns, so a client (or
        // systemd) that sees nookd ready can always stop it.
        for _ in 0..<2000 where [SIGTERM, SIGINT, SIGHUP].contains(where: { Self.isIgnored($0) }) {
            usleep(1000)
        }
    }

    /// Stops reacting to signals (the dispositions stay ignored: the daemon is on its way out).
    func cancel() {
        sources.forEach { $0.cancel() }
    }

    private static func isIgnored(_ number: Int32) -> Bool {
        var current = sigaction()
        sigaction(number, nil, &current)
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}

final class Counter: @unchecked Sendable {
    private var value = 0
    /// Only called on the signal queue, which is serial.
    func increment() -> Int {
        value += 1
        return value
    }
}
