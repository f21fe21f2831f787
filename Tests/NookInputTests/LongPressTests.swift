@testable import NookInput
import Testing

/// U5: a toggle open button held past its long-press time is the recall gesture; a short press
/// is what it always was.
@Suite("U5 the open button's long press")
struct LongPressTests {
    let hold = Duration.milliseconds(800)

    @Test func u5_aHeldToggleBecomesALongPressAndItsToggleIsTakenBack() {
        var state = GPIORoleState(role: .open, openMode: .toggle, longPressAfter: hold)
        // The press acts at once, as a short press always has.
        #expect(state.change(active: true, at: .seconds(10)) == .engagement(active: true))
        #expect(state.longPressDeadline == .seconds(10) + hold)
        var asked = 0
        #expect(state.held(at: .seconds(10) + .milliseconds(799), longPress: { asked += 1; return true }) == nil)
        #expect(asked == 0, "not yet a long press")
        #expect(state.held(at: .seconds(10) + hold, longPress: { asked += 1; return true }) == .engagement(active: false))
        #expect(asked == 1 && !state.isOpen, "the nook is as closed as before the press")
        #expect(state.held(at: .seconds(20), longPress: { asked += 1; return true }) == nil, "one long press per press")
        #expect(state.change(active: false, at: .seconds(20)) == .none)
        #expect(asked == 1)
    }

    @Test func u5_aShortPressIsUnchanged() {
        var state = GPIORoleState(role: .open, openMode: .toggle, longPressAfter: hold)
        #expect(state.change(active: true, at: .seconds(1)) == .engagement(active: true))
        #expect(state.change(active: false, at: .seconds(1) + .milliseconds(300)) == .none)
        #expect(state.longPressDeadline == nil)
        #expect(state.held(at: .seconds(5), longPress: { Issue.record("a released button is no long press"); return true }) == nil)
        #expect(state.isOpen)
    }

    @Test func u5_aLongPressNothingTakesStaysTheShortPressItBeganAs() {
        var state = GPIORoleState(role: .open, openMode: .toggle, longPressAfter: hold)
        #expect(state.change(active: true, at: .zero) == .engagement(active: true))
        // The display is busy: the recall does not take it.
        #expect(state.held(at: hold, longPress: { false }) == nil)
        #expect(state.isOpen)
    }

    @Test func u5_aPressThatInvokedACardsActionOrASwitchHasNoLongPress() {
        var toggle = GPIORoleState(role: .open, openMode: .toggle, longPressAfter: hold)
        #expect(toggle.change(active: true, at: .zero, invokes: { true }) == .invoked(engagement: nil))
        #expect(toggle.longPressDeadline == nil)
        var lid = GPIORoleState(role: .open, openMode: .level, longPressAfter: hold)
        #expect(lid.change(active: true, at: .zero) == .engagement(active: true))
        #expect(lid.longPressDeadline == nil, "a switch's level is a state, not a press")
        var plain = GPIORoleState(role: .open, openMode: .toggle)
        _ = plain.change(active: true, at: .zero)
        #expect(plain.longPressDeadline == nil, "no long press configured")
    }
}
