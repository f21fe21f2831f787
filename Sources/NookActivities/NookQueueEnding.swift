/// Ending cards early (Q4, Q5, Q14, Z1): cancel, dismiss and suppression, and the one request
/// that ends (or interrupts) the card on screen.
extension NookActivityQueue {
    /// Removes a pending activity, or ends the one on screen early through the normal path
    /// (animate out, release the claim) (Q5). False if no such activity is pending or shown.
    @discardableResult
    public func cancel(_ id: NookActivityID) -> Bool {
        cancelling(id) != .notFound
    }

    /// ``cancel(_:)``, saying what happens: a card already sliding out on its own ends as it
    /// was going to (its dwell ran out, or an earlier request ended it). `permits` is checked
    /// inside the queue, so that nothing comes between the check and the end (an owner
    /// check, U3): a card it refuses is `refused` and left alone.
    public func cancelling(_ id: NookActivityID, permits: @Sendable (NookActivity) -> Bool = { _ in true }) -> NookEndRequestOutcome {
        if let found = activity(id), !permits(found) { return .refused(found) }
        if let removed = pendingActivities.remove(id) {
            emit(removed.activity, .rejected(.cancelled))
            return .ends
        }
        return requestEnd(of: id, .end(.cancelled))
    }

    /// Removes every pending activity with this coalescing key that `permits` accepts,
    /// queueing no replacement (Q4). Returns how many were removed.
    @discardableResult
    public func cancelAll(coalescingKey key: String, permits: @Sendable (NookActivity) -> Bool = { _ in true }) -> Int {
        var removed = 0
        for id in coalesced(by: key, permits: permits) {
            guard let entry = pendingActivities.remove(id) else { continue }
            emit(entry.activity, .rejected(.cancelled))
            removed += 1
        }
        return removed
    }

    /// Ends every pending activity `matching` says to as `suppressed` (Z1: quiet hours with a
    /// priority configured to end rather than wait); the one on screen is not touched.
    /// Returns the ids ended.
    @discardableResult
    public func suppressPending(where matching: (NookActivity) -> Bool) -> [NookActivityID] {
        let ids = pendingActivities.ordered.map(\.activity).filter(matching).map(\.id)
        for id in ids {
            if let removed = pendingActivities.remove(id) { emit(removed.activity, .rejected(.suppressed)) }
        }
        return ids
    }

    /// Dismisses an activity (Q14): the one on screen ends now; a pending one is skipped. The
    /// one way to dismiss by id; `permits` as ``cancelling(_:permits:)``'s.
    @discardableResult
    public func dismissing(_ id: NookActivityID, permits: @Sendable (NookActivity) -> Bool = { _ in true }) -> NookEndRequestOutcome {
        if let found = activity(id), !permits(found) { return .refused(found) }
        if let removed = pendingActivities.remove(id) {
            emit(removed.activity, .rejected(.dismissed))
            return .ends
        }
        return requestEnd(of: id, .end(.dismissed))
    }

    /// Dismisses whatever is on screen (the dismiss input, I1) if `permits` accepts it, in one
    /// step: its id and what happens, or nil when nothing is on screen.
    @discardableResult
    public func dismissingCurrent(permits: @Sendable (NookActivity) -> Bool = { _ in true }) -> (id: NookActivityID, outcome: NookEndRequestOutcome)? {
        guard let current = onScreen?.entry.activity else { return nil }
        if !permits(current) { return (current.id, .refused(current)) }
        let outcome = dismissing(current.id)
        return outcome == .notFound ? nil : (current.id, outcome)
    }


    func requestEnd(of id: NookActivityID, _ request: EndRequest) -> NookEndRequestOutcome {
        guard var shown = onScreen, shown.entry.activity.id == id else { return .notFound }
        switch (shown.endRequest, request) {
        case (nil, _) where shown.phase != .animateOut:
            shown.endRequest = request
            onScreen = shown
            wake(.presentation)
        case (.interrupt?, .end):
            // Sliding out to be shown again later (quiesce, display gone, another module's
            // turn): a cancel or dismiss now means it is not shown again, as its answer says.
            shown.endRequest = request
            onScreen = shown
        case (.end(let reason)?, _):
            return .alreadyEnding(reason)
        default:
            break
        }
        return .ends
    }
}
