import NookActivities

/// SIGHUPs (N1) that come while a reload runs are folded into one more reload after it. A burst
/// of them costs at most two reloads, not one each queued behind the screen, and two reloads
/// never run side by side, where the older file could be applied after the newer one.
final class ReloadRequests: Sendable {
    private let state = Locked((running: false, again: false))

    /// True if the caller is to reload now; false if a reload runs and is now asked to run again.
    func begin() -> Bool {
        state.withLock { state in
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
    }

    /// True if another request came while the reload ran: the caller reloads once more.
    func end() -> Bool {
        state.withLock { state in
            if state.again {
                state.again = false
                return true
            }
            state.running = false
            return false
        }
    }
}
