import Logging
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
        let feeder = Task { await screen.run(queue.events(where: NookScreen.draws)) }
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
        let deadline = ContinuousClock.now + .seconds(6)
        while ContinuousClock.now < deadline, display.lastFrame?.frame.pixels.allSatisfy({ $0 == home }) != true {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(display.lastFrame?.frame.pixels.allSatisfy { $0 == home } == true, "home, not the card taken off, is on the glass")
    }
}
