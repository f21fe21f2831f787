import NookActivities

/// Cards snoozed by a long press (T2): each ends now, as dismissed, and the same activity (its
/// id and sender included) is queued again after the snooze, unless a newer one of its sender
/// with its coalescing key came meanwhile (it would replace that newer one, Q4) or its id is live
/// again. Kept in
/// memory: a restart before the time is up drops them (a journal entry for them would need
/// one more kind of record than the journal has).
final class Snoozes: Sendable {
    private struct State {
        var duration: Duration
        var waiting: [NookActivityID: (activity: NookActivity, task: Task<Void, Never>)] = [:]
    }

    private let clock: any NookClock
    private let log: @Sendable (String) -> Void
    private let state: Locked<State>

    init(duration: Duration, clock: any NookClock, log: @escaping @Sendable (String) -> Void) {
        (self.clock, self.log) = (clock, log)
        state = Locked(State(duration: duration))
    }

    /// How long the next snooze lasts (`touch.snooze`; one under way keeps its time).
    var duration: Duration {
        get { state.withLock { $0.duration } }
        set { state.withLock { $0.duration = newValue } }
    }

    /// Cards waiting to come back.
    var count: Int { state.withLock { $0.waiting.count } }

    /// Ends `activity` on the glass now and queues it again in `queue` after the snooze.
    func snooze(_ activity: NookActivity, in queue: NookActivityQueue) {
        let duration = self.duration
        let back = clock.now + duration
        let id = activity.id
        let task = Task { [clock, log, state] in
            // The inputs at the device act on any card, whoever sent it (U3).
            guard case .ends = await queue.dismissing(id) else {
                log("touch: long press → \(id) was already ending; not snoozed")
                state.withLock { _ = $0.waiting.removeValue(forKey: id) }
                return
            }
            log("touch: long press → \(id) \"\(LogText.short(activity.title))\" snoozed for \(Self.describe(duration))")
            do { try await clock.sleep(until: back) } catch { return }
            state.withLock { _ = $0.waiting.removeValue(forKey: id) }
            // A key reaches only its own sender's cards (U3), as when the journal restores them.
            let sender = activity.sender?.uid
            if let key = activity.coalescingKey {
                for other in await queue.live(withKey: key) {
                    guard await queue.activity(other)?.sender?.uid == sender else { continue }
                    log("touch: \(id) not back from its snooze: a newer card with key \"\(key)\" (\(other)) came meanwhile")
                    return
                }
            }
            switch await queue.enqueue(activity, coalescing: { $0.sender?.uid == sender }) {
            case .accepted: log("touch: \(id) is back from its snooze")
            case .rejected(_, let reason): log("touch: \(id) could not come back from its snooze: \(reason)")
            }
        }
        let replaced = state.withLock { state in
            defer { state.waiting[id] = (activity, task) }
            return state.waiting[id]?.task
        }
        replaced?.cancel()
    }

    /// Ends snoozes its sender no longer wants (`cancel` of its id, `cancel-all` of its key): a
    /// snoozed card is not live, so the queue does not find it. `matches` picks them (the
    /// caller's own, with that id or key); the ones dropped are returned.
    func drop(where matches: (NookActivity) -> Bool) -> [NookActivityID] {
        let dropped = state.withLock { state -> [(NookActivityID, Task<Void, Never>)] in
            let chosen = state.waiting.filter { matches($0.value.activity) }
            for id in chosen.keys { state.waiting.removeValue(forKey: id) }
            return chosen.map { ($0.key, $0.value.task) }
        }
        for (id, task) in dropped {
            task.cancel()
            log("touch: \(id) cancelled by its sender while snoozed; it does not come back")
        }
        return dropped.map(\.0)
    }

    /// Drops every snooze under way (nookd stopping).
    func cancelAll() {
        let tasks = state.withLock { state in
            defer { state.waiting = [:] }
            return state.waiting.values.map(\.task)
        }
        tasks.forEach { $0.cancel() }
    }

    /// "10 min", "90 s", "2 h".
    static func describe(_ duration: Duration) -> String {
        let seconds = Int(duration.components.seconds)
        if seconds % 3600 == 0 { return "\(seconds / 3600) h" }
        if seconds % 60 == 0 { return "\(seconds / 60) min" }
        return "\(seconds) s"
    }
}
