import NookLogging
import NookActivities
import NookDisplay
import NookRender
import NookTestSupport
import NookTestTraits
import Testing
@testable import NookDaemon

@Suite("Q15 the display going away, through the daemon's relay", .ownThreads)
struct DisplayAvailabilityTests {
    @Test func q15_anUnpluggedPanelHoldsEveryActivityAndPluggingItBackShowsThemAgain() async throws {
        // Blank home content draws no text; the pin is for any text drawn all the same.
        TestFonts.pin()
        let clock = NookSystemClock()
        let display = MockDisplay(size: PixelSize(width: 320, height: 170), clock: clock)
        let screen = NookScreen(display: display, clock: clock, settings: .init(home: .blank))
        let arbiter = NookSurfaceArbiter(foreground: "main", clock: clock)
        let queue = NookActivityQueue(clock: clock)
        let recorder = EventRecorder(queue.events())
        await queue.bind(to: arbiter)
        let relay = Task { await DisplayAvailability.relay(from: display, to: [queue], screen: DaemonScreen(cards: screen, settings: .init(home: .blank)), logger: Logger(label: "test")) }
        defer { relay.cancel() }
        // The relay listens from a task of its own: under ThreadSanitizer it started later than a
        // 50 ms sleep and the unplug went unheard (the CI rehearsal's one failure).
        while display.connectionListeners == 0 { try await Task.sleep(for: .milliseconds(5)) }

        let card = NookActivity(title: "Leak in the basement", presentation: .blocker(timeout: nil), transition: .milliseconds(20))
        await queue.enqueue(card)
        try await recorder.waitFor("presented") { $0.id == card.id && $0.kind == .presented }

        display.simulateConnection(false)
        try await recorder.waitFor("requeued") { $0.id == card.id && $0.kind == .requeued }
        #expect(await !queue.isDisplayAvailable)
        let current = await queue.current
        let pending = await queue.pending
        #expect(current == nil && pending.map(\.id) == [card.id], "held, not lost")

        display.simulateConnection(true)
        try await recorder.waitUntil("shown again") { events, _ in
            events.filter { $0.id == card.id && $0.kind == .presented }.count == 2
        }
        #expect(await queue.isDisplayAvailable)
    }

    @Test func q15_theDisplayGoneAndBackDuringASlideLeavesNoEndedCardOnTheGlass() async throws {
        // The relay once showed home while the slide was suspended in a present; the slide then
        // finished drawing the card, and its `requeued` no longer drew home: the card that had
        // been taken off stayed on the glass.
        TestFonts.pin()
        let clock = NookSystemClock()
        let display = MockDisplay(size: PixelSize(width: 320, height: 170), clock: clock, keepFrames: 4)
        let screen = NookScreen(display: display, clock: clock, settings: .init(home: .blank))
        let arbiter = NookSurfaceArbiter(foreground: "main", clock: clock)
        let queue = NookActivityQueue(clock: clock)
        let recorder = EventRecorder(queue.events())
        await queue.bind(to: arbiter)
        await screen.showHome()
        let events = queue.events(where: NookScreen.draws)  // subscribed before any card comes
        let feeder = Task { await screen.run(events) }
        let relay = Task { await DisplayAvailability.relay(from: display, to: [queue], screen: DaemonScreen(cards: screen, settings: .init(home: .blank)), logger: Logger(label: "test")) }
        defer { relay.cancel(); feeder.cancel() }
        while display.connectionListeners == 0 { try await Task.sleep(for: .milliseconds(5)) }

        let card = NookActivity(title: "Sliding", presentation: .blocker(timeout: nil), transition: .milliseconds(1500))
        await queue.enqueue(card)
        try await recorder.waitFor("animateIn") { $0.id == card.id && $0.kind == .animateIn }
        await queue.suspend()  // the user's: nothing comes back on its own once the panel returns
        display.simulateConnection(false)
        try await recorder.waitFor("requeued") { $0.id == card.id && $0.kind == .requeued }
        display.simulateConnection(true)
        while await !queue.isDisplayAvailable { try await Task.sleep(for: .milliseconds(5)) }

        let home = Theme.dark.background.pixel
        // The slide finishes first (its 1.5 s, and a starved screen's frames take longer): the
        // wait ends as soon as home is on the glass, the bound is only for a card left there.
        let deadline = ContinuousClock.now + TestBounds.duration(.seconds(30))
        while ContinuousClock.now < deadline, display.lastFrame?.frame.pixels.allSatisfy({ $0 == home }) != true {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(display.lastFrame?.frame.pixels.allSatisfy { $0 == home } == true, "home, not the card taken off, is on the glass")
    }

    /// A panel plugged back in comes on lit (DRM sets its mode again, which powers it; a new
    /// device starts powered): the screen held dark for nobody in the room (Z3) once presented
    /// to that lit panel and left it on, in an empty room, until someone came back.
    @Test func z3_q15_aPanelPluggedBackWhileNobodyIsThereStaysDark() async throws {
        TestFonts.pin()
        let clock = NookSystemClock()
        let mock = MockDisplay(size: PixelSize(width: 64, height: 32), clock: clock)
        let display = LitWhenPluggedBack(mock)
        let screen = NookScreen(display: display, clock: clock, settings: .init(home: .blank))
        let queue = NookActivityQueue(clock: clock)
        await screen.showHome()
        let relay = Task { await DisplayAvailability.relay(from: display, to: [queue], screen: DaemonScreen(cards: screen, settings: .init(home: .blank)), logger: Logger(label: "test")) }
        defer { relay.cancel() }
        while mock.connectionListeners == 0 { try await Task.sleep(for: .milliseconds(5)) }

        await screen.holdDark(true)
        #expect(mock.isBlanked)
        let before = mock.frameCount
        mock.simulateConnection(false)
        mock.simulateConnection(true)
        // The relay presents home again once the panel is back; the bound only matters if it never does.
        // (Under ASan with the machine's two cores busy the re-present took over 5 s, and beside a
        // release build, a soak and another suite over 78 s.)
        let deadline = ContinuousClock.now + TestBounds.duration(.seconds(240))
        while mock.frameCount == before, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(mock.frameCount > before, "the screen presented again")
        #expect(mock.isBlanked, "still nobody there: the panel is dark again")
        await screen.holdDark(false)
        #expect(!mock.isBlanked, "someone is back: lit")
    }
}

/// The mock, with a re-plugged panel coming back lit as a real one does.
private final class LitWhenPluggedBack: DisplayBackend {
    let mock: MockDisplay
    init(_ mock: MockDisplay) { self.mock = mock }
    var mode: DisplayMode { mock.mode }
    var panelOrientation: Rotation { mock.panelOrientation }
    var pageFlips: PageFlipCounts? { mock.pageFlips }
    func present(_ frame: Frame) async throws(DisplayError) { try await mock.present(frame) }
    func setBlanked(_ blanked: Bool) async throws(DisplayError) { try await mock.setBlanked(blanked) }
    func restore() { mock.restore() }
    func connectionChanges() -> AsyncStream<Bool> {
        let changes = mock.connectionChanges()
        return AsyncStream { continuation in
            let relay = Task { [mock] in
                for await connected in changes {
                    if connected { try? await mock.setBlanked(false) }
                    continuation.yield(connected)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in relay.cancel() }
        }
    }
}
