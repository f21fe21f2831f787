import NookLogging
import NookActivities
import NookDisplay
import NookRender

extension Service {
    /// W1: systemd's watchdog is pinged from the loops that draw the queues' events, so a loop
    /// stuck in a present stops the pings and systemd restarts nookd.
    final class SystemdWatchdog: DaemonService {
        typealias Section = NoSection
        static let name = "watchdog"
        static var needs: [any DaemonService.Type] { [] }

        private let clock: any NookClock
        private let logger: Logger
        private let beat = Locked<NookLoopHeartbeat?>(nil)

        init(clock: any NookClock, logger: Logger) { (self.clock, self.logger) = (clock, logger) }

        /// What the display loops ping; nil when systemd asks for no watchdog.
        var heartbeat: NookLoopHeartbeat? { beat.withLock { $0 } }

        func start(_ section: NoSection) async throws(DaemonError) {
            let heartbeat = Watchdog.heartbeat(clock: clock)
            if let heartbeat { logger.info("systemd watchdog: pinging every \(heartbeat.interval) from the display loops") }
            beat.withLock { $0 = heartbeat }
        }
    }
}

extension Service.SystemdWatchdog: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.SystemdWatchdog {
        Service.SystemdWatchdog(clock: wiring.clock, logger: wiring.logger)
    }
}
