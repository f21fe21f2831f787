#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookDisplay
import NookRender
import NookTestSupport
import NookTestTraits
import Testing

/// T2 on the glass: the card follows a finger sideways, springs back when let go, and a swipe
/// slides it off sideways; in every rotation the card moves along the picture's width.
// Serialized: its frames are large and a debug build compares them pixel by pixel; two at once
// held both threads of a 2-core machine's pool long enough to starve other suites' tasks.
@Suite("T2 the card follows the finger sideways", .serialized, .cpuBound)
struct SwipeTests {
    init() { pinFonts() }

    let noon = LocalTime(hour: 12, minute: 0, weekday: 0, day: 22, month: 11)

    func event(_ activity: NookActivity, _ kind: NookActivityEvent.Kind) -> NookActivityEvent {
        NookActivityEvent(activity: activity, kind: kind, at: .origin, module: "main")
    }

    @Test func t2_theCardShiftedSidewaysShowsWhatIsUnderItInTheColumnsItLeaves() {
        var card = Frame(width: 8, height: 3), under = Frame(width: 8, height: 3), output = Frame(width: 8, height: 3)
        for index in card.pixels.indices { card.pixels[index] = UInt32(100 + index % 8) }
        for index in under.pixels.indices { under.pixels[index] = 7 }
        SidewaysSlide.compose(card: card, under: under, dx: 3, into: &output)
        for y in 0..<3 {
            #expect((0..<3).allSatisfy { output[$0, y] == 7 }, "bare columns on the left show home")
            #expect((3..<8).allSatisfy { output[$0, y] == UInt32(100 + $0 - 3) }, "the card's left part, moved right")
        }
        SidewaysSlide.compose(card: card, under: under, dx: -2, into: &output)
        #expect((0..<6).allSatisfy { output[$0, 1] == UInt32(100 + $0 + 2) } && output[6, 1] == 7 && output[7, 1] == 7)
        SidewaysSlide.compose(card: card, under: under, dx: 50, into: &output)
        #expect(output.pixels.allSatisfy { $0 == 7 }, "moved off the glass: only what is under it")
        SidewaysSlide.compose(card: card, under: under, dx: 0, rows: 2, into: &output)
        #expect(output[0, 0] == 7 && output[0, 1] == 7 && output[0, 2] == 100, "sliding down too: the card's top row at row 2")
    }

    /// A golden frame of a swipe half-way: on the 1280x400 bar and on the natively portrait
    /// 400x1280 panel turned to landscape, where the card must move along the glass's long side.
    @Test(arguments: [PixelSize(width: 1280, height: 400), PixelSize(width: 400, height: 1280)])
    func t2_aSwipesMidPointMatchesItsGoldenFrame(panel: PixelSize) async throws {
        let clock = InstantClock()
        let (size, rotation) = logicalSize(of: panel)
        let display = MockDisplay(size: panel, clock: clock)
        let screen = NookScreen(display: display, clock: clock, settings: .init(rotation: rotation), localTime: { noon })
        await screen.showHome()
        let home = try #require(display.lastFrame).frame
        await screen.handle(event(buildFinished, .animateIn))
        await screen.handle(event(buildFinished, .presented))
        let atRest = try #require(display.lastFrame).frame

        await screen.dragCard(by: Double(size.width) / 2)
        let frame = try #require(display.lastFrame).frame
        let path = "\(testDirectory)/Golden/swipe-mid-\(panel).png"
        if getenv("NOOK_RECORD_GOLDEN") != nil { try PNG.write(frame, to: path) }
        let match = GoldenComparison(frame, try PNG.read(from: path))
        #expect(match.passes, "\(path): \(match) (record anew with NOOK_RECORD_GOLDEN=1 if the change is intended)")
        #expect(await screen.cardShift == size.width / 2)

        // Drawn from the card and home frames as they were: the left half of the picture is
        // home, the right half the card's left half. A point of the picture is on the glass where
        // the turn puts it (90° clockwise for the portrait panel).
        func glass(_ x: Int, _ y: Int) -> (Int, Int) { rotation == .none ? (x, y) : (size.height - 1 - y, x) }
        let half = size.width / 2
        for (x, y) in [(10, 10), (half - 1, size.height / 2), (half + 20, size.height / 2), (size.width - 1, size.height - 1)] {
            let (gx, gy) = glass(x, y)
            let (ex, ey) = x < half ? glass(x, y) : glass(x - half, y)
            let expected = x < half ? home[ex, ey] : atRest[ex, ey]
            #expect(frame[gx, gy] == expected, "(\(x), \(y)) on \(panel)")
        }

        // Let go without a swipe: it springs back to exactly the card at rest.
        await screen.releaseCard()
        #expect(display.lastFrame?.frame == atRest)
        #expect(await screen.cardShift == 0)
    }

    @Test func t2_aSwipedCardSlidesOffSidewaysAndHomeIsLeft() async throws {
        let clock = InstantClock()
        let display = MockDisplay(size: PixelSize(width: 1280, height: 400), clock: clock)
        let screen = NookScreen(display: display, clock: clock, localTime: { noon })
        await screen.showHome()
        let home = try #require(display.lastFrame).frame
        await screen.handle(event(buildFinished, .animateIn))
        await screen.handle(event(buildFinished, .presented))
        await screen.dragCard(by: -200)
        let before = display.frameCount
        screen.markSwiped(buildFinished.id, dx: -300)
        await screen.handle(event(buildFinished, .animateOut))
        #expect(await screen.cardShift == -1280, "off the glass to the left")
        #expect(display.lastFrame?.frame == home, "the last frame of the slide out is home alone")
        #expect(display.frameCount - before >= 2, "slid, not cut")
        await screen.handle(event(buildFinished, .hidden(.dismissed)))
        #expect(display.lastFrame?.frame == home)
        #expect(await screen.cardShift == 0, "the next card starts in place")
    }

    @Test func t2_aDragWithNoCardOnTheGlassDrawsNothing() async throws {
        let clock = InstantClock()
        let display = MockDisplay(size: PixelSize(width: 320, height: 170), clock: clock)
        let screen = NookScreen(display: display, clock: clock, localTime: { noon })
        await screen.showHome()
        let count = display.frameCount
        await screen.dragCard(by: 100)
        await screen.releaseCard()
        #expect(display.frameCount == count)
        #expect(await screen.cardShift == 0)
    }
}
