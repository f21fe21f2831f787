#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookDisplay
import NookRender
import NookTestSupport
import NookTestTraits
import Testing

@Suite("U1 U2 the card on the glass redrawn in place", .cpuBound)
struct ScreenUpdateTests {
    init() { pinFonts() }

    let noon = LocalTime(hour: 12, minute: 0, weekday: 0, day: 22, month: 11)

    /// A screen on a manual clock fed from a stream the test writes: each present waits for
    /// the mock's next vblank, which comes only when the test moves the clock.
    struct Rig {
        let clock = ManualClock()
        let display: MockDisplay
        let screen: NookScreen
        let events: AsyncStream<NookActivityEvent>.Continuation
        let feeder: Task<Void, Never>
        let period = Duration.nookSeconds(1.0 / 60)!

        init(size: PixelSize, localTime: LocalTime) async {
            display = MockDisplay(size: size, refreshHz: 60, clock: clock)
            screen = NookScreen(display: display, clock: clock, localTime: { localTime })
            let (stream, continuation) = AsyncStream<NookActivityEvent>.makeStream()
            events = continuation
            await screen.showHome()
            feeder = Task { [screen] in await screen.run(stream) }
        }

        func send(_ activity: NookActivity, _ kind: NookActivityEvent.Kind) {
            events.yield(NookActivityEvent(activity: activity, kind: kind, at: clock.now, module: "main"))
        }

        /// Moves the clock a frame at a time, whenever the screen waits for a vblank, until
        /// `count` frames have been presented.
        func runUntil(frames count: Int) async {
            while display.frameCount < count {
                if clock.sleeperCount > 0 { clock.advance(by: period) }
                await Task.yield()
            }
        }

        /// Returns once the screen waits for a vblank (a present on its way).
        func waitForPresent() async {
            while clock.sleeperCount == 0 { await Task.yield() }
        }

        /// Waits until the screen has taken every sent event into its backlog or drawn it.
        func waitUntilReceived(_ count: Int) async {
            while await screen.undrawnEvents < count { await Task.yield() }
        }
    }

    func card(_ title: String, progress: Double?, blocker: Bool = true) -> NookActivity {
        var activity = NookActivity(title: title, subtitle: "nook-1.2.tar.gz", systemImage: "arrow.down.circle", tint: .named(.blue),
                                    presentation: blocker ? .blocker(timeout: nil) : .timed, progress: progress)
        activity.transition = .zero
        return activity
    }

    @Test func u2_aThousandUpdatesBetweenTwoFramesCostOneRedraw() async throws {
        let rig = await Rig(size: PixelSize(width: 320, height: 170), localTime: noon)
        defer { rig.feeder.cancel() }
        var download = card("Downloading", progress: 0.1)
        rig.send(download, .animateIn)
        rig.send(download, .presented)
        await rig.runUntil(frames: 3)  // home, the card in, the card presented
        #expect(await rig.screen.cardsRendered == 1)

        var previous = download
        download.progress = 0.2
        rig.send(download, .updated(previous: previous))
        await rig.waitForPresent()  // that redraw waits for its vblank
        #expect(await rig.screen.cardsRendered == 2)
        for step in 1...1000 {
            previous = download
            download.progress = 0.2 + 0.8 * Double(step) / 1000
            rig.send(download, .updated(previous: previous))
        }
        await rig.waitUntilReceived(1000)
        await rig.runUntil(frames: 5)
        #expect(await rig.screen.cardsRendered == 3, "the 1,000 updates that came while a frame was on its way were drawn once")
        #expect(await rig.screen.undrawnEvents == 0)
        let fresh = CardRenderer(theme: .dark).render(download, size: rig.display.mode.size).frame
        #expect(rig.display.lastFrame?.frame == fresh, "the last update is what the glass shows")
        rig.clock.advance(by: .seconds(1))
        for _ in 0..<100 { await Task.yield() }
        #expect(rig.display.frameCount == 5, "no redraw without an update")
    }

    @Test func u2_updatesDrawnAsOneShowTheIconAnEarlierOfThemChanged() async throws {
        let (red, blue) = ("/tmp/nook-test-u2-red-\(getpid()).png", "/tmp/nook-test-u2-blue-\(getpid()).png")
        try PNG.write(Frame(width: 64, height: 64, fill: RGB(hex: 0xFF0000).pixel), to: red)
        try PNG.write(Frame(width: 64, height: 64, fill: RGB(hex: 0x0000FF).pixel), to: blue)
        defer {
            unlink(red)
            unlink(blue)
        }
        let rig = await Rig(size: PixelSize(width: 1280, height: 400), localTime: noon)
        defer { rig.feeder.cancel() }
        var build = card("Building", progress: 0.1)
        build.systemImage = red
        rig.send(build, .animateIn)
        rig.send(build, .presented)
        await rig.runUntil(frames: 3)

        var previous = build
        build.progress = 0.2
        rig.send(build, .updated(previous: previous))
        await rig.waitForPresent()  // the next two pile up behind this frame
        previous = build
        build.systemImage = blue
        rig.send(build, .updated(previous: previous))
        previous = build
        build.title = "Building nook"
        rig.send(build, .updated(previous: previous))
        await rig.waitUntilReceived(2)
        await rig.runUntil(frames: 5)
        #expect(await rig.screen.cardsRendered == 3, "the two updates were drawn as one")
        let glass = try #require(rig.display.lastFrame).frame
        let rendered = CardRenderer(theme: .dark).render(build, size: glass.size)
        let icon = rendered.layout.icon
        #expect(glass[icon.x + icon.width / 2, icon.y + icon.height / 2] == RGB(hex: 0x0000FF).pixel, "the icon the first of them set")
        #expect(PartialRedrawTests.difference(glass, rendered.frame) == nil, "the glass as the last update drawn whole")
    }

    @Test func u1_goldenFramesOfAProgressCardAt40And70PercentThenTurnedIntoAResult() async throws {
        let recording = getenv("NOOK_RECORD_GOLDEN") != nil
        let rig = await Rig(size: PixelSize(width: 1280, height: 400), localTime: noon)
        defer { rig.feeder.cancel() }
        let at40 = card("Downloading", progress: 0.4)
        var at70 = at40
        at70.progress = 0.7
        var done = at70
        done.title = "Download complete"
        done.systemImage = "checkmark.circle"
        done.tint = .named(.green)
        done.progress = nil
        done.presentation = .timed
        rig.send(at40, .animateIn)
        rig.send(at40, .presented)
        var frames = 3
        await rig.runUntil(frames: frames)
        for (name, activity, previous) in [("40", at40, at40), ("70", at70, at40), ("done", done, at70)] {
            if name != "40" {
                let before = rig.display.frameCount
                rig.send(activity, .updated(previous: previous))
                frames += 1
                await rig.runUntil(frames: frames)
                #expect(rig.display.frameCount == before + 1, "one frame: redrawn in place, no slide")
            }
            let frame = try #require(rig.display.lastFrame).frame
            #expect(frame == CardRenderer(theme: .dark).render(activity, size: frame.size).frame, "\(name): as drawn fresh")
            let path = "\(testDirectory)/Golden/update-1280x400-\(name).png"
            if recording { try PNG.write(frame, to: path) }
            let match = GoldenComparison(frame, try PNG.read(from: path))
            #expect(match.passes, "\(path): \(match) (record anew with NOOK_RECORD_GOLDEN=1 if intended)")
        }
    }

    @Test func u1_anUpdateOfACardNotOnTheGlassDrawsNothing() async throws {
        let rig = await Rig(size: PixelSize(width: 320, height: 170), localTime: noon)
        defer { rig.feeder.cancel() }
        let pending = card("pending", progress: 0.1)
        var changed = pending
        changed.progress = 0.5
        rig.send(changed, .updated(previous: pending))
        await rig.waitUntilReceived(0)
        while await rig.screen.undrawnEvents > 0 { await Task.yield() }
        #expect(await rig.screen.cardsRendered == 0)
        #expect(rig.display.frameCount == 1)
    }
}
