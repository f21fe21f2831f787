import NookLogging
import NookActivities
import NookConfig
import NookRender

extension Service {
    /// U5's recall gesture: the newest history entries on the glass after a long press of open.
    /// Its queue is on the glass beside the modules' queues and follows them; its display loop
    /// beats the systemd watchdog like the modules' loops (W1), so a display that hangs while a
    /// recall card is drawn stops the pings.
    final class Recall: DaemonService {
        typealias Settings = HistoryRecall.Settings
        typealias Section = Settings
        static let name = "recall"
        static var needs: [any DaemonService.Type] { [Screen.self, SystemdWatchdog.self, Queues.self] }
        /// The history is read at a recall (a press, after every service started), not at start.
        static var uses: [any DaemonService.Type] { [History.self] }
        static let keys = settings.map(\.key)
        static let appliesAtReload = true

        let recall: HistoryRecall
        private let arbiter: NookSurfaceArbiter
        private let screen: DaemonScreen
        private let queues: [NookActivityQueue]
        private let watchdog: SystemdWatchdog
        private let logger: Logger
        private let stops = StopActions()

        init(_ config: DaemonConfig, clock: any NookClock, history: ActivityHistory, screen: DaemonScreen, arbiter: NookSurfaceArbiter,
             queues: [NookActivityQueue], watchdog: SystemdWatchdog, logger: Logger) {
            recall = HistoryRecall(settings: config.recall, clock: clock, history: history, fit: { screen.fitted($0) }, log: { logger.info("\($0)") })
            (self.arbiter, self.screen, self.queues, self.watchdog, self.logger) = (arbiter, screen, queues, watchdog, logger)
        }

        func start(_ section: Section) async throws(DaemonError) {
            await recall.bind(to: arbiter)
            let heartbeat = watchdog.heartbeat
            let events = recall.queue.events(where: NookScreen.draws)
            let feeder = Task { [screen, recall] in await screen.run(events, reportingTo: recall.queue, heartbeat: heartbeat) }
            let followed = queues.map { queue in queue.observe { [recall] in recall.observeModule($0) } }
            if let hold = recall.settings.hold {
                logger.info("recall: a press of open held \(hold) on an idle display shows the \(recall.settings.entries) newest history entries")
            }
            stops.add {
                followed.forEach { $0.cancel() }
                feeder.cancel()
            }
        }

        func stop() async { await stops.run() }

        func apply(_ section: Section) async { recall.setSettings(section) }
    }
}

extension Service.Recall: DeclaresSettings {
    /// 0: no recall gesture; otherwise at least ``HistoryRecall/Settings/shortestHold``.
    static let hold = Setting<Int>.integer("history.recall_hold_ms", default: 800, in: 0...10_000, reload: .applied,
                                           shownRange: "0 (off) or \(HistoryRecall.Settings.shortestHold) to 10000")
    static let entries = Setting<Int>.integer("history.recall_entries", default: 5, in: 1...20, reload: .applied)
    static let dwell = Setting<Int>.integer("history.recall_dwell_ms", default: 3000, in: 500...30_000, reload: .applied)
    static let settings = [hold.declaration, entries.declaration, dwell.declaration]
}

extension Service.Recall: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.recall }

    /// The recall gesture's keys of `[history]` (U5); the icon directories are the requests'.
    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        var recall = settings
        recall.iconDirectories = reading.earlier.requests.iconDirectories
        if let hold = try hold.read(reader) {
            // A hold within the debounce would make every tap a long press: open could never open.
            guard hold == 0 || hold >= HistoryRecall.Settings.shortestHold else {
                throw reader.error(self.hold.key, "must be 0 (no recall gesture) or at least \(HistoryRecall.Settings.shortestHold) ms, got \(hold)")
            }
            recall.hold = hold == 0 ? nil : .milliseconds(hold)
        }
        recall.entries = try entries.read(reader) ?? recall.entries
        if let dwell = try dwell.read(reader) { recall.dwell = .milliseconds(dwell) }
        return recall
    }
}

extension Service.Recall: QuiescesAtStop {
    func quiesce() async { await recall.queue.quiesce() }
}

extension Service.Recall: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Recall {
        Service.Recall(wiring.config, clock: wiring.clock, history: try wiring.part(Service.History.self).history, screen: try wiring.screen,
                       arbiter: wiring.arbiter, queues: try wiring.moduleQueues, watchdog: try wiring.part(Service.SystemdWatchdog.self), logger: wiring.logger)
    }
}
