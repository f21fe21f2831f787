import NookActivities
import NookDisplay
@testable import NookRender
import NookTestSupport
import Testing

/// The screen behind a burst (the soak): cards that already ended are not drawn late, and
/// the events waiting for the screen do not pile up.
@Suite("R5 Q13 a screen behind the queue skips cards already gone")
struct BacklogTests {
    init() { pinFonts() }

    func lifecycle(_ activity: NookActivity) -> [NookActivityEvent] {
        [.enqueued, .animateIn, .presented, .animateOut, .hidden(.completed)].map {
            NookActivityEvent(activity: activity, kind: $0, at: .origin, module: "main")
        }
    }

    @Test func q13_theBacklogKnowsWhichCardsEndFurtherOn() {
        let first = NookActivity(title: "First"), second = NookActivity(title: "Second")
        var backlog = EventBacklog()
        for event in lifecycle(first) + lifecycle(second).prefix(3) { backlog.append(event) }
        #expect(backlog.endsLater(first.id))
        #expect(!backlog.endsLater(second.id), "the second card's end has not come yet")
        for _ in 0..<5 { _ = backlog.next() }
        #expect(!backlog.endsLater(first.id), "its end was taken")
        #expect(backlog.count == 3)
        while backlog.next() != nil {}
        #expect(backlog.count == 0)
    }

    @Test func r5_aBurstOfFinishedCardsIsSkippedAndHomeIsLeftOnTheGlass() async throws {
        let clock = InstantClock()
        let display = MockDisplay(size: PixelSize(width: 1280, height: 400), clock: clock)
        let screen = NookScreen(display: display, clock: clock, localTime: { LocalTime(hour: 12, minute: 0, weekday: 0, day: 22, month: 11) })
        await screen.showHome()
        let home = try #require(display.lastFrame).frame
        // 200 cards that have all come and gone before the screen reads its first event.
        let (events, continuation) = AsyncStream<NookActivityEvent>.makeStream()
        for index in 0..<200 {
            for event in lifecycle(NookActivity(title: "Burst \(index)", transition: .zero)) { continuation.yield(event) }
        }
        continuation.finish()
        await screen.run(events)
        #expect(await screen.skippedLateEvents > 300, "most cards were already gone when their turn came")
        #expect(display.frameCount < 200, "not every finished card was drawn")
        #expect(display.lastFrame?.frame == home, "home is on the glass at the end")
    }
}
