import NookLogging
import NookActivities
import NookConfig
import NookProtocol

extension Service {
    /// Every ended activity (U4), on disk beside the journal unless `history.path` says
    /// otherwise: read at start, recorded from every queue's ends; its bounds apply at a reload.
    final class History: DaemonService {
        struct Settings: Equatable, Sendable {
            /// `history.path` as written: a file, `none` (nil inside: memory only), or unset
            /// (nil: `history` next to the journal, ``DaemonConfig/historyPath``).
            var path: String??
            /// `max_entries`, `max_bytes`, `max_age`.
            var bounds = ActivityHistory.Bounds()
        }
        typealias Section = Settings

        static let name = "history"
        static var needs: [any DaemonService.Type] { [Queues.self, StateFiles.self] }
        static let keys = settings.map(\.key)

        /// The bounds apply at once; the file is opened at start.
        static func reload(from old: Section, to new: Section, changed: [String], in context: ReloadContext) -> ReloadDecision {
            guard old != new else { return ReloadDecision() }
            let mine = owned(changed)
            return ReloadDecision(applied: mine.filter { $0 != path.key }, needsRestart: mine.filter { $0 == path.key })
        }

        let history: ActivityHistory
        private let queues: [(NookModuleID, NookActivityQueue)]
        private let logger: Logger
        private let stops = StopActions()

        init(_ config: DaemonConfig, queues: [(NookModuleID, NookActivityQueue)], logger: Logger) {
            history = ActivityHistory(path: config.historyPath, bounds: config.history.bounds, warn: { logger.warning("\($0)") })
            (self.queues, self.logger) = (queues, logger)
        }

        /// Before the journal restores anything: a restored card's end is recorded like any other.
        func start(_ section: Section) async throws(DaemonError) {
            for warning in history.start() { logger.warning("\(warning)") }
            let bounds = history.bounds
            if let path = history.path {
                logger.info("history: ended activities are kept in \(path) (at most \(bounds.maxEntries), none older than \(Int(bounds.maxAge)) s)")
            } else {
                logger.notice("history: kept in memory only (no journal to keep it beside, or history.path = \"none\"); it is lost at a restart")
            }
            let observations = queues.map { history.follow($1, module: $0) }
            stops.add { [history, logger] in
                // Bounded like the journal's last sync: N2's two seconds hold on a stalled disk.
                if await !history.finish(within: .milliseconds(100)) {
                    logger.warning("history: the disk did not confirm the last entries within 100 ms; stopping without waiting for it")
                }
                observations.forEach { $0.cancel() }
            }
        }

        func stop() async { await stops.run() }

        func apply(_ section: Section) async { history.setBounds(section.bounds) }
    }
}

extension Daemon {
    /// The answer line to `history` (U5), from the entries' JSON kept since they were written.
    func historyAnswerLine(_ query: HistoryQuery, id: RequestID?) async -> [UInt8] {
        // What a client is shown is in the file first: it survives a kill of nookd.
        await history.settleWritten(within: .milliseconds(500))
        let (entries, total) = history.query(query)
        let bodies = history.encodedJSON(of: entries)
        // Past one page, the newest entries that fit; the client asks for the ones before.
        let count = HistoryAnswer.pageCount(sizes: bodies.map(\.count))
        let next = count < entries.count ? entries[entries.count - count].number : nil
        return HistoryAnswer.lineBytes(id: id, entries: Array(bodies.suffix(count)), total: total, next: next)
    }

    /// `history-show`, `history-replay`, `history-clear` (U5); `history` is answered by
    /// ``historyAnswerLine(_:id:)``.
    func historyRequest(_ operation: NookOperation, peer: PeerCredentials) async throws(ProtocolError) -> any NookAnswer {
        switch operation {
        case .historyShow(let reference):
            await history.settleWritten(within: .milliseconds(500))
            return HistoryShowAnswer(entry: try historyEntry(reference))
        case .historyClear:
            // Root and the admin group clear everyone's entries; anyone else only their own.
            let admin = ownership.isAdmin(peer)
            let (cleared, unsaved) = await history.clear(sentBy: admin ? nil : peer.uid)
            logger.notice("history: cleared \(cleared) entries (\(admin ? "all" : "those sent by uid \(peer.uid)"))", metadata: ["peer": "\(peer)"])
            if let unsaved {
                // A clear is asked for so that the entries are gone: one that a restart would
                // undo is not done, and the answer must not say it is.
                logger.error("history: the \(cleared) cleared entries are still in the file: \(unsaved)")
                throw ProtocolError(.unavailable, "cleared \(cleared) entries from nookd's memory, but the history file could not be rewritten "
                    + "without them (\(unsaved)): they come back after a restart unless nookd can write the file first "
                    + "(it tries again every \(Int(ActivityJournal.retryAfterSeconds)) s and when it stops)")
            }
            return HistoryClearAnswer(cleared: cleared, scope: admin ? .all : .own)
        default:
            preconditionFailure("historyRequest(\(operation)) is not a history read")
        }
    }

    /// The entry's activity as a new activity, for `history-replay`, and the module it goes to:
    /// its own if this nookd still has it, else the foreground one.
    func replayed(_ reference: HistoryReference) throws(ProtocolError) -> (HistoryEntry, NookActivity, String?) {
        let entry = try historyEntry(reference)
        var activity = entry.activity
        activity.id = NookActivityID()
        // Its sender is the connection, as for any enqueue: a name here would read as one the
        // client stated for whom it relays (U3), and only requests stating it would reach it.
        activity.sender = nil
        let module = queues[NookModuleID(entry.module)] == nil ? nil : entry.module
        return (entry, activity, module)
    }

    private func historyEntry(_ reference: HistoryReference) throws(ProtocolError) -> HistoryEntry {
        guard let entry = history.entry(reference) else {
            throw ProtocolError(.notFound, field: "entry", "no history entry \(reference) (it may have been dropped by history.max_entries or max_age, or cleared)")
        }
        return entry
    }
}

extension Daemon {
    /// The history's operations, owned by the history service.
    static let historyHandlers: [OperationHandler] = [
        OperationHandler(\.history.history) { daemon, query, reply in
            try await daemon.historyListRequest(query, reply)
        },
        OperationHandler(\.history.historyShow) { daemon, _, reply in
            try await daemon.historyEntryRequest(reply)
        },
        OperationHandler(\.history.historyClear) { daemon, _, reply in
            try await daemon.historyEntryRequest(reply)
        },
        OperationHandler(\.history.historyReplay) { daemon, reference, reply in
            try await daemon.historyReplayRequest(reference, reply)
        },
    ]

    /// `history` (U4, U5): ended activities that pass the query.
    func historyListRequest(_ query: HistoryQuery, _ reply: RequestReply) async throws(ProtocolError) {
        let (request, connection) = (reply.request, reply.connection)
        connection.send(utf8: await historyAnswerLine(query, id: request.id))
    }

    /// `history-show` and `history-clear` (U5).
    func historyEntryRequest(_ reply: RequestReply) async throws(ProtocolError) {
        let (request, connection) = (reply.request, reply.connection)
        reply.answer(try await historyRequest(request.operation, peer: connection.peer))
    }

    /// `history-replay` (U5): an entry's activity enqueued again, as the requester's.
    func historyReplayRequest(_ reference: HistoryReference, _ reply: RequestReply) async throws(ProtocolError) {
        let (request, connection) = (reply.request, reply.connection)
        let (entry, replay, moduleName) = try replayed(reference)
        await enqueue([(request, replay)], module: moduleName, on: connection,
                      answer: { id, module, _ in HistoryReplayAnswer(id: id, module: module.rawValue, replayed: entry.number) })
    }
}

extension Service.History: DeclaresSettings {
    /// A file, or `none`: memory only; unset, `history` beside the journal.
    static let path = Setting<String?>.text("history.path", reload: .restart)
    static let maxEntries = Setting<Int>.integer("history.max_entries", default: ActivityHistory.Bounds().maxEntries,
                                                 in: ActivityHistory.Bounds.entriesRange, reload: .applied)
    static let maxBytes = Setting<Int>.integer("history.max_bytes", default: ActivityHistory.Bounds().maxBytes,
                                               in: ActivityHistory.Bounds.bytesRange, reload: .applied)
    /// Digits and a unit, read by ``HistoryAge``.
    static let maxAge = Setting<String?>.text("history.max_age", reload: .applied, shownDefault: "7 days")
    static let settings = [path.declaration, maxEntries.declaration, maxBytes.declaration, maxAge.declaration]
}

extension Service.History: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.history }

    /// `[history]`'s own keys (U4): the path as written (`none`: nil inside; unset: nil), and
    /// the bounds.
    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        var setting = settings.path
        var bounds = settings.bounds
        if let text = try path.read(reader) {
            switch SettingValue.journal(text) {
            case .success(let value): setting = .some(value)
            case .failure(let problem): throw reader.error(path.key, problem.description)
            }
        }
        bounds.maxEntries = try maxEntries.read(reader) ?? bounds.maxEntries
        bounds.maxBytes = try maxBytes.read(reader) ?? bounds.maxBytes
        if let age = try maxAge.read(reader) {
            switch HistoryAge.seconds(age) {
            case .success(let seconds): bounds.maxAge = seconds
            case .failure(let problem): throw reader.error(maxAge.key, problem.description)
            }
        }
        return Settings(path: setting, bounds: bounds)
    }
}

extension Service.History: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.History {
        Service.History(wiring.config, queues: try wiring.queuesInOrder, logger: wiring.logger)
    }
}
