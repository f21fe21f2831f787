import NookActivities

/// Lifecycle events a screen has received but not yet drawn, in order, and which activities
/// already end further on. The queue's timing does not wait for drawing; when cards come and go
/// faster than they can be drawn (a burst of very short dwells), the screen skips the frames of
/// cards that are already gone instead of drawing them late, and the backlog stays small.
struct EventBacklog {
    private var events: [NookActivityEvent] = []
    private var head = 0
    /// Activities with a `hidden` or `requeued` event still in the backlog.
    private var endsAhead: [NookActivityID: Int] = [:]
    /// Activities with an `updated` event still in the backlog.
    private var updatesAhead: [NookActivityID: Int] = [:]
    /// The stream has finished: nothing more will be appended.
    var isFinished = false
    /// The screen waiting for the next event.
    var waiter: CheckedContinuation<Void, Never>?

    var count: Int { events.count - head }

    mutating func append(_ event: NookActivityEvent) {
        events.append(event)
        if Self.ends(event) { endsAhead[event.id, default: 0] += 1 }
        if case .updated = event.kind { updatesAhead[event.id, default: 0] += 1 }
    }

    mutating func next() -> NookActivityEvent? {
        guard head < events.count else { return nil }
        let event = events[head]
        head += 1
        if Self.ends(event) {
            let remaining = endsAhead[event.id, default: 1] - 1
            endsAhead[event.id] = remaining > 0 ? remaining : nil
        }
        if case .updated = event.kind {
            let remaining = updatesAhead[event.id, default: 1] - 1
            updatesAhead[event.id] = remaining > 0 ? remaining : nil
        }
        if head == events.count {
            // Drained: give the storage of a burst back.
            events = []
            head = 0
        } else if head > 256, head * 2 > events.count {
            events.removeFirst(head)
            head = 0
        }
        return event
    }

    /// True if the activity's card is already gone further on: drawing it now would be late.
    func endsLater(_ id: NookActivityID) -> Bool { endsAhead[id] != nil }

    /// True if a newer version of the activity is further on: redrawing this one would be
    /// wasted, since all updates that arrived between two frames cost one redraw (U2).
    func updatedLater(_ id: NookActivityID) -> Bool { updatesAhead[id] != nil }

    private static func ends(_ event: NookActivityEvent) -> Bool {
        switch event.kind {
        case .hidden, .requeued: true
        default: false
        }
    }
}
