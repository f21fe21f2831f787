#if canImport(Glibc)
import Glibc
#endif
import NookLogging
import NookActivities
import NookSystem
import Synchronization

/// SIGTERM/SIGINT stop the daemon (a second one exits at once); SIGHUP reloads (N1, N2).
final class SignalWatcher: Sendable {
    private let id: Int

    /// Throws if the relay's pipe cannot be made (no descriptor left: `RLIMIT_NOFILE`).
    init(logger: Logger, stop: @escaping @Sendable () -> Void, reload: @escaping @Sendable () -> Void) throws(DaemonError) {
        let stops = Counter()
        id = try SignalRelay.watch { number in
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
        // A journal at a file-size limit gets EFBIG and degrades to memory; it must not kill nookd.
        signal(SIGXFSZ, SIG_IGN)
    }

    /// Stops reacting to signals (the handlers stay installed and ignore them: the daemon is on
    /// its way out).
    func cancel() {
        SignalRelay.forget(id)
    }
}

/// nookd's signals from the first line of `main` (N2): SIGTERM, SIGINT and SIGHUP are caught
/// by the relay before anything opens the display, and one that comes before the signal service
/// watches is held for it (a stop then ends nookd cleanly once its services have started). A
/// second stop signal while one is held exits at once, as it does once nookd runs, so a start
/// that hangs can still be interrupted.
public enum DaemonSignals {
    /// Installs the relay now; throws if its pipe cannot be made.
    public static func hold() throws(DaemonError) {
        if let failure = SignalRelay.installed { throw failure }
    }

    /// For a run that will not start the daemon (`--test-display`): the signals get their
    /// default action back, and one held meanwhile acts now.
    public static func release() {
        SignalRelay.release()
    }
}

/// The process's one handler of SIGTERM, SIGINT and SIGHUP: it writes the signal's number into
/// a pipe, and a thread of its own (not a Dispatch signal source: libdispatch's threads wake
/// nookd once a second, docs/benchmarks.md, "Idle wake-ups") reads it and calls every watcher.
/// A signal read while no one watches is held and handed to the first watcher; the handlers
/// are installed before `watch` returns, so a signal sent once nookd's socket exists is never
/// lost to the default disposition.
private enum SignalRelay {
    static let numbers = [SIGTERM, SIGINT, SIGHUP]

    struct Watching {
        var watchers: [Int: @Sendable (Int32) -> Void] = [:]
        /// Read before anyone watched, in order.
        var held: [Int32] = []
        /// Given back to their default action: a signal read now acts so.
        var released = false
    }

    static let state = Locked(Watching())
    static let nextID = Atomic<Int>(0)
    /// The pipe's write end, read by the handler (an atomic load is async-signal-safe).
    static let writeEnd = Atomic<Int32>(-1)

    /// Made once, on the first `hold` or `watch`; the reason, if the pipe could not be made
    /// (the signals then keep their default disposition, and the daemon does not start).
    static let installed: DaemonError? = {
        var ends: [Int32] = [-1, -1]
        do throws(SystemCallError) {
            _ = try systemCall("pipe", subject: "the signal relay") { pipe(&ends) }
        } catch {
            return DaemonError("cannot handle signals: \(error)")
        }
        for end in ends { _ = try? systemCall("fcntl F_SETFD", subject: "the signal relay") { fcntl(end, F_SETFD, FD_CLOEXEC) } }
        // The handler must never block: a full pipe already holds a wake-up.
        if let flags = try? systemCall("fcntl F_GETFL", subject: "the signal relay", { fcntl(ends[1], F_GETFL) }) {
            _ = try? systemCall("fcntl F_SETFL", subject: "the signal relay") { fcntl(ends[1], F_SETFL, flags | O_NONBLOCK) }
        }
        writeEnd.store(ends[1], ordering: .releasing)
        let readEnd = ends[0]
        startThread(named: "nookd.signals") {
            // A parent that left these blocked (a test runner's thread, a service manager)
            // passes its mask on: this thread, at least, takes them.
            var set = sigset_t()
            sigemptyset(&set)
            for number in numbers { sigaddset(&set, number) }
            _ = try? errnoReturningCall("pthread_sigmask") { pthread_sigmask(SIG_UNBLOCK, &set, nil) }
            relay(from: readEnd)
        }
        for number in numbers {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let saved = errno
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(SignalRelay.writeEnd.load(ordering: .acquiring), &byte, 1)
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            _ = try? systemCall("sigaction") { sigaction(number, &action, nil) }
        }
        return nil
    }()

    /// Adds a watcher; the signals held until now are sent through the relay again, so the
    /// watcher gets them on the relay's thread, in order, as any other.
    static func watch(_ handler: @escaping @Sendable (Int32) -> Void) throws(DaemonError) -> Int {
        if let failure = installed { throw failure }
        let id = nextID.add(1, ordering: .relaxed).newValue
        let held = state.withLock { state -> [Int32] in
            state.watchers[id] = handler
            defer { state.held = [] }
            return state.held
        }
        for number in held {
            var byte = UInt8(truncatingIfNeeded: number)
            _ = write(writeEnd.load(ordering: .acquiring), &byte, 1)
        }
        return id
    }

    static func forget(_ id: Int) {
        _ = state.withLock { $0.watchers.removeValue(forKey: id) }
    }

    static func release() {
        guard installed == nil else { return }
        let held = state.withLock { state -> [Int32] in
            state.released = true
            defer { state.held = [] }
            return state.held
        }
        for number in numbers { signal(number, SIG_DFL) }
        for number in held { raise(number) }
    }

    private static func relay(from readEnd: Int32) {
        var byte: UInt8 = 0
        while true {
            guard (try? systemCall("read", subject: "the signal relay") { read(readEnd, &byte, 1) }) == 1 else { return }
            let number = Int32(byte)
            enum Route { case watchers([@Sendable (Int32) -> Void]), held, tooMany, raised }
            let route = state.withLock { state -> Route in
                if !state.watchers.isEmpty { return .watchers(Array(state.watchers.values)) }
                if state.released { return .raised }
                if number != SIGHUP, state.held.contains(where: { $0 != SIGHUP }) { return .tooMany }
                // One reload stands for many: the file is read once, as it is then.
                if number == SIGHUP, state.held.contains(SIGHUP) { return .held }
                state.held.append(number)
                return .held
            }
            switch route {
            case .watchers(let handlers): for handler in handlers { handler(number) }
            case .held: continue
            case .raised: raise(number)
            case .tooMany:
                writeWhole("nookd: second stop signal while starting: exiting now\n", to: 2)
                exit(1)
            }
        }
    }
}

final class Counter: @unchecked Sendable {
    private var value = 0
    /// Only called on the relay's thread.
    func increment() -> Int {
        value += 1
        return value
    }
}
