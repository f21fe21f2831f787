import NookActivities
import NookProtocol

extension Daemon {
    /// Reads the history the last runs kept and records every queue's ends from now on (U4).
    /// Returns the observations that keep it recording; nookd holds them until it stops.
    func startHistory() -> [NookObservation] {
        for warning in history.start() { logger.warning("\(warning)") }
        let bounds = history.bounds
        if let path = history.path {
            logger.info("history: ended activities are kept in \(path) (at most \(bounds.maxEntries), none older than \(Int(bounds.maxAge)) s)")
        } else {
            logger.notice("history: kept in memory only (no journal to keep it beside, or history.path = \"none\"); it is lost at a restart")
        }
        return modules.map { history.follow(queues[$0]!, module: $0) }
    }

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

    /// The entry's activity as a new activity sent by `peer`, for `history-replay`, and the
    /// module it goes to: its own if this nookd still has it, else the foreground one.
    func replayed(_ reference: HistoryReference, by peer: PeerCredentials) throws(ProtocolError) -> (HistoryEntry, NookActivity, String?) {
        let entry = try historyEntry(reference)
        var activity = entry.activity
        activity.id = NookActivityID()
        activity.sender = peer.sender
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
