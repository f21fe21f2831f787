/// Changing a card in place (U1), by id or by coalescing key.
extension NookActivityQueue {
    /// The ids of every activity with this coalescing key that has not ended: the one on
    /// screen, if it has the key, then the pending ones (U1's update by key).
    public func live(withKey key: String) -> [NookActivityID] {
        var ids: [NookActivityID] = []
        // One sliding out to end is left out: it cannot be updated (``update(_:restartDwell:_:)``).
        if let shown = onScreen, shown.entry.activity.coalescingKey == key, !shown.isEnding { ids.append(shown.entry.activity.id) }
        ids += pendingActivities.ids(forKey: key)
        return ids
    }

    /// Changes an activity that has not ended, in place (U1). `change` gets the activity as it
    /// is now and returns it changed (its id cannot change; an error it throws is rethrown
    /// and changes nothing). A pending activity keeps its place in the queue (a new priority
    /// moves it to that class, among the others by enqueue order); a new coalescing key held by
    /// other pending activities that `permits` accepts coalesces those away, as an enqueue
    /// would (Q4). The activity
    /// on screen is redrawn in place by the presenter, with no animate-out or in; its dwell
    /// keeps running (a changed dwell or timeout counts from when it was presented) unless
    /// `restartDwell`, and a blocker that becomes timed counts its dwell from now, so it ends
    /// on its own. An `updated` event carries the activity before and after; an update that
    /// changes nothing emits none.
    @discardableResult
    public func update(
        _ id: NookActivityID, restartDwell: Bool = false,
        coalescing permits: @Sendable (NookActivity) -> Bool = { _ in true },
        _ change: @Sendable (NookActivity) throws -> NookActivity
    ) throws -> NookUpdate {
        guard let result = try update([id], restartDwell: restartDwell, coalescing: permits, change).first else {
            throw NookUpdateError.notFound(id)
        }
        return result
    }

    /// ``update(_:restartDwell:coalescing:_:)`` of several activities, all or nothing: the
    /// change is made and checked for every one before any is changed, so a change one of them
    /// refuses (a timeout for a timed card) leaves all of them as they were. An id that has
    /// ended since the caller looked it up is left out (nothing is left of it to change), not
    /// an error that would fail the others: returns the updates made, in `ids`' order. A new
    /// key coalesces only pending activities that `permits` accepts and that are not among `ids`.
    public func update(
        _ ids: [NookActivityID], restartDwell: Bool = false,
        coalescing permits: @Sendable (NookActivity) -> Bool = { _ in true },
        _ change: @Sendable (NookActivity) throws -> NookActivity
    ) throws -> [NookUpdate] {
        expireDue()
        var planned: [NookUpdate] = []
        for id in ids {
            let onScreenNow = onScreen.flatMap { $0.entry.activity.id == id ? $0 : nil }
            // One ending for good (its dwell ran out, cancelled, dismissed) is as good as ended: a
            // change to it would slide out with it unseen, and its client would think it shown.
            if onScreenNow?.isEnding == true { continue }
            guard let previous = onScreenNow?.entry.activity ?? pendingActivities.entry(id)?.activity else { continue }
            var updated = try change(previous)
            updated.id = id
            updated.sender = previous.sender
            do {
                try updated.validate()
            } catch {
                throw NookUpdateError.invalid(error)
            }
            planned.append(NookUpdate(previous: previous, activity: updated, wasOnScreen: onScreenNow != nil))
        }
        gathering = []
        defer {
            if let events = gathering, !events.isEmpty { hub.emit(events) }
            gathering = nil
        }
        let targets = Set(ids)
        for result in planned {
            let (previous, updated) = (result.previous, result.activity)
            if result.wasOnScreen, var shown = onScreen, shown.entry.activity.id == updated.id {
                guard result.changed || restartDwell else { continue }
                shown.entry.activity = updated
                if shown.phase == .presented, restartDwell || (previous.isBlocker && !updated.isBlocker) {
                    shown.dwellStart = clock.now
                }
                onScreen = shown
                if result.changed { emit(updated, .updated(previous: previous)) }
                wake(.presentation)
            } else if result.changed {
                if let key = updated.coalescingKey, key != previous.coalescingKey {
                    for peer in coalesced(by: key, except: updated.id, permits: permits) where !targets.contains(peer) {
                        if let removed = pendingActivities.remove(peer) { emit(removed.activity, .rejected(.coalesced)) }
                    }
                }
                _ = pendingActivities.replace(updated)
                emit(updated, .updated(previous: previous))
                expireDue()
            }
        }
        return planned
    }
}
