import NookActivities
import NookDisplay
import NookRender
import NookTestSupport
import Testing

@Suite("Q13 R5 the screen reports each finished slide-in to its queue")
struct ScreenPresenterReportTests {
    init() { pinFonts() }

    @Test func q13_theScreenReportsTheSlideInSoTheQueuePresents() async throws {
        // The queue's clock never reaches its hour-long timeout: only the screen's report can
        // let the card be presented.
        let clock = ManualClock()
        let arbiter = NookSurfaceArbiter(foreground: "main", clock: clock)
        let queue = NookActivityQueue(clock: clock, configuration: .init(presenterTimeout: .seconds(3600)))
        let recorder = EventRecorder(queue.events())
        let screenClock = InstantClock()
        let display = MockDisplay(size: PixelSize(width: 320, height: 170), clock: screenClock)
        let screen = NookScreen(display: display, clock: screenClock)
        let events = queue.events(where: NookScreen.draws)
        let feeder = Task { await screen.run(events, reportingTo: queue) }
        defer { feeder.cancel() }
        await queue.bind(to: arbiter, moduleID: "main")
        let card = NookActivity(title: "reported")
        await queue.enqueue(card)
        let shown = try await recorder.next(.animateIn, of: card.id)
        clock.advance(by: card.transition)
        let presented = try await recorder.next(.presented, of: card.id)
        #expect(presented.at == shown.at + card.transition)
    }
}
