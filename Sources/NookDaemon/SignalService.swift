import NookLogging
import NookActivities
import NookDisplay
import NookRender

extension Service {
    /// SIGTERM and SIGINT stop nookd, SIGHUP reloads its config; started before the socket
    /// exists, so a client (or systemd) that sees nookd ready can stop it.
    final class Signals: DaemonService {
        typealias Section = NoSection
        static let name = "signals"
        static var needs: [any DaemonService.Type] { [] }

        private struct Handlers {
            var stop: @Sendable () -> Void
            var reload: @Sendable () -> Void
        }

        private let logger: Logger
        private let handlers = Locked<Handlers?>(nil)
        private let watcher = Locked<SignalWatcher?>(nil)

        init(logger: Logger) { self.logger = logger }

        /// What the signals do; without it (an embedder that handles signals itself) the
        /// process's dispositions are left alone.
        func handle(stop: @escaping @Sendable () -> Void, reload: @escaping @Sendable () -> Void) {
            handlers.withLock { $0 = Handlers(stop: stop, reload: reload) }
        }

        func start(_ section: NoSection) async throws(DaemonError) {
            guard let handlers = handlers.withLock({ $0 }) else { return }
            let signals = try SignalWatcher(logger: logger, stop: handlers.stop, reload: handlers.reload)
            watcher.withLock { $0 = signals }
        }

        func stop() async {
            watcher.withLock { $0 }?.cancel()
        }
    }
}

extension Service.Signals: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Signals {
        Service.Signals(logger: wiring.logger)
    }
}
