import Logging
import NookActivities
import NookDisplay
import NookRender

extension Service {
    /// The panel, LEDs or mock nookd draws on (D4): chosen when nookd is built, restored last.
    final class Display: DaemonService {
        struct Section: Equatable, Sendable {
            var backend: DaemonConfig.Backend
            var mockSize: PixelSize
            var card, connector, mode, fbdev: String?
            var pageFlip: Bool
            var frames: String?
            var framesLimit: Int
            var refreshHz: Double
            var led: LEDSettings
            var hangDisplayFile: String?
        }

        static let name = "display"
        static let needs: [String] = []
        static let keys = ["display.backend", "display.size", "display.card", "display.connector", "display.mode", "display.page_flip",
                           "display.fbdev", "display.frames", "display.frames_limit", "display.refresh_hz", "led.*", "debug.hang_display_file"]

        static func section(of config: DaemonConfig) -> Section {
            Section(backend: config.backend, mockSize: config.mockSize, card: config.drmCard, connector: config.drmConnector, mode: config.drmMode,
                    fbdev: config.fbdevPath, pageFlip: config.drmPageFlip, frames: config.framesDirectory, framesLimit: config.framesLimit,
                    refreshHz: config.refreshHz, led: config.led, hangDisplayFile: config.hangDisplayFile)
        }

        let display: any DisplayBackend
        /// Z2: the frames' dimmer, with `[brightness]` (used where there is no backlight).
        let dimmer: DimmingDisplay?
        let backendName: String
        private let frameWriter: FrameWriter?

        init(_ config: DaemonConfig, clock: any NookClock, logger: Logger) throws(DaemonError) {
            let selection = try DisplaySelection.choose(config, clock: clock, logger: logger)
            var chosen = selection.display
            if let trigger = config.hangDisplayFile {
                logger.warning("debug.hang_display_file is set: the display loop hangs when \(trigger) appears (a test of the watchdog, W1)")
                chosen = HangingDisplay(chosen, triggerPath: trigger, warn: { logger.warning("\($0)") })
            }
            // Z2: frames pass through untouched unless brightness without a backlight dims them.
            dimmer = config.brightnessConfigured ? DimmingDisplay(chosen) : nil
            display = dimmer ?? chosen
            backendName = selection.name
            frameWriter = selection.writer
        }

        func start(_ section: Section) async throws(DaemonError) {}

        /// What the screen showed before nookd is put back.
        func stop() async {
            await frameWriter?.finish()
            display.restore()
        }
    }

    /// Before anything is read or written: a journal or history path that is not nookd's (a
    /// device, a FIFO, a link, someone else's file) is an error, never replaced.
    final class StateFiles: DaemonService {
        typealias Section = NoSection
        static let name = "state files"
        static let needs: [String] = []

        private let journal: ActivityJournal?
        private let history: ActivityHistory

        init(journal: ActivityJournal?, history: ActivityHistory) {
            (self.journal, self.history) = (journal, history)
        }

        func start(_ section: NoSection) async throws(DaemonError) {
            let sharing = journal.flatMap { journal in history.path.flatMap { DurableFile.sharing(journal: journal.path, history: $0) } }
            if let refusal = sharing ?? journal?.refusal() ?? history.refusal() { throw DaemonError(refusal) }
        }
    }

    /// SIGTERM and SIGINT stop nookd, SIGHUP reloads its config; started before the socket
    /// exists, so a client (or systemd) that sees nookd ready can stop it.
    final class Signals: DaemonService {
        typealias Section = NoSection
        static let name = "signals"
        static let needs: [String] = []

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

    /// One queue per module, on the arbiter (C2, C3); made when nookd is built.
    final class Queues: DaemonService {
        struct Section: Equatable, Sendable {
            var modules: [NookModuleID]
            var capacity: Int
            var pollInterval: Duration
        }

        static let name = "queues"
        static let needs: [String] = []
        static let keys = ["queue.modules", "queue.capacity", "queue.poll_interval_ms"]

        static func section(of config: DaemonConfig) -> Section {
            Section(modules: config.modules, capacity: config.capacity, pollInterval: config.pollInterval)
        }

        private let arbiter: NookSurfaceArbiter
        private let queues: [(NookModuleID, NookActivityQueue)]

        init(arbiter: NookSurfaceArbiter, queues: [(NookModuleID, NookActivityQueue)]) {
            (self.arbiter, self.queues) = (arbiter, queues)
        }

        func start(_ section: Section) async throws(DaemonError) {
            for (module, queue) in queues { await queue.bind(to: arbiter, moduleID: module) }
        }
    }

    /// W1: systemd's watchdog is pinged from the loops that draw the queues' events, so a loop
    /// stuck in a present stops the pings and systemd restarts nookd.
    final class SystemdWatchdog: DaemonService {
        typealias Section = NoSection
        static let name = "watchdog"
        static let needs: [String] = []

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
