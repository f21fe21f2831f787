/// Software debounce for one line (SPEC I1), on the leading edge: the first edge after a quiet
/// spell is accepted at once (so a press reaches the queue in microseconds, not after the
/// debounce window), edges inside the window that follows are contact bounce and ignored, and
/// when the window closes the line is read again so a change that ended inside it is not lost.
///
/// Pure: times are monotonic offsets handed in by the caller.
struct GPIODebouncer: Sendable {
    let window: Duration
    /// The accepted logical level.
    private(set) var level: Bool
    /// While set, edges are bounce; at this time ``settle(reading:at:)`` must be called.
    private(set) var deadline: Duration?

    init(window: Duration, level: Bool) {
        self.window = window
        self.level = level
    }

    /// An edge to `newLevel` at `time`; the new accepted level if this is a change.
    mutating func edge(to newLevel: Bool, at time: Duration) -> Bool? {
        if let deadline, time < deadline { return nil }
        deadline = time + window
        guard newLevel != level else { return nil }
        level = newLevel
        return newLevel
    }

    /// The window has closed and the line reads `reading`: the new level if bounce hid a change.
    mutating func settle(reading: Bool, at time: Duration) -> Bool? {
        deadline = nil
        guard reading != level else { return nil }
        level = reading
        deadline = time + window
        return reading
    }
}

/// What a role does with a debounced change of its line (SPEC I1).
struct GPIORoleState: Sendable {
    enum Effect: Equatable, Sendable {
        case engagement(active: Bool)
        case dismiss
        /// A press of `open` invoked the default action of the card on the glass (E3); a
        /// switch's engagement still follows its level, a toggle's press is used up.
        case invoked(engagement: Bool?)
        case none
    }

    let role: GPIOLineSettings.Role
    let openMode: GPIOLineSettings.OpenMode
    /// How long a toggle button is held for a long press (U5's recall); nil: no long press.
    let longPressAfter: Duration?
    /// Toggled open state of a `toggle` button.
    private(set) var isOpen = false
    /// While a press that toggled is held: when it becomes a long press.
    private(set) var longPressDeadline: Duration?

    init(role: GPIOLineSettings.Role, openMode: GPIOLineSettings.OpenMode, longPressAfter: Duration? = nil) {
        self.role = role
        self.openMode = openMode
        // A switch's level is a state, not a press: only a toggle button has a long press.
        self.longPressAfter = role == .open && openMode == .toggle ? longPressAfter : nil
    }

    /// Whether the line becoming `active` is a press of a button (reported to `inputs`
    /// watchers, E8): the open button in toggle mode and the dismiss button; a level role's
    /// change (hover, a lid) is a state, not a press.
    func isPress(active: Bool) -> Bool {
        active && (role == .dismiss || (role == .open && openMode == .toggle))
    }

    /// The effect of the line's logical level becoming `active`. `invokes` is asked on a
    /// press of `open` only: true when it invoked the action of a card on the glass (E3).
    /// `time` is the change's monotonic time, from which a long press is counted.
    mutating func change(active: Bool, at time: Duration = .zero, invokes: () -> Bool = { false }) -> Effect {
        longPressDeadline = nil
        switch (role, openMode) {
        case (.hover, _), (.presence, _):
            return .engagement(active: active)
        case (.open, .level):
            return active && invokes() ? .invoked(engagement: true) : .engagement(active: active)
        case (.open, .toggle):
            guard active else { return .none }
            // The press acts on the card the person is looking at; opening the nook as well
            // would hold every later card back until a second press closed it (Q6).
            if invokes() { return .invoked(engagement: nil) }
            isOpen.toggle()
            // The short press acts at once, as it always has; held long enough, it becomes
            // a long press and this toggle is taken back (see ``held(at:longPress:)``).
            longPressDeadline = longPressAfter.map { time + $0 }
            return .engagement(active: isOpen)
        case (.dismiss, _):
            return active ? .dismiss : .none
        }
    }

    /// The button is still held at `now`: once its long-press time has come, `longPress` is
    /// asked (true when it took the press, U5's recall on an idle display) and the toggle the
    /// press made is taken back, so the nook is as open as before the press. A long press
    /// nothing takes stays the short press it began as. Nil: no change to report.
    mutating func held(at now: Duration, longPress: () -> Bool) -> Effect? {
        guard let deadline = longPressDeadline, now >= deadline else { return nil }
        longPressDeadline = nil
        guard longPress() else { return nil }
        isOpen.toggle()
        return .engagement(active: isOpen)
    }

    /// The engagement state to report when the line is first read (or lost): a level role
    /// reports the level, a toggle starts closed.
    func initialEngagement(active: Bool) -> Bool? {
        switch (role, openMode) {
        case (.hover, _), (.open, .level), (.presence, _): return active
        case (.open, .toggle): return isOpen
        case (.dismiss, _): return nil
        }
    }
}
