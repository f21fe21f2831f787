
/// A thread-safe set of change callbacks, each removed when its ``NookObservation`` is
/// cancelled or released: the registry every ``NookEngagementSource`` needs.
public final class NookObserverList<Value: Sendable>: Sendable {
    private struct State {
        var next: UInt64 = 0
        var callbacks: [UInt64: @Sendable (Value) -> Void] = [:]
    }

    private let state = Locked(State())

    public init() {}

    public func add(_ callback: @escaping @Sendable (Value) -> Void) -> NookObservation {
        let token = state.withLock { state in
            state.next += 1
            state.callbacks[state.next] = callback
            return state.next
        }
        return NookObservation { [weak self] in
            _ = self?.state.withLock { $0.callbacks.removeValue(forKey: token) }
        }
    }

    /// Calls every callback with `value`, outside the lock.
    public func notify(_ value: Value) {
        let callbacks = state.withLock { Array($0.callbacks.values) }
        for callback in callbacks { callback(value) }
    }
}
