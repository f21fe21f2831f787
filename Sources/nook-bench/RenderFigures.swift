#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookDisplay
import NookRender
import NookTestSupport

/// Renderer costs against the plainest operation on the same frame, measured side by side in
/// interleaved rounds (see Rounds.swift), and the page faults they take (a count load does not
/// change: a fresh 2–4 MiB buffer per call shows here on any machine).
struct RenderFigures {
    let size: PixelSize
    var roundCount = 7
    var repetitions = 40

    private let activity = NookActivity(title: "Build finished", subtitle: "Debug · 12.4s", systemImage: "hammer",
                                        tint: .named(.green), progress: 0.6)

    func run() async {
        let renderer = CardRenderer(theme: .dark)
        let card = renderer.render(activity, size: size).frame
        let home = HomeRenderer(theme: .dark).render(.clock, size: size, time: LocalTime.now())
        var output = Frame(width: size.width, height: size.height)
        var rotated = Frame(width: size.height, height: size.width)
        // The screen draws each card into the frame of the card before (NookScreen.cardFrame).
        var reused = Frame(width: size.width, height: size.height)
        let byteCount = size.width * size.height * 4
        let copy = {
            output.pixels.withUnsafeMutableBytes { target in
                card.pixels.withUnsafeBytes { source in target.baseAddress!.copyMemory(from: source.baseAddress!, byteCount: byteCount) }
            }
        }
        let set = {
            output.pixels.withUnsafeMutableBytes { target in _ = memset(target.baseAddress!, 0x20, byteCount) }
        }
        let render = {
            var taken = Frame(width: 1, height: 1)
            swap(&taken, &reused)
            reused = renderer.render(activity, into: consume taken).frame
        }
        var progress = 0.0
        let anim = await nook_bench.rounds(roundCount) {
            interleavedRatio(repetitions: repetitions, measured: {
                progress = progress >= 1 ? 0.05 : progress + 0.07
                SlideTransition.compose(card: card, under: home, progress: progress, into: &output)
            }, baseline: copy)
        }
        let draw = await nook_bench.rounds(roundCount) { interleavedRatio(repetitions: repetitions, measured: render, baseline: set) }
        let turn = await nook_bench.rounds(roundCount) { interleavedRatio(repetitions: repetitions, measured: { card.rotate(.quarter, into: &rotated) }, baseline: copy) }
        report("anim_frame_vs_memcpy_\(size)", anim)
        report("card_render_vs_memset_\(size)", draw)
        report("rotate90_vs_memcpy_\(size)", turn)
        report("card_render_minflt_\(size)", Double(pageFaults { for _ in 0..<20 { render() } }) / 20)
        // The same card into a fresh frame each time, as the screen once drew.
        report("card_render_fresh_frame_minflt_\(size)", Double(pageFaults { for _ in 0..<20 { _ = renderer.render(activity, size: size) } }) / 20)
        report("rotate90_minflt_\(size)", Double(pageFaults { for _ in 0..<20 { card.rotate(.quarter, into: &rotated) } }) / 20)
        report("screen_card_minflt_\(size)_rotated", await screenFaultsPerCard())
    }

    /// Page faults per card through the whole frame loop of `NookScreen` on a quarter-turned
    /// panel (draw, slide in, present, slide out, home), after a few cards to warm it up: a
    /// buffer allocated per frame or per card shows as hundreds of faults here.
    func screenFaultsPerCard() async -> Double {
        let clock = InstantClock()
        let display = MockDisplay(size: size.rotated(.quarter), clock: clock, keepFrames: 0)
        let screen = NookScreen(display: display, clock: clock, settings: .init(rotation: .quarter))
        await screen.showHome()
        func show(_ index: Int) async {
            var shown = activity
            shown = NookActivity(title: "Build \(index) finished", subtitle: shown.subtitle, systemImage: shown.systemImage,
                                 tint: shown.tint, progress: shown.progress)
            for kind in [NookActivityEvent.Kind.animateIn, .presented, .animateOut, .hidden(.completed)] {
                await screen.handle(NookActivityEvent(activity: shown, kind: kind, at: clock.now, module: nil))
            }
        }
        for index in 0..<3 { await show(index) }
        var before = rusage(), after = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &before)
        for index in 3..<23 { await show(index) }
        getrusage(Int32(RUSAGE_SELF.rawValue), &after)
        return Double(after.ru_minflt - before.ru_minflt) / 20
    }
}

/// `card_render_worst_ms`: the slowest render of one card over ``HostileCards`` (valid cards
/// whose text costs layout the most: the tallest combining stacks, emoji sequences, CJK,
/// right-to-left, a script change at every character, every icon) at every panel class. The
/// display loop is held for one card render, so the goal is one frame at 60 Hz. Each round
/// renders every card twice into a reused frame, as the screen does, and keeps the slower.
/// Timed in the thread's CPU time: on two shared cores the wall time of one render is mostly
/// other processes' time slices.
struct WorstCardFigure {
    static let sizes = [PixelSize(width: 1280, height: 400), PixelSize(width: 1920, height: 480), PixelSize(width: 320, height: 170)]

    /// The slowest card's milliseconds in each of `count` rounds, and which card that was.
    static func run(rounds count: Int = 5) async -> (spread: Spread, slowest: String) {
        let renderer = CardRenderer(theme: .dark)
        let cards = HostileCards.cards(icons: IconCatalog.glyphs.keys.sorted())
        let names = HostileCards.texts(NookActivity.Limits.title).map(\.name)
        var slowest = (ms: 0.0, name: "")
        let spread = await nook_bench.rounds(count) {
            var worst = 0.0
            for size in sizes {
                var frame = Frame(width: size.width, height: size.height)
                for (index, card) in cards.enumerated() {
                    for _ in 0..<2 {
                        var taken = Frame(width: 1, height: 1)
                        swap(&taken, &frame)
                        // Handed over through an optional: a `consume` of the captured variable
                        // inside the closure left the debug build releasing the frame twice.
                        var handed: Frame? = consume taken
                        var rendered: RenderedCard?
                        let ms = threadSecondsTaken { rendered = renderer.render(card, into: handed.take()!) } * 1000
                        frame = rendered!.frame
                        worst = max(worst, ms)
                        if ms > slowest.ms { slowest = (ms, "\(names[index % names.count]) / \(names[(index + 1) % names.count]) at \(size)") }
                        if getenv("NOOK_BENCH_VERBOSE") != nil, ms > 16.7 { print("  card_render_worst_ms over 16.7: \(ms) ms \(names[index % names.count]) / \(names[(index + 1) % names.count]) at \(size)") }
                    }
                }
            }
            return worst
        }
        return (spread, slowest.name)
    }
}

/// CPU time of the calling thread while `body` ran, in seconds.
func threadSecondsTaken(_ body: () -> Void) -> Double {
    var start = timespec(), end = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
    body()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
    return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
}
