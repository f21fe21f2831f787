import NookActivities
import NookDisplay
import NookRender
import NookTestSupport
import NookTestTraits
import Testing

@Suite("R4 R5 R6 home content, animation, rotation on the screen", .cpuBound)
struct ScreenTests {
    init() { pinFonts() }

    let noon = LocalTime(hour: 12, minute: 0, weekday: 0, day: 22, month: 11)

    func event(_ activity: NookActivity, _ kind: NookActivityEvent.Kind) -> NookActivityEvent {
        NookActivityEvent(activity: activity, kind: kind, at: .origin, module: "main")
    }

    @Test func r4_homeContentIsAClockByDefaultOrBlankOrText() {
        let renderer = HomeRenderer(theme: .dark)
        let size = PixelSize(width: 1280, height: 400)
        let background = Theme.dark.background.pixel
        let blank = renderer.render(.blank, size: size, time: noon)
        #expect(blank.pixels.allSatisfy { $0 == background })
        let clock = renderer.render(.clock, size: size, time: noon)
        let later = renderer.render(.clock, size: size, time: LocalTime(hour: 12, minute: 1, weekday: 0, day: 22, month: 11))
        #expect(clock.pixels.filter { $0 != background }.count > 2000, "the clock has ink")
        #expect(clock != later, "the clock shows the minute")
        let status = renderer.render(.text("Backups paused"), size: size, time: noon)
        #expect(status.pixels.filter { $0 != background }.count > 500)
        #expect(NookScreen.Settings().home == .clock)
    }

    /// The clock sleeps until a millisecond into the next minute, measured to the
    /// nanosecond, so it and the quiet-hours check (which sleeps the same way) wake together.
    @Test func theClockSleepsUntilAMillisecondIntoTheNextMinute() async {
        let at = LocalTime(hour: 9, minute: 41, second: 12, weekday: 2, day: 24, month: 11, nanosecond: 300_000_000)
        #expect(at.untilNextMinute == .milliseconds(47_701))
        var late = at
        (late.second, late.nanosecond) = (59, 999_999_999)
        #expect(late.untilNextMinute == .nanoseconds(1_000_001))
        let clock = InstantClock()
        let screen = NookScreen(display: MockDisplay(size: PixelSize(width: 320, height: 170), clock: clock), clock: clock, localTime: { at })
        #expect(await screen.refreshHome() == .milliseconds(47_701))
        #expect(LocalTime.now().untilNextMinute <= .milliseconds(60_001))
    }

    @Test func r4_theCardReplacesHomeForATakeoverAndHomeReturnsAfterwards() async throws {
        let clock = InstantClock()
        let display = MockDisplay(size: PixelSize(width: 1280, height: 400), clock: clock)
        let screen = NookScreen(display: display, clock: clock, localTime: { noon })
        await screen.showHome()
        let home = try #require(display.lastFrame).frame
        let card = CardRenderer(theme: .dark).render(buildFinished, size: display.mode.size).frame

        await screen.handle(event(buildFinished, .animateIn))
        await screen.handle(event(buildFinished, .presented))
        #expect(display.lastFrame?.frame == card, "the card replaces home")
        await screen.handle(event(buildFinished, .animateOut))
        await screen.handle(event(buildFinished, .hidden(.completed)))
        #expect(display.lastFrame?.frame == home, "home returns")

        await screen.setHome(.text("Quiet hours"))
        #expect(display.lastFrame?.frame != home)
    }

    @Test func r1_aCardDrawnIntoThePreviousCardsFrameEqualsOneDrawnFresh() async throws {
        // The screen draws each card into the frame of the card before (no 2 MiB allocation per
        // card): nothing of the old card may show through the new one.
        let clock = InstantClock()
        let display = MockDisplay(size: PixelSize(width: 1280, height: 400), clock: clock)
        let screen = NookScreen(display: display, clock: clock, localTime: { noon })
        await screen.showHome()
        let doorbell = NookActivity(title: "Doorbell", subtitle: nil, systemImage: "bell", tint: .named(.orange))
        for activity in [buildFinished, doorbell] {
            await screen.handle(event(activity, .animateIn))
            await screen.handle(event(activity, .presented))
            let fresh = CardRenderer(theme: .dark).render(activity, size: display.mode.size).frame
            #expect(display.lastFrame?.frame == fresh, "\(activity.title) as drawn fresh")
            await screen.handle(event(activity, .animateOut))
            await screen.handle(event(activity, .hidden(.completed)))
        }
    }

    @Test func r5_slideFramesArePacedByTheDisplayAndMoveSteadily() async throws {
        let clock = InstantClock()
        let display = MockDisplay(size: PixelSize(width: 1280, height: 400), refreshHz: 60, clock: clock)
        let screen = NookScreen(display: display, clock: clock, localTime: { noon })
        await screen.showHome()
        let start = display.frameCount
        await screen.handle(event(buildFinished, .animateIn))
        let frames = Array(display.frames.dropFirst(start))
        // 250 ms at 60 Hz: one frame per vblank, ending exactly on the card.
        #expect(frames.count >= 15 && frames.count <= 17, "\(frames.count) frames")
        let gaps = zip(frames.dropFirst(), frames).map { $0.at - $1.at }
        #expect(gaps.allSatisfy { $0 >= .milliseconds(16) && $0 <= .milliseconds(17) }, "paced by the refresh")
        let card = CardRenderer(theme: .dark).render(buildFinished, size: display.mode.size).frame
        #expect(frames.last?.frame == card)

        // The card's top edge climbs every frame: find the first row that matches the card's top row.
        let tops = frames.map { recorded -> Int in
            (0..<400).first { row in recorded.frame.pixels[row * 1280 + 640] == card.pixels[640] && recorded.frame.pixels[row * 1280 + 20] == card.pixels[20] && rowMatches(recorded.frame, row, card, 0) } ?? 400
        }
        #expect(tops == tops.sorted(by: >), "the card only moves up: \(tops)")
        #expect(tops.last == 0)

        let outStart = display.frameCount
        await screen.handle(event(buildFinished, .animateOut))
        #expect(display.frameCount - outStart >= 15, "animate-out is a transition too")
    }

    @Test func r5_slideCompositionIsTwoRowCopies() {
        let card = Frame(width: 4, height: 10, fill: 1)
        let under = Frame(width: 4, height: 10, fill: 2)
        var output = Frame(width: 4, height: 10)
        SlideTransition.compose(card: card, under: under, progress: 0, into: &output)
        #expect(output == under)
        SlideTransition.compose(card: card, under: under, progress: 1, into: &output)
        #expect(output == card)
        SlideTransition.compose(card: card, under: under, progress: 0.5, into: &output)
        let offset = SlideTransition.offset(height: 10, progress: 0.5)
        #expect(offset > 0 && offset < 5, "ease-out is past halfway at half time")
        #expect(output.pixels[..<(offset * 4)].allSatisfy { $0 == 2 } && output.pixels[(offset * 4)...].allSatisfy { $0 == 1 })
    }

    @Test func r6_aNativelyPortraitBarPanelShowsTheWideLayoutTurned() async throws {
        // The screen's clock stands still here: the frame bound alone must end the slide.
        let display = MockDisplay(size: PixelSize(width: 400, height: 1280), clock: InstantClock())
        let screen = NookScreen(display: display, clock: ManualClock(), settings: .init(rotation: .quarter), localTime: { noon })
        await screen.handle(event(buildFinished, .animateIn))
        let shown = try #require(display.lastFrame).frame
        #expect(shown.size == PixelSize(width: 400, height: 1280))
        let drawn = CardRenderer(theme: .dark).render(buildFinished, size: PixelSize(width: 1280, height: 400))
        #expect(drawn.layout.arrangement == .wide)
        #expect(shown.rotated(.threeQuarters) == drawn.frame)
        #expect(display.frameCount <= 17, "a display that takes no time still ends the slide on the frame bound")
        #expect(await screen.lastPresentedFrame == shown)
    }

    @Test func r6_turningThePanelMidSlideGoesOnAtTheNewSizeFromTheNextFrame() async throws {
        // A SIGHUP that changes the rotation while a card slides in once composed a frame from
        // a card of the old size and a home of the new one (a precondition failure: nookd died).
        let clock = ManualClock()
        let display = MockDisplay(size: PixelSize(width: 1280, height: 400), refreshHz: 60, clock: clock)
        let screen = NookScreen(display: display, clock: clock, localTime: { noon })
        await screen.showHome()
        var card = buildFinished
        card.transition = .seconds(1)
        let done = Locked(0)
        let sliding = Task { await screen.handle(event(card, .animateIn)); done.withLock { $0 += 1 } }
        await clock.waitForSleepers()
        clock.advance(by: .milliseconds(100))
        await clock.waitForSleepers()
        let reload = Task { await screen.apply(.init(rotation: .quarter)); done.withLock { $0 += 1 } }
        while await screen.currentSettings.rotation != .quarter { await Task.yield() }
        // One refresh at a time until both are done: each present waits for its vblank.
        while done.withLock({ $0 }) < 2 {
            clock.advance(by: .milliseconds(17))
            await Task.yield()
        }
        await sliding.value
        await reload.value
        #expect(await screen.lastError == nil, "every frame had the panel's size")
        let turned = CardRenderer(theme: .dark).render(card, size: PixelSize(width: 400, height: 1280)).frame
        #expect(display.lastFrame?.frame == turned.rotated(.quarter), "the card ends at the new size, turned")
    }

    @Test func r6_aSnapshotWhileATurnedFrameWaitsForItsVblankStillHasAFrame() async throws {
        let clock = ManualClock()
        let display = MockDisplay(size: PixelSize(width: 400, height: 1280), refreshHz: 60, clock: clock)
        let screen = NookScreen(display: display, clock: clock, settings: .init(rotation: .quarter), localTime: { noon })
        await screen.showHome()
        let sliding = Task { await screen.handle(event(buildFinished, .animateIn)) }
        await clock.waitForSleepers()
        #expect(await screen.lastPresentedFrame != nil, "the frame on its way to the glass")
        sliding.cancel()
        while !sliding.isCancelled { await Task.yield() }
        for _ in 0..<40 { clock.advance(by: .milliseconds(17)); await Task.yield() }
        await sliding.value
    }

    private func rowMatches(_ frame: Frame, _ row: Int, _ card: Frame, _ cardRow: Int) -> Bool {
        frame.pixels[(row * frame.width)..<((row + 1) * frame.width)] == card.pixels[(cardRow * card.width)..<((cardRow + 1) * card.width)]
    }
}

@Suite("D1 idle blanking")
struct BlankingTests {
    @Test func r4_anIdleScreenLetsGoOfItsSpareFramesAndStillDrawsEveryCardWhole() async throws {
        // After a while of home content the screen keeps home only; the next card
        // allocates its frames again and must look exactly as a card drawn fresh.
        let clock = InstantClock()
        let display = MockDisplay(size: PixelSize(width: 1280, height: 400), clock: clock)
        let screen = NookScreen(display: display, clock: clock, localTime: { LocalTime(hour: 12, minute: 0, weekday: 0, day: 22, month: 11) })
        await screen.releaseFrames(after: .seconds(10))
        await screen.showHome()
        let home = try #require(display.lastFrame).frame
        func released(_ count: Int) async -> Bool {
            for _ in 0..<2000 where await screen.frameReleases < count { try? await Task.sleep(for: .milliseconds(1)) }
            return await screen.frameReleases == count
        }
        #expect(await released(1), "home alone lets go of the composed frame")
        let doorbell = NookActivity(title: "Doorbell", subtitle: nil, systemImage: "bell", tint: .named(.orange))
        for activity in [buildFinished, doorbell] {
            await screen.handle(NookActivityEvent(activity: activity, kind: .animateIn, at: .origin, module: "main"))
            await screen.handle(NookActivityEvent(activity: activity, kind: .presented, at: .origin, module: "main"))
            #expect(display.lastFrame?.frame == CardRenderer(theme: .dark).render(activity, size: display.mode.size).frame,
                    "\(activity.title) drawn whole after the release")
            #expect(await screen.lastPresentedFrame == display.lastFrame?.frame)
            await screen.handle(NookActivityEvent(activity: activity, kind: .animateOut, at: .origin, module: "main"))
            await screen.handle(NookActivityEvent(activity: activity, kind: .hidden(.completed), at: .origin, module: "main"))
            #expect(display.lastFrame?.frame == home, "home returns")
        }
        _ = await released(2)
        let releases = await screen.frameReleases
        // Between the two cards, the first one's release may or may not have come first.
        #expect(releases == 2 || releases == 3, "let go again after the cards")
        #expect(await screen.lastPresentedFrame == home)
        await screen.releaseFrames(after: nil)
    }

    @Test func d1_theScreenBlanksWhenIdleAndTheNextCardTurnsItBackOn() async throws {
        pinFonts()
        let clock = ManualClock()
        let display = MockDisplay(size: PixelSize(width: 320, height: 170), refreshHz: 60, clock: clock)
        let screen = NookScreen(display: display, clock: clock, settings: .init(blankAfter: .seconds(30)),
                                localTime: { LocalTime(hour: 9, minute: 0, weekday: 1, day: 1, month: 1) })
        await screen.showHome()
        await clock.waitForSleepers()
        clock.advance(by: .seconds(29))
        #expect(!display.isBlanked)
        clock.advance(by: .seconds(1))
        for _ in 0..<1000 where !display.isBlanked { await Task.yield() }
        #expect(display.isBlanked, "blanked after 30 s of home content")

        // A card arrives: unblanked before its first frame (the slide needs the clock to move).
        let card = NookActivity(title: "Doorbell", transition: .zero)
        await screen.handle(NookActivityEvent(activity: card, kind: .animateIn, at: clock.now, module: "main"))
        #expect(!display.isBlanked)
        #expect(await !screen.isBlanked)
    }

    /// A 320x170 panel that blanks after 30 s of home content on `clock`, its vblanks on a clock of
    /// their own (only the blanking timer is on the manual one), at 09:00.
    func blankingPanel(_ clock: ManualClock) -> (MockDisplay, NookScreen) {
        pinFonts()
        let display = MockDisplay(size: PixelSize(width: 320, height: 170), refreshHz: 60, clock: InstantClock())
        let screen = NookScreen(display: display, clock: clock, settings: .init(blankAfter: .seconds(30)),
                                localTime: { LocalTime(hour: 9, minute: 0, weekday: 1, day: 1, month: 1) })
        return (display, screen)
    }

    /// M1: AWTRIX's mood light fills the glass with its colour, wakes an idle-blanked panel and
    /// is never blanked for idleness; a card still shows over it; off, idle blanking counts again.
    @Test func m1_aMoodLightFillsTheGlassAndIsNeverBlankedForIdleness() async throws {
        let clock = ManualClock()
        let (display, screen) = blankingPanel(clock)
        await screen.showHome()
        await clock.waitForSleepers()
        clock.advance(by: .seconds(30))
        for _ in 0..<1000 where !display.isBlanked { await Task.yield() }
        #expect(display.isBlanked)
        _ = await screen.setHome(.light(0x336699))
        for _ in 0..<1000 where display.isBlanked { await Task.yield() }
        #expect(!display.isBlanked, "the lamp wakes the panel")
        #expect(display.lastFrame?.frame == Frame(width: 320, height: 170, fill: 0xFF33_6699))
        clock.advance(by: .seconds(3600))
        for _ in 0..<100 { await Task.yield() }
        #expect(!display.isBlanked, "and keeps it lit")

        let card = NookActivity(title: "Doorbell", transition: .zero)
        await screen.handle(NookActivityEvent(activity: card, kind: .animateIn, at: clock.now, module: "main"))
        await screen.handle(NookActivityEvent(activity: card, kind: .presented, at: clock.now, module: "main"))
        #expect(display.lastFrame?.frame == CardRenderer(theme: .dark).render(card, size: display.mode.size).frame, "a card shows over it")
        await screen.handle(NookActivityEvent(activity: card, kind: .hidden(.completed), at: clock.now, module: "main"))
        #expect(display.lastFrame?.frame == Frame(width: 320, height: 170, fill: 0xFF33_6699), "and the light after it")
        clock.advance(by: .seconds(3600))
        for _ in 0..<100 { await Task.yield() }
        #expect(!display.isBlanked)

        _ = await screen.setHome(.clock)
        await clock.waitForSleepers()
        clock.advance(by: .seconds(30))
        for _ in 0..<1000 where !display.isBlanked { await Task.yield() }
        #expect(display.isBlanked, "off, idle blanking counts again")
    }

    /// Z3: with nobody in the room the panel stays dark while cards are drawn (so the glass is
    /// right when it comes back), and idle blanking does not turn it on or off meanwhile.
    @Test func z3_heldDarkTheCardsAreDrawnButThePanelStaysOffUntilSomeoneIsBack() async throws {
        let clock = ManualClock()
        let (display, screen) = blankingPanel(clock)
        await screen.showHome()
        await screen.holdDark(true)
        #expect(display.isBlanked)
        let card = NookActivity(title: "Doorbell", transition: .zero)
        let framesBefore = display.frameCount
        await screen.handle(NookActivityEvent(activity: card, kind: .animateIn, at: clock.now, module: "main"))
        await screen.handle(NookActivityEvent(activity: card, kind: .presented, at: clock.now, module: "main"))
        #expect(display.isBlanked, "a card does not light the panel for nobody")
        #expect(display.frameCount > framesBefore, "but it is drawn")
        await screen.holdDark(false)
        let screenBlanked = await screen.isBlanked
        #expect(!display.isBlanked && !screenBlanked)
        #expect(display.lastFrame?.frame == CardRenderer(theme: .dark).render(card, size: display.mode.size).frame, "back on showing the card")
        await screen.handle(NookActivityEvent(activity: card, kind: .hidden(.completed), at: clock.now, module: "main"))
        await clock.waitForSleepers()
        clock.advance(by: .seconds(30))
        for _ in 0..<1000 where !display.isBlanked { await Task.yield() }
        #expect(display.isBlanked, "idle blanking works again once someone is back")
    }
}

/// A mock whose `setBlanked(true)` waits until the test opens the gate, like a DPMS call
/// that takes a while.
final class SlowBlankingDisplay: DisplayBackend {
    let mock: MockDisplay
    private let state = Locked((blankCalls: 0, gate: nil as CheckedContinuation<Void, Never>?, open: false))
    init(_ mock: MockDisplay) { self.mock = mock }
    var mode: DisplayMode { mock.mode }
    var blankCalls: Int { state.withLock { $0.blankCalls } }
    func present(_ frame: Frame) async throws(DisplayError) { try await mock.present(frame) }
    func setBlanked(_ blanked: Bool) async throws(DisplayError) {
        if blanked {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state -> Bool in
                    state.blankCalls += 1
                    if !state.open { state.gate = continuation }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }
        try await mock.setBlanked(blanked)
    }
    func openGate() {
        let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.open = true
            defer { state.gate = nil }
            return state.gate
        }
        waiting?.resume()
    }
    func restore() { mock.restore() }
}

@Suite("D1 idle blanking races")
struct BlankingRaceTests {
    @Test func d1_aCardArrivingWhileThePanelIsBeingBlankedIsNotBlankedUnderIt() async throws {
        pinFonts()
        let clock = ManualClock()
        let display = SlowBlankingDisplay(MockDisplay(size: PixelSize(width: 320, height: 170), clock: InstantClock()))
        let screen = NookScreen(display: display, clock: clock, settings: .init(blankAfter: .seconds(30)),
                                localTime: { LocalTime(hour: 9, minute: 0, weekday: 1, day: 1, month: 1) })
        await screen.showHome()
        await clock.waitForSleepers()
        clock.advance(by: .seconds(30))
        while display.blankCalls == 0 { await Task.yield() }

        // The blank is under way (DPMS off not yet returned) when a card arrives.
        let card = NookActivity(title: "Doorbell", transition: .zero)
        let arriving = Task { await screen.handle(NookActivityEvent(activity: card, kind: .animateIn, at: clock.now, module: "main")) }
        for _ in 0..<100 { await Task.yield() }
        display.openGate()
        await arriving.value
        for _ in 0..<100 { await Task.yield() }
        #expect(!display.mock.isBlanked, "the card is on a lit panel")
        #expect(await !screen.isBlanked)
    }
}
