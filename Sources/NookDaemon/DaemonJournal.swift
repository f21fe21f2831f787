import NookActivities
import NookProtocol

extension Daemon {
    /// Puts back what the last run left unfinished and keeps the journal in step with every
    /// queue (issue 8). Returns the observations that keep it in step; nookd holds them until it
    /// stops.
    func startJournal() async -> [NookObservation] {
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
        for entry in recovery.expired {
            logger.warning("journal: \"\(LogText.short(entry.activity.title))\" expired while nookd was down; dropped",
                           metadata: ["id": "\(entry.activity.id)", "module": "\(entry.module)"])
            history.expiredWhileDown(entry.activity, module: entry.module, enqueuedAt: entry.enqueuedAt)
        }
        // Observed before anything is enqueued, synchronously: each add and end is in the
        // journal before the call that caused it returns, and none waits on a task that a
        // shutdown could cancel first (issue 23).
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
            return try checkedIcon(activity)
        } catch {
            logger.warning("journal: \"\(LogText.short(activity.title))\" is restored without its icon: \(error.message)", metadata: ["id": "\(activity.id)"])
            var plain = activity
            plain.systemImage = nil
            return plain
        }
    }
}
