/// Enqueueing (Q4, Q16, Q17): validation, coalescing by key, the capacity and its shares,
/// and the capacity kept for cards set aside.
extension NookActivityQueue {
    /// Validates and queues an activity. A non-nil coalescing key first removes the pending
    /// activities with the same key that `permits` accepts (Q4; nookd lets a key reach only
    /// what its sender may end, U3); a full queue evicts its oldest lowest-priority activity
    /// for a higher-priority arrival, or rejects the arrival as `queueFull` (Q16).
    ///
    /// An activity whose id is already pending or on screen is refused with no event at all:
    /// events are keyed by id, so a `rejected` for it would read as the live activity's end.
    @discardableResult
    public func enqueue(_ activity: NookActivity, coalescing permits: @Sendable (NookActivity) -> Bool = { _ in true },
                        shareLimit: Int? = nil) -> NookEnqueueResult {
        enqueue(activity, coalescing: permits, shareLimit: shareLimit, fromSetAside: false)
    }

    /// Keeps one slot of the capacity (Q16) for a card set aside to come back later (a
    /// snooze): until ``releaseSetAside()`` or its return through
    /// ``enqueueSetAside(_:coalescing:)``, new arrivals find the queue that much fuller. A queue
    /// already full stays so: nothing pending is evicted for it.
    public func keepSetAside() { setAside += 1 }

    /// Gives back a slot ``keepSetAside()`` kept (the card will not come back).
    public func releaseSetAside() { setAside = max(0, setAside - 1) }

    /// Cards set aside with a slot kept for them.
    public var setAsideCount: Int { setAside }

    /// The return of a card set aside (``keepSetAside()``): its kept slot is given back and the
    /// card enqueued, in one step, so no other arrival takes the slot in between.
    @discardableResult
    public func enqueueSetAside(_ activity: NookActivity, coalescing permits: @Sendable (NookActivity) -> Bool = { _ in true }) -> NookEnqueueResult {
        enqueue(activity, coalescing: permits, shareLimit: nil, fromSetAside: true)
    }

    func enqueue(_ activity: NookActivity, coalescing permits: @Sendable (NookActivity) -> Bool, shareLimit: Int?,
                         fromSetAside: Bool) -> NookEnqueueResult {
        enqueueCountingShare(activity, coalescing: permits, shareLimit: shareLimit, fromSetAside: fromSetAside).result
    }

    /// The enqueue, and for an arrival refused because its share is full, how many pending
    /// cards count against that share (it may hold more than the limit: a lowered limit, a
    /// card put back by `quiesce`).
    func enqueueCountingShare(_ activity: NookActivity, coalescing permits: @Sendable (NookActivity) -> Bool, shareLimit: Int?,
                                      fromSetAside: Bool) -> (result: NookEnqueueResult, shareHeld: Int?) {
        if fromSetAside { releaseSetAside() }
        if holds(activity.id) {
            return (.rejected(activity.id, .invalid(NookActivityValidationError(
                field: "id", problem: "activity \(activity.id) is already queued or on screen; an id names one activity until it ends"))), nil)
        }
        gathering = []
        defer {
            if let events = gathering, !events.isEmpty { hub.emit(events) }
            gathering = nil
        }
        do {
            try activity.validate()
        } catch {
            return (reject(activity, .invalid(error)), nil)
        }
        expireDue()
        let peers = coalesced(by: activity.coalescingKey, except: activity.id, permits: permits)
        // One arrival ends at most one card to make its room, and only once it is sure to be
        // queued: its share's lowest when its share is full, else the queue's lowest when the
        // queue is (Q16). A card its share gives up leaves the count as it was.
        var victim: PendingActivities.Entry?
        if let shareLimit, let share = configuration.shareOf?(activity) {
            // The cards this arrival replaces (Q4) leave the share as it comes.
            let leaving = peers.filter { pendingActivities.entry($0)?.share == share }.count
            let held = pendingActivities.count(inShare: share) - leaving
            if held >= shareLimit {
                guard let candidate = pendingActivities.evictionCandidate(inShare: share, sparing: peers),
                      activity.priority > candidate.activity.priority
                else { return (reject(activity, .queueFull), held) }
                victim = candidate
            }
        }
        if victim == nil, peers.isEmpty, pendingActivities.count + setAside >= configuration.capacity {
            guard let candidate = pendingActivities.evictionCandidate(),
                  activity.priority > candidate.activity.priority
            else { return (reject(activity, .queueFull), nil) }
            victim = candidate
        }
        if let victim {
            pendingActivities.remove(victim.activity.id)
            emit(victim.activity, .rejected(.queueFull))
        }
        for peer in peers {
            if let removed = pendingActivities.remove(peer) { emit(removed.activity, .rejected(.coalesced)) }
        }
        pendingActivities.insert(activity, enqueuedAt: clock.now)
        emit(activity, .enqueued)
        armExpiryTimer()
        startDrainIfNeeded()
        return (.accepted(activity.id), nil)
    }

    /// The pending activities a key reaches: those with the key that `permits` accepts.
    func coalesced(by key: String?, except id: NookActivityID? = nil, permits: (NookActivity) -> Bool) -> [NookActivityID] {
        guard let key else { return [] }
        let ids = pendingActivities.ids(forKey: key)
        guard !ids.isEmpty else { return [] }
        return ids.filter { other in
            guard other != id, let entry = pendingActivities.entry(other) else { return false }
            return permits(entry.activity)
        }
    }
}
