import NookActivities
import Synchronization

/// An engagement source a test scripts: set `engaged`, choose whether observers hear about it
/// at once (as real inputs do) or only through the queue's poll, and count how often it is read.
public final class ScriptedEngagement: NookEngagementSource {
    private struct State {
        var engaged = false
        var notifiesChanges = true
        var reads = 0
        var observers: [UInt64: @Sendable (Bool) -> Void] = [:]
        var nextObserver: UInt64 = 0
    }

    private let state = Mutex(State())

    public init(engaged: Bool = false, notifiesChanges: Bool = true) {
        state.withLock {
            $0.engaged = engaged
            $0.notifiesChanges = notifiesChanges
        }
    }

    public var isEngaged: Bool {
        state.withLock { state in
            state.reads += 1
            return state.engaged
        }
    }

    /// How many times `isEngaged` has been read.
    public var reads: Int { state.withLock { $0.reads } }

    public func set(engaged: Bool) {
        let observers = state.withLock { state -> [@Sendable (Bool) -> Void] in
            guard state.engaged != engaged else { return [] }
            state.engaged = engaged
            return state.notifiesChanges ? Array(state.observers.values) : []
        }
        for observer in observers { observer(engaged) }
    }

    public func observe(_ onChange: @escaping @Sendable (Bool) -> Void) -> NookObservation {
        let token = state.withLock { state in
            state.nextObserver += 1
            state.observers[state.nextObserver] = onChange
            return state.nextObserver
        }
        return NookObservation { [weak self] in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: token) }
        }
    }
}
