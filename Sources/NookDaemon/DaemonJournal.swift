import NookActivities

extension Daemon {
    /// Puts back what the last run left unfinished and keeps the journal in step with every
    /// queue (issue 8). Returns the tasks that follow the queues' events.
    func startJournal() async -> [Task<Void, Never>] {
        guard let journal else {
            logger.notice("no journal: unfinished activities do not survive a restart (set [daemon] journal or --journal)")
            return []
        }
        let recovery = journal.recover()
        for warning in recovery.warnings { logger.warning("\(warning)") }
        for entry in recovery.expired {
            logger.warning("journal: \"\(entry.activity.title)\" expired while nookd was down; dropped",
                           metadata: ["id": "\(entry.activity.id)", "module": "\(entry.module)"])
        }
        // Subscribed before anything is enqueued, so no event is missed.
        let followers = modules.map { module in
            let events = queues[module]!.events(where: { event in
                switch event.kind {
                case .animateIn, .hidden, .rejected: true
                case .enqueued, .presented, .animateOut, .requeued: false
                }
            })
            return Task { [journal] in
                for await event in events {
                    // Adds are written by the enqueue request itself, before its answer.
                    switch event.kind {
                    case .animateIn: journal.shown(event.id)
                    case .hidden, .rejected: journal.ended(event.id)
                    case .enqueued, .presented, .animateOut, .requeued: break
                    }
                }
            }
        }
        var restored = 0
        for entry in recovery.entries {
            var module = entry.module
            if queues[module] == nil {
                logger.warning("journal: module \(module) no longer exists; \"\(entry.activity.title)\" goes to \(modules[0])")
                module = modules[0]
            }
            switch await queues[module]!.enqueue(entry.activity) {
            case .accepted:
                restored += 1
            case .rejected(let id, let reason):
                logger.warning("journal: \"\(entry.activity.title)\" could not be restored: \(reason)", metadata: ["id": "\(id)"])
                journal.ended(id)
            }
        }
        if restored > 0 || !recovery.expired.isEmpty {
            logger.notice("journal: restored \(restored) unfinished activities, \(recovery.expired.count) expired", metadata: ["path": "\(journal.path)"])
        }
        return followers
    }
}
