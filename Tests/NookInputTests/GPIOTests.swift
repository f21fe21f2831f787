import Foundation
import NookActivities
@testable import NookInput
import NookTestSupport
import Testing

@Suite("I1 GPIO debounce and roles")
struct GPIODebounceTests {
    @Test func i1_theFirstEdgeCountsAtOnceAndBounceInsideTheWindowIsIgnored() {
        var debouncer = GPIODebouncer(window: .milliseconds(30), level: false)
        #expect(debouncer.edge(to: true, at: .milliseconds(100)) == true)
        // Contact bounce: edges 1–5 ms after the press.
        for (offset, level) in [(1, false), (2, true), (3, false), (5, true)] {
            #expect(debouncer.edge(to: level, at: .milliseconds(100 + offset)) == nil)
        }
        #expect(debouncer.deadline == .milliseconds(130))
        // The window closes with the line still high: no second change.
        #expect(debouncer.settle(reading: true, at: .milliseconds(130)) == nil)
        #expect(debouncer.level == true)
        #expect(debouncer.deadline == nil)
        // The release, well after: counted at once.
        #expect(debouncer.edge(to: false, at: .milliseconds(400)) == false)
    }

    @Test func i1_aChangeThatEndsInsideTheWindowIsCaughtWhenItCloses() {
        var debouncer = GPIODebouncer(window: .milliseconds(30), level: false)
        #expect(debouncer.edge(to: true, at: .zero) == true)
        #expect(debouncer.edge(to: false, at: .milliseconds(10)) == nil)
        #expect(debouncer.settle(reading: false, at: .milliseconds(30)) == false)
        // The correction opens a window of its own.
        #expect(debouncer.deadline == .milliseconds(60))
        #expect(debouncer.edge(to: true, at: .milliseconds(40)) == nil)
    }

    @Test func i1_aZeroWindowTakesEveryEdge() {
        var debouncer = GPIODebouncer(window: .zero, level: false)
        #expect(debouncer.edge(to: true, at: .milliseconds(1)) == true)
        #expect(debouncer.edge(to: false, at: .milliseconds(1)) == false)
        #expect(debouncer.edge(to: true, at: .milliseconds(2)) == true)
    }

    @Test func i1_anEdgeToTheAcceptedLevelChangesNothing() {
        var debouncer = GPIODebouncer(window: .milliseconds(30), level: true)
        #expect(debouncer.edge(to: true, at: .zero) == nil)
        #expect(debouncer.level == true)
    }

    @Test func i1_hoverAndALevelOpenFollowTheLine() {
        for (role, mode) in [(GPIOLineSettings.Role.hover, GPIOLineSettings.OpenMode.toggle), (.open, .level), (.presence, .toggle)] {
            var state = GPIORoleState(role: role, openMode: mode)
            #expect(state.initialEngagement(active: true) == true)
            #expect(state.change(active: true) == .engagement(active: true))
            #expect(state.change(active: false) == .engagement(active: false))
        }
    }

    /// Z3: a PIR's line is a level, reported in the presence role (never as engagement).
    @Test func z3_aPresenceLineIsALevelInThePresenceRole() throws {
        var state = GPIORoleState(role: .presence, openMode: .toggle)
        #expect(state.change(active: true) == .engagement(active: true))
        #expect(state.change(active: true) == .engagement(active: true), "a PIR held active is not a toggle")
        #expect(state.change(active: false) == .engagement(active: false))
    }

    @Test func i1_aToggleButtonOpensOnOnePressAndClosesOnTheNext() {
        var state = GPIORoleState(role: .open, openMode: .toggle)
        #expect(state.initialEngagement(active: false) == false)
        #expect(state.change(active: true) == .engagement(active: true))
        #expect(state.change(active: false) == .none)
        #expect(state.isOpen)
        #expect(state.change(active: true) == .engagement(active: false))
        #expect(state.change(active: false) == .none)
        #expect(!state.isOpen)
    }

    @Test func e8_onlyButtonPressesAreReportedAsPresses() {
        #expect(GPIORoleState(role: .open, openMode: .toggle).isPress(active: true))
        #expect(!GPIORoleState(role: .open, openMode: .toggle).isPress(active: false))
        #expect(GPIORoleState(role: .dismiss, openMode: .toggle).isPress(active: true))
        #expect(!GPIORoleState(role: .dismiss, openMode: .toggle).isPress(active: false))
        #expect(!GPIORoleState(role: .open, openMode: .level).isPress(active: true))
        #expect(!GPIORoleState(role: .hover, openMode: .toggle).isPress(active: true))
    }

    @Test func e3_i1_aTogglePressOnACardWithAnActionInvokesItAndDoesNotOpenTheNook() {
        var state = GPIORoleState(role: .open, openMode: .toggle)
        var asked = 0
        #expect(state.change(active: true, invokes: { asked += 1; return true }) == .invoked(engagement: nil))
        #expect(!state.isOpen, "the press was used up by the card's action")
        #expect(state.change(active: false, invokes: { asked += 1; return true }) == .none)
        #expect(asked == 1, "asked on the press only")
        #expect(state.change(active: true, invokes: { false }) == .engagement(active: true), "no action on the glass: the press opens as before")
        #expect(state.isOpen)
    }

    @Test func e3_i1_aSwitchOpenedOnACardWithAnActionInvokesItAndStillFollowsItsLevel() {
        var state = GPIORoleState(role: .open, openMode: .level)
        #expect(state.change(active: true, invokes: { true }) == .invoked(engagement: true))
        #expect(state.change(active: false, invokes: { Issue.record("asked on release"); return true }) == .engagement(active: false))
        var hover = GPIORoleState(role: .hover, openMode: .toggle)
        #expect(hover.change(active: true, invokes: { Issue.record("hover invoked"); return true }) == .engagement(active: true))
    }

    @Test func i1_q14_theDismissLineActsOnPressOnly() {
        var state = GPIORoleState(role: .dismiss, openMode: .toggle)
        #expect(state.initialEngagement(active: true) == nil)
        #expect(state.change(active: true) == .dismiss)
        #expect(state.change(active: false) == .none)
    }
}

@Suite("I1 I4 GPIO lines that cannot be had")
struct GPIOMissingHardwareTests {
    final class Log: Sendable {
        private let lines = Locked<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// Starts inputs for `lines` over `devices`, waits until every line reports a problem.
    func problems(for lines: [GPIOLineSettings], devices: String) throws -> (states: [GPIOInputs.LineState], warnings: [String], engagement: NookEngagement) {
        let engagement = NookEngagement()
        let warnings = Log()
        let inputs = try GPIOInputs(lines: lines, engagement: engagement, devices: devices, dismiss: {}, info: { _ in },
                                    warn: { warnings.add($0) })
        inputs.start()
        let deadline = Date().addingTimeInterval(TestBounds.seconds(10))
        while warnings.all.count < lines.count && Date() < deadline { usleep(5_000) }
        inputs.stop()
        return (inputs.states, warnings.all, engagement)
    }

    @Test func i4_noChipAtAllIsAWarningAndTheInputStaysInactive() throws {
        let empty = NSTemporaryDirectory() + "nook-dev-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let found = try problems(for: [GPIOLineSettings(name: "button", role: .open, lineName: "NOOK_BUTTON")], devices: empty)
        #expect(found.warnings == ["gpio:button: no GPIO chip under \(empty); running without it until it appears"])
        #expect(found.states[0].problem == "no GPIO chip under \(empty)")
        #expect(found.states[0].isActive == nil)
        #expect(!found.engagement.isEngaged)
    }

    @Test func i4_aChipThatIsNotThereIsNamed() throws {
        let found = try problems(for: [GPIOLineSettings(name: "lid", role: .open, chip: "pinctrl-rp1", offset: 4)], devices: "/nonexistent")
        #expect(found.states[0].problem == "no GPIO chip called or labelled 'pinctrl-rp1' under /nonexistent")
    }

    @Test func i1_aFailingLibgpiodCallIsNamedWithItsErrno() throws {
        // A regular file is no GPIO chip: libgpiod refuses it, and the message says which call.
        let file = NSTemporaryDirectory() + "nook-not-a-chip-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: file, contents: Data())
        defer { try? FileManager.default.removeItem(atPath: file) }
        let found = try problems(for: [GPIOLineSettings(name: "hover", role: .hover, chip: file, offset: 0)], devices: "/dev")
        let problem = try #require(found.states[0].problem)
        #expect(problem.hasPrefix("'gpiod_chip_open' failed for \(file): ("), "\(problem)")
    }

    @Test func i1_theLibraryVersionIsKnown() {
        let library = GPIOInputs.library
        #expect([1, 2].contains(library.api))
        #expect(library.version.hasPrefix(library.api == 1 ? "1." : "2."))
    }
}
