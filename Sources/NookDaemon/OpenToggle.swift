import NookActivities

/// The open toggle of one way in (I3: hover OR open, each way a toggle of its own): the socket's
/// `press` and a tap of the touch panel. ``InputRules/open(held:)`` decides whether a press is
/// the toggle's; this makes the toggle. Toggled and set on the engagement in one step: two
/// racing presses must not leave the input active while the toggle says closed. The GPIO
/// button's toggle is its line's own (NookInput's debouncer takes a long press's back).
final class OpenToggle: Sendable {
    /// The engagement input the toggle is (`status` lists it with its role).
    let input: String
    private let engagement: NookEngagement
    /// Whether a press on an idle display opens: false for a touch, too easily made, with
    /// nothing on the glass to show why every card waits.
    private let opensIdle: Bool
    private let state = Locked(State())

    private struct State {
        var open = false
        /// The card it opened on: it closes when that card leaves the glass.
        var openedOn: NookActivityID?
    }

    init(input: String, engagement: NookEngagement, opensIdle: Bool) {
        (self.input, self.engagement, self.opensIdle) = (input, engagement, opensIdle)
    }

    var isOpen: Bool { state.withLock { $0.open } }

    /// A press the rules left to the toggle: opens or closes it, `card` being what is on the
    /// glass. The new state; nil when the press changed nothing (an idle display, where a press
    /// does not open).
    func toggle(on card: NookActivityID? = nil) -> Bool? {
        state.withLock { state -> Bool? in
            guard opensIdle || card != nil || state.open else { return nil }
            state.open.toggle()
            state.openedOn = state.open ? card : nil
            engagement.set(.open, active: state.open, input: input)
            return state.open
        }
    }

    /// Closes it if it was opened on `card` (which left the glass); true when it closed.
    func close(ifOpenedOn card: NookActivityID) -> Bool {
        state.withLock { state -> Bool in
            guard state.open, state.openedOn == card else { return false }
            state = State()
            engagement.set(.open, active: false, input: input)
            return true
        }
    }

    /// Closes it, whatever it was opened on (the way in stopping).
    func close() {
        state.withLock { state in
            state = State()
            engagement.set(.open, active: false, input: input)
        }
    }
}
