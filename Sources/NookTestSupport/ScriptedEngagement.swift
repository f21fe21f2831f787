import NookActivities
import Synchronization

/// An engagement source a test scripts: set `engaged`, choose whether observers hear about it
/// at once (as real inputs do) or only through the queue's poll, and count how often it is read.
public final class ScriptedEngagement: NookEngagementSource {
    private struct State {
        var engaged = false
        var notifiesChanges = true
        var reads = 0
    }

    private let state = Locked(State())
    private let observers = NookObserverList<Bool>()

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
        let notify = state.withLock { state -> Bool in
            guard state.engaged != engaged else { return false }
            state.engaged = engaged
            return state.notifiesChanges
        }
        if notify { observers.notify(engaged) }
    }

    public func observe(_ onChange: @escaping @Sendable (Bool) -> Void) -> NookObservation {
        observers.add(onChange)
    }
}
