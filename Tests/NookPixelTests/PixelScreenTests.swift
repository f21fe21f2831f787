import NookActivities
import NookDisplay
import NookPixel
import NookTestSupport
import Testing

/// Records frames without pacing, so a test steps only the screen's own animation clock.
final class RecordingDisplay: DisplayBackend {
    let mode: DisplayMode
    let frames = Locked<[Frame]>([])
    init(_ width: Int, _ height: Int) { mode = DisplayMode(size: PixelSize(width: width, height: height), refreshHz: 60, name: "recording") }
    func present(_ frame: Frame) async throws(DisplayError) { frames.withLock { $0.append(frame) } }
    let blanks = Locked<[Bool]>([])
    func setBlanked(_ blanked: Bool) async throws(DisplayError) { blanks.withLock { $0.append(blanked) } }
    func restore() {}
    var frameCount: Int { frames.withLock { $0.count } }
}

@Suite("L3 pixel screen on the injected clock")
struct PixelScreenTests {
    /// The LED clock sleeps until a millisecond into the next minute, as nookd's
    /// other once-a-minute timers do, so they wake together.
    @Test func theLEDClockSleepsUntilAMillisecondIntoTheNextMinute() async {
        let screen = PixelScreen(display: RecordingDisplay(32, 8), clock: InstantClock(),
                                 renderer: PixelRenderer(size: PixelSize(width: 32, height: 8)), localTime: { (9, 41, 12.3) })
        let wait = await screen.refreshHome()
        #expect(abs((wait - .milliseconds(47_701)) / .microseconds(1)) < 1, "\(wait)")
    }

    /// The queue waits for its presenter before it counts a card's dwell: the LED screen must
    /// report each card it drew, or every card would wait for the queue's presenter timeout.
    @Test func q13_theLEDScreenReportsEachCardItDrewSoTheQueuePresents() async throws {
        let clock = ManualClock()
        let arbiter = NookSurfaceArbiter(foreground: "main", clock: clock)
        let queue = NookActivityQueue(clock: clock, configuration: .init(presenterTimeout: .seconds(3600)))
        let recorder = EventRecorder(queue.events())
        let screen = PixelScreen(display: RecordingDisplay(32, 8), clock: InstantClock(),
                                 renderer: PixelRenderer(size: PixelSize(width: 32, height: 8)), localTime: { (9, 41, 0) })
        // Subscribed here, not inside the task: a task that ran late subscribed after the card's
        // animateIn, so the screen never drew it, never reported it, and the queue waited for
        // its presenter (a full suite's run once timed out so).
        let events = queue.events()
        let feeder = Task { await screen.run(events, reportingTo: queue) }
        defer { feeder.cancel() }
        await queue.bind(to: arbiter, moduleID: "main")
        let card = NookActivity(title: "LED")
        await queue.enqueue(card)
        let shown = try await recorder.next(.animateIn, of: card.id)
        clock.advance(by: card.transition)
        let presented = try await recorder.next(.presented, of: card.id)
        #expect(presented.at == shown.at + card.transition)
    }

    func event(_ activity: NookActivity, _ kind: NookActivityEvent.Kind, _ clock: ManualClock) -> NookActivityEvent {
        NookActivityEvent(activity: activity, kind: kind, at: clock.now, module: nil)
    }

    @Test func l3_aScrollingTitleMovesOnTheClockAndMakesOneFullPassDuringItsDwell() async throws {
        let clock = ManualClock()
        let display = RecordingDisplay(32, 8)
        let renderer = PixelRenderer(size: PixelSize(width: 32, height: 8), scrollSpeed: 16)
        let screen = PixelScreen(display: display, clock: clock, renderer: renderer, localTime: { (9, 41, 0) })
        await screen.showHome()
        let long = NookActivity(title: "Backup of /home finished", systemImage: "arrow.down.circle", tint: .named(.teal))
        let pass = try #require(renderer.marqueePass(for: long))
        await screen.handle(event(long, .animateIn, clock))
        await screen.handle(event(long, .presented, clock))
        let first = try #require(await screen.lastPresentedFrame)
        var expected = Frame(width: 32, height: 8)
        renderer.render(long, elapsed: .zero, into: &expected)
        #expect(first == expected)
        // Step the clock frame by frame through one pass: the LEDs follow the renderer.
        var seen = Set<[UInt32]>()
        let step = Duration.milliseconds(50)
        var elapsed = Duration.zero
        while elapsed < pass {
            await clock.waitForSleepers()
            clock.advance(by: step)
            elapsed += step
            for _ in 0..<50 { await Task.yield() }
            if let frame = await screen.lastPresentedFrame { seen.insert(frame.pixels) }
        }
        #expect(seen.count > 20, "the marquee moved through \(seen.count) distinct frames")
        await screen.handle(event(long, .hidden(.completed), clock))
        #expect(await screen.showing == nil)
        let presentedAtHidden = display.frameCount
        clock.advance(by: .seconds(1))
        for _ in 0..<50 { await Task.yield() }
        #expect(display.frameCount == presentedAtHidden, "no animation frames after the card ended")
    }

    /// An app's value changing while its text scrolls: the text goes on from where it was, with
    /// no jump, though its pass is now longer; a text that starts to scroll starts at rest.
    @Test func u1_a5_anAppUpdatedMidScrollKeepsItsTextWhereItWas() async throws {
        let clock = ManualClock()
        let renderer = PixelRenderer(size: PixelSize(width: 32, height: 8), scrollSpeed: 16)
        let screen = PixelScreen(display: RecordingDisplay(32, 8), clock: clock, renderer: renderer, localTime: { (9, 41, 0) })
        await screen.showHome()
        func app(_ value: String) -> NookActivity {
            var card = NookActivity(title: "House uses \(value) kW now", systemImage: "bolt", tint: .named(.yellow), presentation: .blocker(timeout: nil))
            card.app = NookAppFace(fragments: [NookApp.Fragment("House uses "), NookApp.Fragment(value, tint: .named(.orange)),
                                               NookApp.Fragment(" kW now")])
            return card
        }
        func drawn(_ activity: NookActivity, at elapsed: Duration) -> Frame {
            var frame = Frame(width: 32, height: 8)
            renderer.render(activity, elapsed: elapsed, into: &frame)
            return frame
        }
        let before = app("1.2")
        var after = app("12.75")
        after.id = before.id
        let (oldPass, newPass) = (try #require(renderer.marqueePass(for: before)), try #require(renderer.marqueePass(for: after)))
        #expect(newPass > oldPass)
        await screen.handle(event(before, .animateIn, clock))
        await screen.handle(event(before, .presented, clock))
        // Two passes and 2.5 s into the third: the text is moving.
        let elapsed = oldPass * 2 + .milliseconds(2500)
        clock.advance(by: elapsed)
        await screen.handle(event(after, .updated(previous: before), clock))
        let frame = try #require(await screen.lastPresentedFrame)
        #expect(frame == drawn(after, at: .milliseconds(2500)), "the new text where the old was")
        #expect(frame != drawn(after, at: elapsed), "(the elapsed time carried over whole lands elsewhere)")

        var short = app("1")
        short.title = "1 kW"
        short.app = NookAppFace(fragments: [NookApp.Fragment("1 kW")])
        short.id = before.id
        #expect(renderer.marqueePass(for: short) == nil)
        await screen.handle(event(short, .updated(previous: after), clock))
        clock.advance(by: .milliseconds(700))
        await screen.handle(event(after, .updated(previous: short), clock))
        #expect(try #require(await screen.lastPresentedFrame) == drawn(after, at: .milliseconds(2500)),
                "a text that scrolls again goes on from where it was when it came to fit")
    }

    /// An app whose value flaps between a text that fits and one that scrolls (`99 W`, `100 W`
    /// every 0.8 s) goes on scrolling from where it was at each scrolling spell, so its whole
    /// pass is seen; starting each spell at rest, it never left the rest at the start.
    @Test func u1_a5_l3_anAppFlappingBetweenAFittingAndAScrollingTextIsSeenToTheEndOfItsPass() async throws {
        let clock = ManualClock()
        let renderer = PixelRenderer(size: PixelSize(width: 32, height: 8), scrollSpeed: 16)
        let screen = PixelScreen(display: RecordingDisplay(32, 8), clock: clock, renderer: renderer, localTime: { (9, 41, 0) })
        await screen.showHome()
        let fits = Self.powerApp("99 W")
        var scrolls = Self.powerApp("100 W")
        scrolls.id = fits.id
        #expect(renderer.marqueePass(for: fits) == nil)
        let pass = try #require(renderer.marqueePass(for: scrolls))
        func drawn(_ activity: NookActivity, at scrolled: Duration) -> Frame {
            var frame = Frame(width: 32, height: 8)
            renderer.render(activity, elapsed: .zero, scrolled: scrolled, into: &frame)
            return frame
        }
        await screen.handle(event(fits, .animateIn, clock))
        await screen.handle(event(fits, .presented, clock))
        let spell = Duration.milliseconds(800)
        var scrolled = Duration.zero
        var reachedTheEnd = false
        var movedOn = 0
        for round in 0..<12 {
            clock.advance(by: spell)
            await screen.handle(event(scrolls, .updated(previous: fits), clock))
            let frame = try #require(await screen.lastPresentedFrame)
            #expect(Bool(frame == drawn(scrolls, at: scrolled)), "round \(round): the scroll goes on from \(scrolled)")
            if frame != drawn(scrolls, at: .zero) { movedOn += 1 }
            // Its scrolling spell: the text moves on, then the value fits again.
            clock.advance(by: spell)
            await screen.handle(event(fits, .updated(previous: scrolls), clock))
            #expect(Bool(try #require(await screen.lastPresentedFrame) == drawn(fits, at: .zero)), "round \(round): the fitting text, centred")
            let end = scrolled + spell
            reachedTheEnd = reachedTheEnd || end >= pass
            scrolled = end >= pass ? end - pass : end
        }
        #expect(reachedTheEnd, "twelve scrolling spells of 0.8 s cover a pass of \(pass)")
        #expect(movedOn * 2 > 12, "most spells begin where the text had moved to, not at rest: \(movedOn) of 12")
    }

    static func powerApp(_ value: String) -> NookActivity {
        var card = NookActivity(title: value, systemImage: "bolt", tint: .named(.yellow), presentation: .blocker(timeout: nil))
        card.app = NookAppFace(fragments: [NookApp.Fragment(value)])
        return card
    }

    /// The brightest channel of the icon (columns 0..<8): the pulse's level times the tint.
    static func iconBrightness(_ frame: Frame) -> Int {
        var brightest = 0
        for y in 0..<frame.height {
            for x in 0..<8 {
                let pixel = frame[x, y]
                brightest = max(brightest, Int(pixel & 0xFF), Int((pixel >> 8) & 0xFF), Int((pixel >> 16) & 0xFF))
            }
        }
        return brightest
    }

    /// A blocker pulses from when it was presented; an update in place moves its marquee's pass
    /// (so the text stays), never its pulse: the brightness would jump at every update.
    @Test func l3_u1_aBlockerUpdatedInPlaceKeepsItsPulse() async throws {
        let clock = ManualClock()
        let renderer = PixelRenderer(size: PixelSize(width: 32, height: 8), scrollSpeed: 16)
        let screen = PixelScreen(display: RecordingDisplay(32, 8), clock: clock, renderer: renderer, localTime: { (9, 41, 0) })
        await screen.showHome()
        // Scrolling, a progress update a little over one pass in: the same frame as without it.
        var scrolling = NookActivity(title: "Tea is ready, take it out", systemImage: "bolt", tint: .named(.yellow),
                                     presentation: .blocker(timeout: nil), progress: 0.5)
        let pass = try #require(renderer.marqueePass(for: scrolling))
        await screen.handle(event(scrolling, .animateIn, clock))
        await screen.handle(event(scrolling, .presented, clock))
        let elapsed = pass + .milliseconds(400)
        clock.advance(by: elapsed)
        let previous = scrolling
        scrolling.progress = 0.6
        await screen.handle(event(scrolling, .updated(previous: previous), clock))
        var expected = Frame(width: 32, height: 8)
        renderer.render(scrolling, elapsed: elapsed, into: &expected)
        #expect(try #require(await screen.lastPresentedFrame) == expected, "the pulse and the text as without the update")

        // A countdown whose title starts to scroll at its dimmest, then a new time each second.
        var tea = NookActivity(title: "Tea", systemImage: "bolt", tint: .named(.yellow), presentation: .blocker(timeout: nil))
        await screen.handle(event(tea, .animateIn, clock))
        await screen.handle(event(tea, .presented, clock))
        clock.advance(by: PixelRenderer.pulsePeriod / 2)
        var jumps: [String] = []
        for left in stride(from: 59, through: 30, by: -1) {
            await screen.redisplay()
            let before = Self.iconBrightness(try #require(await screen.lastPresentedFrame))
            let shown = tea
            tea.title = "Tea ready in 0:\(left)"
            await screen.handle(event(tea, .updated(previous: shown), clock))
            let after = Self.iconBrightness(try #require(await screen.lastPresentedFrame))
            if abs(after - before) > 8 { jumps.append("0:\(left): \(before) to \(after)") }
            clock.advance(by: .seconds(1))
        }
        #expect(jumps.isEmpty, "the pulse jumped at an update: \(jumps)")
    }

    @Test func l3_aStillCardIsSentOnceAndHomeComesBack() async throws {
        let clock = ManualClock()
        let display = RecordingDisplay(17, 7)
        let screen = PixelScreen(display: display, clock: clock, renderer: PixelRenderer(size: PixelSize(width: 17, height: 7)), localTime: { (12, 0, 0) })
        await screen.showHome()
        let home = try #require(await screen.lastPresentedFrame)
        let short = NookActivity(title: "OK", tint: .named(.green))
        await screen.handle(event(short, .animateIn, clock))
        await screen.handle(event(short, .presented, clock))
        #expect(display.frameCount == 2, "home, then the card once: an unchanged frame is not sent again")
        await screen.handle(event(short, .hidden(.completed), clock))
        #expect(await screen.lastPresentedFrame == home)
    }

    /// M1: AWTRIX's mood light lights every LED, a strip's too, wakes idle-blanked LEDs and keeps
    /// them lit; off, idle blanking counts again.
    @Test(arguments: [(32, 8), (60, 1)])
    func m1_aMoodLightLightsEveryLEDAndIsNeverBlankedForIdleness(width: Int, height: Int) async throws {
        let clock = ManualClock()
        let display = RecordingDisplay(width, height)
        let screen = PixelScreen(display: display, clock: clock, renderer: PixelRenderer(size: PixelSize(width: width, height: height)),
                                 blankAfter: .seconds(30), localTime: { (7, 30, 0) })
        await screen.showHome()
        await clock.waitForSleepers()
        clock.advance(by: .seconds(31))
        for _ in 0..<50 { await Task.yield() }
        #expect(await screen.isBlanked)
        await screen.setHome(.light(0x336699))
        #expect(await !screen.isBlanked && display.blanks.withLock { $0 } == [true, false])
        #expect(display.frames.withLock { $0.last?.pixels.allSatisfy { $0 == 0xFF33_6699 } } == true)
        clock.advance(by: .seconds(3600))
        for _ in 0..<50 { await Task.yield() }
        #expect(await !screen.isBlanked, "a lamp stays lit")
        await screen.setHome(.clock)
        await clock.waitForSleepers()
        clock.advance(by: .seconds(31))
        for _ in 0..<50 { await Task.yield() }
        #expect(await screen.isBlanked, "off, idle blanking counts again")
    }

    @Test func l5_idleLEDsGoDarkAfterBlankAfterAndTheNextCardLightsThem() async throws {
        let clock = ManualClock()
        let display = RecordingDisplay(8, 8)
        let screen = PixelScreen(display: display, clock: clock, renderer: PixelRenderer(size: PixelSize(width: 8, height: 8)),
                                 blankAfter: .seconds(30), localTime: { (7, 30, 0) })
        await screen.showHome()
        await clock.waitForSleepers()
        clock.advance(by: .seconds(31))
        for _ in 0..<50 { await Task.yield() }
        #expect(await screen.isBlanked && display.blanks.withLock { $0 } == [true])
        let card = NookActivity(title: "!", tint: .named(.red))
        await screen.handle(event(card, .animateIn, clock))
        #expect(await !screen.isBlanked && display.blanks.withLock { $0 } == [true, false])
    }
}
