
/// Whether the user is engaged with the nook (Q6, I3): hovering it or having it open.
///
/// The queue reads ``isEngaged`` before every claim and re-reads it every poll interval while
/// parked; ``observe(_:)`` lets it wake at once when engagement changes.
public protocol NookEngagementSource: AnyObject, Sendable {
    var isEngaged: Bool { get }
    /// Calls `onChange` with the new value whenever engagement changes, until the returned
    /// observation is cancelled or released.
    func observe(_ onChange: @escaping @Sendable (Bool) -> Void) -> NookObservation
}

/// Keeps a change callback registered; cancel it, or let it go, to stop the callbacks.
public final class NookObservation: Sendable {
    private let cancellation: Locked<KeptClosure<@Sendable () -> Void>?>

    public init(onCancel: @escaping @Sendable () -> Void) {
        cancellation = Locked(KeptClosure(onCancel))
    }

    public func cancel() {
        let action = cancellation.withLock { action in
            defer { action = nil }
            return action
        }
        action?.call()
    }

    deinit { cancel() }
}

/// The engagement of a real nook: any number of inputs, each in the role of `hover` or
/// `open`; the user is engaged while any input is active (I3).
///
/// Inputs in the role of `presence` (Z3: a PIR sensor, a proximity sensor's farther threshold)
/// never engage: someone in the room is not someone at the nook. Someone present is anyone an
/// input of any role reports (``isPresent``): a hand hovering is a person in the room.
///
/// Inputs (GPIO lines, proximity sensors, `nookctl`) report with ``set(_:active:input:)`` from
/// any thread.
public final class NookEngagement: NookEngagementSource {
    public enum Role: String, Hashable, Sendable, CaseIterable {
        case hover
        case open
        /// Someone is in the room (Z3); does not make the queue yield.
        case presence
    }

    /// One input's last reported state, for `nookctl status`.
    public struct InputState: Hashable, Sendable {
        public var input: String
        public var role: Role
        public var isActive: Bool
        /// Why the input cannot be read right now (a missing or unusable sensor); it is then
        /// inactive, and `nookctl status` says so rather than calling it idle.
        public var problem: String?
    }

    private struct State {
        var inputs: [String: InputState] = [:]
        var order: [String] = []
        var isEngaged: Bool { inputs.values.contains { $0.isActive && $0.role != .presence } }
        var isPresent: Bool { inputs.values.contains(where: \.isActive) }
    }

    private let state = Locked(State())
    private let observers = NookObserverList<Bool>()
    private let presenceObservers = NookObserverList<Bool>()

    public init() {}

    public var isEngaged: Bool { state.withLock { $0.isEngaged } }

    /// Whether any input, of any role, reports someone (Z3).
    public var isPresent: Bool { state.withLock { $0.isPresent } }

    /// Whether an input in the `presence` role has reported (Z3 has something to go by).
    public var hasPresenceInput: Bool { state.withLock { $0.inputs.values.contains { $0.role == .presence } } }

    public var isHovering: Bool { state.withLock { $0.inputs.values.contains { $0.role == .hover && $0.isActive } } }
    public var isOpen: Bool { state.withLock { $0.inputs.values.contains { $0.role == .open && $0.isActive } } }

    /// Every input that has reported, in the order they first did.
    public var inputs: [InputState] {
        state.withLock { state in state.order.compactMap { state.inputs[$0] } }
    }

    /// Records an input's state; observers hear about it if overall engagement changed. An
    /// input with a `problem` is never active.
    public func set(_ role: Role, active: Bool, input: String = "default", problem: String? = nil) {
        let (changed, engaged, presenceChanged, present) = state.withLock { state in
            let (before, wasPresent) = (state.isEngaged, state.isPresent)
            if state.inputs[input] == nil { state.order.append(input) }
            state.inputs[input] = InputState(input: input, role: role, isActive: active && problem == nil, problem: problem)
            return (before != state.isEngaged, state.isEngaged, wasPresent != state.isPresent, state.isPresent)
        }
        if changed { observers.notify(engaged) }
        if presenceChanged { presenceObservers.notify(present) }
    }

    public func observe(_ onChange: @escaping @Sendable (Bool) -> Void) -> NookObservation {
        observers.add(onChange)
    }

    /// Calls `onChange` with ``isPresent`` whenever it changes (Z3), until the observation ends.
    public func observePresence(_ onChange: @escaping @Sendable (Bool) -> Void) -> NookObservation {
        presenceObservers.add(onChange)
    }
}
