import NookActivities

/// A one-way gate tasks can wait on: once opened it stays open and every waiter, present or
/// future, goes through. Used for "the daemon was asked to stop" and "this client is gone".
final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens the gate; true if this call was the one that opened it.
    @discardableResult
    func open() -> Bool {
        let (opened, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            guard !state.isOpen else { return (false, []) }
            state.isOpen = true
            defer { state.waiters = [] }
            return (true, state.waiters)
        }
        for waiter in waiters { waiter.resume() }
        return opened
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
