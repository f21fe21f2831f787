
/// Proof that the display loops are going round (W1), for a watchdog.
///
/// Each loop that draws a queue's events ``register()``s and calls ``beat(_:)`` every time it
/// comes back to wait for its next event; a loop with nothing to do is woken every
/// ``interval`` to beat anyway. `onAlive` runs (at most once per `interval`) only after
/// *every* registered loop has beaten since the last time it ran, so one loop stuck inside a
/// present that never returns stops it, however many other loops are idle and well. Nothing
/// here runs on a timer of its own: a hung loop cannot be covered for by a side thread.
public final class NookLoopHeartbeat: Sendable {
    /// The least time between two `onAlive` calls.
    public let interval: Duration
    /// How often an idle loop is woken to beat: a third of ``interval``, so after one
    /// `onAlive` every loop has beaten again within a third of an interval of the next being
    /// allowed, and the gap stays under 1⅓ intervals (waking at the interval itself let it
    /// reach two, which for systemd's `WATCHDOG_USEC / 2` is the whole timeout).
    public var wakeInterval: Duration { interval / 3 }
    private let clock: any NookClock
    private let onAlive: @Sendable () -> Void

    private struct State {
        var beaten: [Int: Bool] = [:]
        var nextLoop = 0
        var lastAlive: NookInstant?
    }

    private let state = Locked(State())

    public init(interval: Duration, clock: any NookClock, onAlive: @escaping @Sendable () -> Void) {
        precondition(interval > .zero, "a heartbeat interval must be positive")
        self.interval = interval
        self.clock = clock
        self.onAlive = onAlive
    }

    /// A new loop that must beat from now on; pass the number to ``beat(_:)``.
    public func register() -> Int {
        state.withLock { state in
            state.nextLoop += 1
            state.beaten[state.nextLoop] = false
            return state.nextLoop
        }
    }

    /// The loop ended (its stream finished): it is no longer waited for.
    public func unregister(_ loop: Int) {
        state.withLock { _ = $0.beaten.removeValue(forKey: loop) }
    }

    /// `loop` is between two events, not stuck in one.
    public func beat(_ loop: Int) {
        let now = clock.now
        let alive = state.withLock { state -> Bool in
            guard state.beaten[loop] != nil else { return false }
            state.beaten[loop] = true
            guard state.beaten.values.allSatisfy({ $0 }) else { return false }
            if let last = state.lastAlive, now - last < interval { return false }
            state.lastAlive = now
            for key in state.beaten.keys { state.beaten[key] = false }
            return true
        }
        if alive { onAlive() }
    }
}
