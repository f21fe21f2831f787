import NookActivities

/// Cards snoozed by a long press (T2): each ends now, as dismissed, and the same activity (its
/// id and sender included) is queued again after the snooze, unless a newer one of its sender
/// with its coalescing key came meanwhile (it would replace that newer one, Q4) or its id is live
/// again.
///
/// A snoozed card is still one of its queue's cards: it keeps a slot of the queue's capacity
/// (Q16) until it is back, so it always finds its place, and it is kept in nookd's journal
/// (J1), so a restart, a crash or a power cut brings it back at its time (at once if its time
/// passed while nookd was down). Coming back is an arrival like any other: quiet hours (Z1)
/// hold it back or end it as suppressed.
final class Snoozes: Sendable {
    /// What a snooze is kept with, beyond the queues.
    struct Keeping: Sendable {
        var journal: ActivityJournal?
        /// Each queue's module, in the queues' order (the journal names the module).
        var modules: [NookModuleID] = []
        /// Wall-clock seconds: a snooze's time survives a restart as a wall-clock time.
        var wallClock: @Sendable () -> Double = ActivityJournal.realtime
        /// Quiet hours (Z1): whether an arrival of this priority ends at once as suppressed, and
        /// the step that ends it.
        var suppresses: @Sendable (NookActivityPriority) -> Bool = { _ in false }
        var endSuppressed: @Sendable () async -> Void = {}
        /// The snoozes the journal found at start (the journal service starts first).
        var recovered: @Sendable () -> [ActivityJournal.Snooze] = { [] }
        /// A snoozed card that ended without coming back (its queue full): its history entry (U4).
        var ended: @Sendable (NookActivity, NookModuleID, NookRejectionReason) -> Void = { _, _, _ in }

        init(journal: ActivityJournal? = nil, modules: [NookModuleID] = [], wallClock: @escaping @Sendable () -> Double = ActivityJournal.realtime,
             suppresses: @escaping @Sendable (NookActivityPriority) -> Bool = { _ in false }, endSuppressed: @escaping @Sendable () async -> Void = {},
             recovered: @escaping @Sendable () -> [ActivityJournal.Snooze] = { [] },
             ended: @escaping @Sendable (NookActivity, NookModuleID, NookRejectionReason) -> Void = { _, _, _ in }) {
            (self.journal, self.modules, self.wallClock, self.suppresses, self.endSuppressed) = (journal, modules, wallClock, suppresses, endSuppressed)
            (self.recovered, self.ended) = (recovered, ended)
        }
    }

    private struct Waiting {
        var activity: NookActivity
        var queue: NookActivityQueue
        var task: Task<Void, Never>?
        /// Its slot is kept in the queue and its snooze in the journal: dropping it gives
        /// them back.
        var kept = true
    }

    private struct State {
        var duration: Duration
        var waiting: [NookActivityID: Waiting] = [:]
    }

    private let clock: any NookClock
    private let queues: [NookActivityQueue]
    private let keeping: Keeping
    private let log: @Sendable (String) -> Void
    private let state: Locked<State>

    init(duration: Duration, clock: any NookClock, queues: [NookActivityQueue], keeping: Keeping, log: @escaping @Sendable (String) -> Void) {
        (self.clock, self.queues, self.keeping, self.log) = (clock, queues, keeping, log)
        state = Locked(State(duration: duration))
    }

    /// How long the next snooze lasts (`touch.snooze`; one under way keeps its time).
    var duration: Duration {
        get { state.withLock { $0.duration } }
        set { state.withLock { $0.duration = newValue } }
    }

    /// Cards waiting to come back.
    var count: Int { state.withLock { $0.waiting.count } }

    /// The snoozed card with this id, if one waits to come back.
    func waiting(_ id: NookActivityID) -> NookActivity? { state.withLock { $0.waiting[id]?.activity } }

    /// Ends `activity` on the glass now and queues it again in `queues[index]` after the snooze.
    func snooze(_ activity: NookActivity, inQueue index: Int) {
        let queue = queues[index]
        let duration = self.duration
        let id = activity.id
        // Listed before anything can fail, so that every way out below finds it to take out.
        guard state.withLock({ state -> Bool in
            guard state.waiting[id] == nil else { return false }
            state.waiting[id] = Waiting(activity: activity, queue: queue, kept: false)
            return true
        }) else {
            log("touch: long press → \(id) is already snoozed")
            return
        }
        let module = self.module(of: index)
        let task = Task { [clock, keeping, log, state] in
            await queue.keepSetAside()
            // Kept in the journal before it leaves the glass: no moment in which the journal has
            // ended it without its snooze. Under the lock: a `cancel-all` of its key meanwhile
            // either finds it kept, and gives it back, or has dropped it, and nothing is kept.
            let wanted = state.withLock { state -> Bool in
                guard state.waiting[id] != nil else { return false }
                keeping.journal?.snoozed(activity, module: module, until: keeping.wallClock() + duration / .seconds(1))
                state.waiting[id]?.kept = true
                return true
            }
            if !wanted { await queue.releaseSetAside() }
            // The inputs at the device act on any card, whoever sent it (U3).
            guard case .ends = await queue.dismissing(id) else {
                log("touch: long press → \(id) was already ending; not snoozed")
                await self.abandon(id, queue: queue)
                return
            }
            guard wanted else {
                log("touch: long press → \(id) ended; its sender cancelled it meanwhile, so it does not come back")
                return
            }
            log("touch: long press → \(id) \"\(LogText.short(activity.title))\" snoozed for \(Self.describe(duration))")
            do { try await clock.sleep(until: clock.now + duration) } catch { return }
            await self.bringBack(id)
        }
        attach(task, to: id)
    }

    /// Snoozes the last run of nookd left (the journal's), each back at its time or at once if
    /// that passed while nookd was down. Each keeps its slot in its queue until then; those
    /// beyond a capacity lowered across the restart end now, as `queueFull` (U4).
    func restore(_ snoozes: [ActivityJournal.Snooze]? = nil) async {
        // The soonest back first: with a capacity lowered across the restart, those are the ones kept.
        let snoozes = (snoozes ?? keeping.recovered()).enumerated().sorted { ($0.element.until, $0.offset) < ($1.element.until, $1.offset) }.map(\.element)
        let now = keeping.wallClock()
        for snooze in snoozes {
            let activity = snooze.entry.activity
            var index = keeping.modules.firstIndex(of: snooze.entry.module) ?? 0
            if index >= queues.count { index = 0 }
            guard !queues.isEmpty else { return }
            let queue = queues[index]
            let id = activity.id
            let listed = state.withLock { state -> Bool in
                guard state.waiting[id] == nil else { return false }
                state.waiting[id] = Waiting(activity: activity, queue: queue)
                return true
            }
            guard listed else { continue }
            let room = await queue.snapshot()
            if room.pending.count + (await queue.setAsideCount) >= room.capacity {
                // queue.capacity was lowered across the restart: no slot is left for it, so it
                // ends now, as a card that arrives at a full queue does.
                state.withLock { _ = $0.waiting.removeValue(forKey: id) }
                keeping.journal?.unsnoozed(id)
                keeping.ended(activity, module(of: index), .queueFull)
                log("touch: \(id) \"\(LogText.short(activity.title))\" was snoozed but does not come back: its queue is full (queue.capacity \(room.capacity))")
                continue
            }
            await queue.keepSetAside()
            if keeping.modules.indices.contains(index), snooze.entry.module != keeping.modules[index] {
                // Kept under the module it now comes back to.
                keeping.journal?.snoozed(activity, module: keeping.modules[index], until: snooze.until)
            }
            // No snooze is longer than touch.snooze allows: a clock set back meanwhile does not
            // keep a card away for longer.
            let wait = Duration.nookSeconds(min(max(0, snooze.until - now), TouchConfig.snoozeRange.upperBound)) ?? .zero
            log("touch: \(id) \"\(LogText.short(activity.title))\" is still snoozed; back \(wait > .zero ? "in \(Self.describe(Self.roundedUp(wait)))" : "now, its time passed while nookd was down")")
            let task = Task { [clock] in
                if wait > .zero { do { try await clock.sleep(until: clock.now + wait) } catch { return } }
                await self.bringBack(id)
            }
            attach(task, to: id)
        }
    }

    /// Keeps the task that brings `id` back, or cancels it if the snooze ended meanwhile.
    private func attach(_ task: Task<Void, Never>, to id: NookActivityID) {
        let kept = state.withLock { state -> Bool in
            guard state.waiting[id] != nil else { return false }
            state.waiting[id]?.task = task
            return true
        }
        if !kept { task.cancel() }
    }

    private func module(of index: Int) -> NookModuleID {
        keeping.modules.indices.contains(index) ? keeping.modules[index] : "main"
    }

    /// The snooze of `id` is over: the card comes back into its kept slot, unless its sender
    /// sent a newer one with its key meanwhile.
    private func bringBack(_ id: NookActivityID) async {
        guard let waiting = state.withLock({ $0.waiting.removeValue(forKey: id) }) else { return }
        let (activity, queue) = (waiting.activity, waiting.queue)
        // A key reaches only its own sender's cards (U3), as when the journal restores them.
        let sender = activity.sender?.uid
        if let key = activity.coalescingKey {
            for other in await queue.live(withKey: key) {
                guard await queue.activity(other)?.sender?.uid == sender else { continue }
                log("touch: \(id) not back from its snooze: a newer card with key \"\(key)\" (\(other)) came meanwhile")
                await queue.releaseSetAside()
                keeping.journal?.unsnoozed(id)
                return
            }
        }
        // Its arrival ends the snooze in the journal, in the same record.
        switch await queue.enqueueSetAside(activity, coalescing: { $0.sender?.uid == sender }) {
        case .accepted:
            log("touch: \(id) is back from its snooze")
            // Z1: an arrival quiet hours end at once ends so, as a request's would.
            if keeping.suppresses(activity.priority) { await keeping.endSuppressed() }
        case .rejected(_, let reason):
            log("touch: \(id) could not come back from its snooze: \(reason)")
            keeping.journal?.unsnoozed(id)
            // Refused as invalid it was never back (its id is live again, and that card's end is
            // its own entry); any other refusal ends it, as it ends an arrival (U4).
            if case .invalid = reason { return }
            keeping.ended(activity, module(of: queues.firstIndex { $0 === queue } ?? 0), reason)
        }
    }

    /// The queues' events: a new card that takes a snoozed card's id (a sender reusing its
    /// `--id`) is what that sender means now, so the snooze ends, as the journal ends it.
    func observe(_ events: [NookActivityEvent]) {
        for event in events where event.kind == .enqueued {
            let id = event.id
            guard let dropped = state.withLock({ $0.waiting.removeValue(forKey: id) }) else { continue }
            dropped.task?.cancel()
            log("touch: \(id) not back from its snooze: a newer card took its id")
            guard dropped.kept else { continue }
            keeping.journal?.unsnoozed(id)
            Task { await dropped.queue.releaseSetAside() }
        }
    }

    /// A snooze that did not start (the card was already ending): its slot and record go.
    private func abandon(_ id: NookActivityID, queue: NookActivityQueue) async {
        guard state.withLock({ $0.waiting.removeValue(forKey: id) })?.kept == true else { return }
        await queue.releaseSetAside()
        keeping.journal?.unsnoozed(id)
    }

    /// Ends snoozes its sender no longer wants (`cancel` of its id, `cancel-all` of its key): a
    /// snoozed card is not live, so the queue does not find it. `matches` picks them (the
    /// caller's own, with that id or key); the ones dropped are returned, their ends in the
    /// journal (the caller's answer waits for its mark).
    func drop(where matches: (NookActivity) -> Bool) async -> [NookActivityID] {
        let dropped = state.withLock { state -> [(NookActivityID, Waiting)] in
            let chosen = state.waiting.filter { matches($0.value.activity) }
            for id in chosen.keys { state.waiting.removeValue(forKey: id) }
            return chosen.map { ($0.key, $0.value) }
        }
        for (id, waiting) in dropped {
            waiting.task?.cancel()
            guard waiting.kept else { continue }
            keeping.journal?.unsnoozed(id)
            await waiting.queue.releaseSetAside()
            log("touch: \(id) cancelled by its sender while snoozed; it does not come back")
        }
        return dropped.map(\.0)
    }

    /// Stops waiting (nookd stopping): the snoozes stay in the journal for the next start.
    func cancelAll() {
        let tasks = state.withLock { state in
            defer { state.waiting = [:] }
            return state.waiting.values.compactMap(\.task)
        }
        tasks.forEach { $0.cancel() }
    }

    /// Past a minute, up to the next whole minute (a log line, not a timer).
    static func roundedUp(_ duration: Duration) -> Duration {
        let seconds = Int64((duration / .seconds(1)).rounded(.up))
        return .seconds(seconds < 60 ? seconds : (seconds + 59) / 60 * 60)
    }

    /// "10 min", "90 s", "2 h".
    static func describe(_ duration: Duration) -> String {
        let seconds = Int(duration.components.seconds)
        if seconds % 3600 == 0 { return "\(seconds / 3600) h" }
        if seconds % 60 == 0 { return "\(seconds / 60) min" }
        return "\(seconds) s"
    }
}
