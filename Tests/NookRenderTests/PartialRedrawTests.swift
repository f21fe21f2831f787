import NookActivities
import NookDisplay
import NookRender
import NookTestSupport
import NookTestTraits
import Testing

/// An update in place draws again only where the text column changed: the frame must come out
/// exactly as the whole card drawn fresh, whatever the text did (grew, shrank, stacked marks
/// above the line, ran right to left, lost its subtitle or bar).
@Suite("U1 a card redrawn in part is the card drawn whole", .cpuBound)
struct PartialRedrawTests {
    init() { pinFonts() }

    static let sizes = [PixelSize(width: 1280, height: 400), PixelSize(width: 400, height: 1280), PixelSize(width: 320, height: 170)]

    static let plainTitles = ["1.2 kW", "12.5 kW now", "W", "Build finished on the runner in the garage after a long night", "0 kW"]

    /// Each state of the card after the one before it: text, subtitle and progress change, the icon and tint stay.
    static func states() -> [NookActivity] {
        let hostile = HostileCards.texts(NookActivity.Limits.title).filter {
            ["combining-stacks", "bidi-controls", "zwj-families", "arabic-vowelled", "newlines"].contains($0.name)
        }.map(\.text)
        let titles = Array(plainTitles.prefix(4)) + hostile + [plainTitles[4]]
        return titles.enumerated().map { index, title in
            var card = NookActivity(coalescingKey: "app:power", priority: .high, title: title,
                                    subtitle: index % 3 == 0 ? nil : (index % 3 == 1 ? "▁▃▅█▆▃" : "stale · set 3 min ago"),
                                    systemImage: "bolt", tint: .named(.yellow), presentation: .blocker(timeout: nil),
                                    progress: index % 4 == 3 ? nil : Double(index % 11) / 10, isTransient: true)
            if index % 2 == 0, let split = title.firstIndex(of: " ") {
                card.app = NookAppFace(fragments: [NookApp.Fragment(String(title[..<split]), tint: .named(.orange)),
                                                   NookApp.Fragment(String(title[split...]))])
            }
            return card
        }
    }

    @Test(arguments: QEMUUser.sample(sizes, count: 2))
    func u1_eachUpdateDrawnInPartEqualsTheCardDrawnWhole(size: PixelSize) {
        let renderer = CardRenderer(theme: .dark)
        let states = QEMUUser.sample(Self.states(), count: 4)
        var previous = states[0]
        var drawn = renderer.render(previous, size: size)
        for (index, state) in states.dropFirst().enumerated() {
            let layout = drawn.layout
            drawn = renderer.render(state, into: drawn.frame, over: previous, layout: layout)
            let whole = renderer.render(state, size: size)
            // Hostile text may reach the card's edge or icon: then the whole card is drawn.
            if Self.plainTitles.contains(state.title), Self.plainTitles.contains(previous.title) { #expect(drawn.redrawn != nil, "update \(index + 1) at \(size): drawn in part") }
            let difference = Self.difference(drawn.frame, whole.frame)
            #expect(difference == nil, "update \(index + 1) at \(size): \(state.title.prefix(20)) as drawn whole")
            #expect(drawn.layout == whole.layout, "update \(index + 1) at \(size): the same layout")
            previous = state
        }
    }

    @Test func u1_aPartialRedrawTouchesOnlyTheTextColumnOfAWideCard() {
        let renderer = CardRenderer(theme: .dark)
        let size = PixelSize(width: 1280, height: 400)
        let before = Self.states()[1], after = Self.states()[2]
        let drawn = renderer.render(before, size: size)
        let updated = renderer.render(after, into: drawn.frame, over: before, layout: drawn.layout)
        #expect(updated.redrawn != nil)
        let places = updated.redrawn ?? []
        let area = places.reduce(0) { $0 + $1.width * $1.height }
        #expect(area > 0 && area < size.width * size.height / 4, "drew \(area) pixels of \(size.width * size.height)")
        #expect(!places.contains { $0.intersects(updated.layout.icon) }, "the icon is left as it was")
    }

    /// A line break in a one-line layout is drawn as an arrow, and a glyph no font has as a box,
    /// both reaching outside the ink pango reports: the whole card is drawn.
    @Test func u1_textWithGlyphsNoFontHasDrawsTheWholeCard() {
        let renderer = CardRenderer(theme: .dark)
        for (size, before, after) in [(PixelSize(width: 160, height: 50), "1.2 kW", "x\ny\nz"),
                                      (PixelSize(width: 284, height: 76), "opened\nclosed", "closed")] {
            let first = NookActivity(title: before, systemImage: "bolt", tint: .named(.yellow))
            var second = first
            second.title = after
            let drawn = renderer.render(first, size: size)
            let updated = renderer.render(second, into: drawn.frame, over: first, layout: drawn.layout)
            #expect(updated.redrawn == nil, "\(before) → \(after) at \(size)")
            #expect(Self.difference(updated.frame, renderer.render(second, size: size).frame) == nil, "\(before) → \(after) at \(size)")
        }
    }

    @Test func u1_aNewTintOrIconDrawsTheWholeCard() {
        let renderer = CardRenderer(theme: .dark)
        let size = PixelSize(width: 1280, height: 400)
        let before = Self.states()[1]
        for change in [{ (card: inout NookActivity) in card.tint = .named(.gray) }, { $0.systemImage = "cloud" },
                       { $0.presentation = .timed; $0.systemImage = nil }] {
            var after = before
            change(&after)
            let drawn = renderer.render(before, size: size)
            let updated = renderer.render(after, into: drawn.frame, over: before, layout: drawn.layout)
            #expect(updated.redrawn == nil)
            let same = updated.frame == renderer.render(after, size: size).frame
            #expect(same)
        }
    }

    @Test func u1_theGlassAfterEachUpdateInPlaceIsTheCardDrawnWhole() async throws {
        let rig = await ScreenUpdateTests.Rig(size: PixelSize(width: 1280, height: 400),
                                              localTime: LocalTime(hour: 12, minute: 0, weekday: 0, day: 22, month: 11))
        defer { rig.feeder.cancel() }
        let states = QEMUUser.sample(Self.states(), count: 4)
        var shown = states[0]
        shown.transition = .zero
        rig.send(shown, .animateIn)
        rig.send(shown, .presented)
        var frames = 3
        await rig.runUntil(frames: frames)
        for (index, state) in states.enumerated().dropFirst() {
            let previous = shown
            (shown.title, shown.subtitle, shown.progress, shown.app) = (state.title, state.subtitle, state.progress, state.app)
            rig.send(shown, .updated(previous: previous))
            frames += 1
            await rig.runUntil(frames: frames)
            let glass = try #require(rig.display.lastFrame).frame
            let whole = CardRenderer(theme: .dark).render(shown, size: glass.size).frame
            let difference = Self.difference(glass, whole)
            #expect(difference == nil, "update \(index): the glass as the card drawn whole")
        }
    }

    /// Where two frames of one size differ: how many pixels, the box round them and the largest
    /// difference in one colour channel; nil when they are the same.
    static func difference(_ one: Frame, _ other: Frame) -> String? {
        // (The array's own comparison first: the walk below, unoptimized and emulated, was most
        // of this suite's time under qemu-user.)
        guard one.pixels != other.pixels else { return nil }
        var (count, largest) = (0, 0)
        var (left, top, right, bottom) = (Int.max, Int.max, -1, -1)
        for (index, (a, b)) in zip(one.pixels, other.pixels).enumerated() where a != b {
            count += 1
            let (x, y) = (index % one.width, index / one.width)
            (left, top, right, bottom) = (min(left, x), min(top, y), max(right, x), max(bottom, y))
            for shift in [0, 8, 16] {
                largest = max(largest, abs(Int((a >> UInt32(shift)) & 0xFF) - Int((b >> UInt32(shift)) & 0xFF)))
            }
        }
        guard count > 0 else { return nil }
        return "\(count) pixels in x \(left)...\(right), y \(top)...\(bottom), by up to \(largest) in a channel"
    }
}
