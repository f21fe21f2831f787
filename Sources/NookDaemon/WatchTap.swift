import NookActivities

/// One `watch` subscription to one queue: a backlog of at most ``limit`` events that says where
/// it overflowed instead of dropping silently.
///
/// The queue asks ``admit(_:)`` as it emits each event (synchronously, in order), so the tap
/// knows exactly which events did not fit: when the watcher falls that far behind, later
/// events are dropped until it catches up, and ``consumed()`` reports the count at the point
/// of the gap, right after the last event before it.
final class WatchTap: Sendable {
    static let limit = 4096

    private struct State {
        var queued = 0
        var admitted = 0
        var consumed = 0
        /// Drops, each after the `after`-th admitted event.
        var gaps: [(after: Int, dropped: Int)] = []
    }

    private let state = Locked(State())
    private let limit: Int

    init(limit: Int = WatchTap.limit) {
        self.limit = limit
    }

    /// Whether the event fits in the backlog (the queue's `events(where:)` filter).
    @Sendable func admit(_ event: NookActivityEvent) -> Bool {
        state.withLock { state in
            guard state.queued >= limit else {
                state.queued += 1
                state.admitted += 1
                return true
            }
            if let last = state.gaps.indices.last, state.gaps[last].after == state.admitted {
                state.gaps[last].dropped += 1
            } else {
                state.gaps.append((state.admitted, 1))
            }
            return false
        }
    }

    /// Call after taking each event from the stream: how many events were dropped right after
    /// it, if any.
    func consumed() -> Int? {
        state.withLock { state in
            state.queued -= 1
            state.consumed += 1
            guard let first = state.gaps.first, first.after == state.consumed else { return nil }
            state.gaps.removeFirst()
            return first.dropped
        }
    }
}
