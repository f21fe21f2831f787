import NookLogging
import NookActivities
import NookConfig
import NookProtocol

extension Service {
    /// Unfinished activities on disk (J1, J2): what the last run left is put back at start,
    /// and every queue's adds and ends are kept in step; nil path keeps them in memory only.
    final class Journal: DaemonService {
        struct Settings: Equatable, Sendable {
            /// Where unfinished activities are journalled so a crash or restart loses none; nil
            /// keeps them in memory only. Defaults to `$STATE_DIRECTORY/journal` (systemd's
            /// StateDirectory=).
            var path = DaemonConfig.defaultJournalPath
            /// When a journal record is safe enough to answer (J1, J2): synced (`ack`), or
            /// written and synced within a second (`interval`).
            var sync = JournalSync.ack
        }
        typealias Section = Settings

        static let name = "journal"
        /// The history records a restored card's end; the recall queue is on the glass first,
        /// as a restored card makes the display busy; the event log and the action cards follow
        /// the queues' events before a restored card makes any.
        static var needs: [any DaemonService.Type] {
            [History.self, Recall.self, Apps.self, Queues.self, StateFiles.self, EventLog.self, ActionCardTracking.self]
        }
        static let keys = settings.map(\.key)

        let journal: ActivityJournal?
        /// Cards snoozed by a long press (T2) that the last run left, for the touch service.
        let recoveredSnoozes = Locked<[ActivityJournal.Snooze]>([])
        /// Where the apps the last run kept go (A1).
        private let appsRestore = Locked<KeptClosure<@Sendable ([NookAppShelf.Entry]) -> Void>?>(nil)
        private let history: ActivityHistory
        private let queues: [NookModuleID: NookActivityQueue]
        private let modules: [NookModuleID]
        private let iconDirectories: @Sendable () -> [String]
        private let logger: Logger
        private let stops = StopActions()

        init(_ config: DaemonConfig, history: ActivityHistory, queues: [NookModuleID: NookActivityQueue], modules: [NookModuleID],
             iconDirectories: @escaping @Sendable () -> [String], logger: Logger) {
            journal = config.journal.path.map { ActivityJournal(path: $0, mode: config.journal.sync, warn: { logger.warning("\($0)") }) }
            (self.history, self.queues, self.modules, self.iconDirectories, self.logger) = (history, queues, modules, iconDirectories, logger)
        }

        func start(_ section: Section) async throws(DaemonError) {
            let observations = await restore()
            stops.add { [journal, logger] in
                // Everything the queues recorded, up to their last event, is on disk before nookd exits.
                // Bounded: with the quiesce's 1.5 s this keeps the exit within N2's 2 s even when
                // the disk stalls (the records are then only as safe as the page cache keeps them).
                if let journal, await !journal.finish(within: .milliseconds(400)) {
                    logger.warning("journal: the disk did not confirm the last records within 400 ms; stopping without waiting for it")
                }
                observations.forEach { $0.cancel() }
            }
        }

        func stop() async { await stops.run() }

        /// The apps the last run kept go back to `rotation` at start.
        func restoresApps(into rotation: AppRotation) {
            appsRestore.withLock { $0 = KeptClosure { [weak rotation] in rotation?.restore($0) } }
        }

        /// Puts back what the last run left unfinished and keeps the journal in step with every
        /// queue. Returns the observations that keep it in step; nookd holds them until it stops.
        private func restore() async -> [NookObservation] {
            guard let journal else {
                logger.notice("no journal: unfinished activities do not survive a restart (set [daemon] journal or --journal)")
                return []
            }
            let recovery = journal.recover()
            if let refusal = recovery.refusal {
                // Checked at start; a path swapped since is left alone, and the journal with it.
                logger.error("\(refusal); running without the journal")
                return []
            }
            for warning in recovery.warnings { logger.warning("\(warning)") }
            recoveredSnoozes.withLock { $0 = recovery.snoozes }
            appsRestore.withLock { $0 }?.call(recovery.apps)
            for entry in recovery.expired {
                logger.warning("journal: \"\(LogText.short(entry.activity.title))\" expired while nookd was down; dropped",
                               metadata: ["id": "\(entry.activity.id)", "module": "\(entry.module)"])
                history.expiredWhileDown(entry.activity, module: entry.module, enqueuedAt: entry.enqueuedAt)
            }
            // Observed before anything is enqueued, synchronously: each add and end is in the
            // journal before the call that caused it returns, and none waits on a task that a
            // shutdown could cancel first.
            let observations = modules.map { journal.follow(queues[$0]!, module: $0) }
            var restored = 0
            for entry in recovery.entries {
                var module = entry.module
                if queues[module] == nil {
                    logger.warning("journal: module \(module) no longer exists; \"\(LogText.short(entry.activity.title))\" goes to \(modules[0])")
                    module = modules[0]
                }
                // Its entry, when it ends, says when it first came and whether it was seen before.
                history.restoring(entry.activity.id, enqueuedAt: entry.enqueuedAt, wasShown: entry.wasShown)
                // Its key reaches only its own sender's cards (U3): two senders' cards with one key
                // were both live before, and come back both.
                let sender = entry.activity.sender?.uid
                switch await queues[module]!.enqueue(recheckedIcon(entry.activity), coalescing: { $0.sender?.uid == sender }) {
                case .accepted(let id):
                    restored += 1
                    logger.debug("journal: restored \(id) \"\(LogText.short(entry.activity.title))\"", metadata: ["module": "\(module)"])
                case .rejected(let id, let reason):
                    logger.warning("journal: \"\(LogText.short(entry.activity.title))\" could not be restored: \(reason)", metadata: ["id": "\(id)"])
                    journal.ended(id)
                    // Its end is in the history as an arrival's refusal is (U4: a queue.capacity
                    // lowered across the restart); refused as invalid, its id is live again and
                    // that card's end is its own entry.
                    if case .invalid = reason {} else {
                        history.endedAway(entry.activity, module: module, enqueuedAt: entry.enqueuedAt, wasShown: entry.wasShown, how: reason)
                    }
                }
            }
            history.restored()
            if restored > 0 || !recovery.expired.isEmpty {
                logger.notice("journal: restored \(restored) unfinished activities, \(recovery.expired.count) expired", metadata: ["path": "\(journal.path)"])
            }
            logger.info("journal: \(journal.mode == .ack ? "every change is synced before it is acknowledged" : "synced within a second of each write") (journal.sync = \(journal.mode.rawValue))", metadata: ["path": "\(journal.path)"])
            return observations
        }

        /// A restored activity's icon file is checked again as an enqueue checks it: the allowed
        /// directories may have changed since it was accepted, or the file been replaced. One that
        /// fails is shown with the generic glyph, not dropped.
        private func recheckedIcon(_ activity: NookActivity) -> NookActivity {
            do throws(ProtocolError) {
                return try IconPolicy(directories: iconDirectories()).checked(activity)
            } catch {
                logger.warning("journal: \"\(LogText.short(activity.title))\" is restored without its icon: \(error.message)", metadata: ["id": "\(activity.id)"])
                var plain = activity
                plain.systemImage = nil
                return plain
            }
        }
    }
}

extension Service.Journal: DeclaresSettings {
    /// An absolute path or `none`; unset, under systemd's state directory.
    static let path = Setting<String?>.text("daemon.journal", reload: .restart)
    /// The page says "ack (the default)".
    static let sync = Setting<String>.choice("journal.sync", among: SettingValue.journalSyncs, default: JournalSync.ack.rawValue, reload: .restart)
        .showing(default: nil)
    static let settings = [path.declaration, sync.declaration]
}

extension Service.Journal: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.journal }

    /// `daemon.journal` and `journal.sync` (J1, J2).
    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        var settings = settings
        if let text = try path.read(reader) {
            switch SettingValue.journal(text) {
            case .success(let value): settings.path = value
            case .failure(let problem): throw reader.error(path.key, problem.description)
            }
        }
        if let name = try sync.read(reader) { settings.sync = JournalSync(rawValue: name)! }
        return settings
    }
}

extension Service.Journal: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Journal {
        Service.Journal(wiring.config, history: try wiring.part(Service.History.self).history, queues: try wiring.queues, modules: wiring.config.queues.modules,
                        iconDirectories: { [state = wiring.state] in state.withLock { $0.config.requests.iconDirectories } }, logger: wiring.logger)
    }
}
