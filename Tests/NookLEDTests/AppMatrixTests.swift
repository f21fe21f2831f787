import NookActivities
import NookDisplay
import NookPixel
import NookTestSupport
import NookTestTraits
import Testing

/// Records frames without pacing, so a test steps only the screen's own clock.
private final class FrameRecorder: DisplayBackend {
    let mode: DisplayMode
    let frames = Locked<[Frame]>([])
    init(_ width: Int, _ height: Int) { mode = DisplayMode(size: PixelSize(width: width, height: height), refreshHz: 60, name: "recorder") }
    func present(_ frame: Frame) async throws(DisplayError) { frames.withLock { $0.append(frame) } }
    func setBlanked(_ blanked: Bool) async throws(DisplayError) {}
    func restore() {}
}

/// A5 on LED matrices: an app drawn in AWTRIX 3's custom-app layout (icon at the left, text
/// beside it in its colours, progress along the bottom, a chart in place of the text), its
/// scroll on the injected clock, and the sensible thing on matrices of other sizes.
@Suite("A5 apps on LED matrices", .cpuBound)
struct AppMatrixTests {
    /// An app's card as the rotation makes it: a blocker carrying the app's face.
    func card(_ text: String, fragments: [NookApp.Fragment] = [], icon: String? = nil, tint: NookTint = .accent,
              progress: Double? = nil, chart: NookApp.Chart? = nil, stale: Bool = false) -> NookActivity {
        var card = NookActivity(title: text, systemImage: icon, tint: tint, presentation: .blocker(timeout: nil), progress: progress)
        card.app = NookAppFace(fragments: fragments, chart: chart, stale: stale)
        return card
    }

    func render(_ activity: NookActivity, _ width: Int, _ height: Int, at elapsed: Duration = .zero) -> Frame {
        var frame = Frame(width: width, height: height)
        PixelRenderer(size: PixelSize(width: width, height: height)).render(activity, elapsed: elapsed, into: &frame)
        return frame
    }

    func lit(_ frame: Frame, _ x: Int, _ y: Int) -> Bool { frame[x, y] & 0xFF_FFFF != 0 }
    func columnLit(_ frame: Frame, _ x: Int, rows: Range<Int>? = nil) -> Bool { (rows ?? 0..<frame.height).contains { lit(frame, x, $0) } }
    /// The lit columns within `columns`.
    func litColumns(_ frame: Frame, _ columns: Range<Int>, rows: Range<Int>? = nil) -> [Int] { columns.filter { columnLit(frame, $0, rows: rows) } }
    func colors(_ frame: Frame, _ columns: Range<Int>, rows: Range<Int>) -> Set<UInt32> {
        var found = Set<UInt32>()
        for x in columns { for y in rows where lit(frame, x, y) { found.insert(frame[x, y]) } }
        return found
    }

    @Test func a5_on32x8TheIconIsLeftTheTextBesideItCentredAsAWTRIXDrawsIt() {
        let font = BitmapFont.fixed5x7
        let frame = render(card("21C", icon: "cloud", tint: .named(.orange)), 32, 8)
        let orange = PixelPalette.color(for: .named(.orange)).pixel
        // The icon: its 8x8 art at the left, in the tint.
        var icon = Frame(width: 32, height: 8)
        PixelIcons.draw("cloud", at: 0, 0, color: orange, into: &icon)
        for x in 0..<8 { for y in 0..<8 { #expect(frame[x, y] == icon[x, y], "icon pixel \(x),\(y)") } }
        #expect(!columnLit(frame, 8), "one dark column between the icon and the text")
        // The text, centred in the 23 columns right of it, in the app's colour.
        let width = font.width(of: "21C")
        let left = 9 + (23 - width) / 2
        let columns = litColumns(frame, 9..<32)
        #expect(columns.first == left && columns.last! <= left + width - 1, "text at \(columns), expected from \(left)")
        #expect(colors(frame, 9..<32, rows: 0..<8) == [orange], "the text is in the app's colour")
        // Without an icon, the text area is the whole matrix.
        let bare = render(card("21C"), 32, 8)
        #expect(litColumns(bare, 0..<32).first == (32 - width) / 2)
        #expect(colors(bare, 0..<32, rows: 0..<8) == [PixelPalette.text.pixel], "an app of the default tint has white text, as AWTRIX's")
    }

    @Test func a5_eachFragmentIsDrawnInItsOwnColour() {
        let font = BitmapFont.fixed5x7
        let red = NookTint.rgb(red: 255, green: 0, blue: 0)
        let text = card("21°C", fragments: [NookApp.Fragment("21", tint: red), NookApp.Fragment("°C")], icon: "thermometer",
                        tint: .named(.green))
        let frame = render(text, 32, 8)
        let left = 9 + (23 - font.width(of: "21°C")) / 2
        #expect(colors(frame, left..<(left + 2 * font.advance), rows: 0..<8) == [0xFFFF_0000], "\"21\" in red")
        #expect(colors(frame, (left + 2 * font.advance)..<32, rows: 0..<8) == [PixelPalette.color(for: .named(.green)).pixel],
                "\"°C\", without a colour of its own, in the app's")
        // A stale app is grey as a whole, its fragments too.
        var stale = text
        stale.tint = .named(.gray)
        stale.app?.stale = true
        #expect(colors(render(stale, 32, 8), 9..<32, rows: 0..<8) == [PixelPalette.color(for: .named(.gray)).pixel])
    }

    @Test func a5_progressIsALineAlongTheBottomUnderTheText() {
        let frame = render(card("50%", icon: "bolt", tint: .named(.blue), progress: 0.5), 32, 8)
        let blue = PixelPalette.color(for: .named(.blue))
        let lit = Int((0.5 * 23).rounded())
        for x in 9..<32 {
            #expect(frame[x, 7] == (x - 9 < lit ? blue.pixel : RGB(red: 0, green: 0, blue: 31).pixel), "progress at column \(x)")
        }
        #expect(!litColumns(frame, 9..<32, rows: 0..<7).isEmpty, "the text above it")
    }

    @Test func a5_aBarChartIsColumnsInTheTextAreaInPlaceOfTheText() {
        let frame = render(card("not drawn", icon: "bolt", chart: NookApp.Chart(.bar, [1, 2, 3, 4])), 32, 8)
        // 23 columns, 3 gaps: bars 5 wide, scaled from 0 to the most (8 rows): 2, 4, 6, 8 tall.
        for (index, height) in [2, 4, 6, 8].enumerated() {
            let left = 9 + index * 6
            for x in left..<(left + 5) {
                let column = (0..<8).filter { lit(frame, x, $0) }
                #expect(column == Array((8 - height)..<8), "bar \(index) at column \(x): rows \(column)")
            }
            if index < 3 { #expect(!columnLit(frame, left + 5), "a dark column after bar \(index)") }
        }
        #expect(frame == render(card("other text", icon: "bolt", chart: NookApp.Chart(.bar, [1, 2, 3, 4])), 32, 8),
                "the text is not drawn beside the chart")
        // Sixteen bars in 23 columns have no room for gaps: one column each.
        let many = render(card("x", icon: "bolt", chart: NookApp.Chart(.bar, Array(repeating: 1, count: 16))), 32, 8)
        #expect(litColumns(many, 9..<32) == Array(9..<25))
    }

    @Test func a5_aLineChartIsAPolylineAcrossTheTextArea() {
        let frame = render(card("", icon: "bolt", chart: NookApp.Chart(.line, [0, 8, 0])), 32, 8)
        #expect(lit(frame, 9, 7) && lit(frame, 20, 0) && lit(frame, 31, 7), "the points at the first, middle and last column")
        #expect(litColumns(frame, 9..<32) == Array(9..<32), "joined: every column of the text area has a point of the line")
        for x in 9..<32 {
            #expect((0..<8).filter { lit(frame, x, $0) }.count <= 2, "a line, not a fill, at column \(x)")
        }
        // With a progress, the chart stays above its line.
        let above = render(card("", progress: 0, chart: NookApp.Chart(.line, [0, 8])), 32, 8)
        #expect(lit(above, 0, 6) && lit(above, 31, 0))
    }

    @Test func a5_textThatDoesNotFitRestsThenScrollsAndStartsAgain() throws {
        let renderer = PixelRenderer(size: PixelSize(width: 32, height: 8), scrollSpeed: 16)
        let long = card("Bus 42 in 3 min, then 12 min", icon: "clock")
        let width = BitmapFont.fixed5x7.width(of: long.title)
        let pass = try #require(renderer.marqueePass(for: long))
        #expect(pass == PixelRenderer.appScrollHold + .nookSeconds(Double(width + 1) / 16)!, "a rest, then until the text has gone")
        #expect(renderer.isAnimated(long))
        func at(_ elapsed: Duration) -> Frame {
            var frame = Frame(width: 32, height: 8)
            renderer.render(long, elapsed: elapsed, into: &frame)
            return frame
        }
        let start = at(.zero)
        #expect(litColumns(start, 9..<32).first == 9, "it starts at the left of the text area")
        #expect(at(.milliseconds(900)) == start, "and rests there")
        // Then a column every 1/16 s, never onto the icon or its dark column.
        let moved = at(.seconds(1) + .milliseconds(130))
        #expect(moved != start)
        #expect(!columnLit(moved, 8))
        #expect((0..<8).allSatisfy { x in (0..<8).allSatisfy { moved[x, $0] == start[x, $0] } }, "the icon stays")
        #expect(litColumns(at(pass - .milliseconds(1)), 9..<32).isEmpty, "at the end of a pass the text has gone")
        #expect(at(pass + .milliseconds(10)) == start && at(pass + pass + .milliseconds(500)) == start, "and starts again")
        // A text that fits does not move, and an app never pulses (its card is a blocker only
        // so that the rotation ends it).
        let short = card("21C", icon: "cloud")
        #expect(!renderer.isAnimated(short))
        var later = Frame(width: 32, height: 8)
        renderer.render(short, elapsed: .milliseconds(800), into: &later)
        #expect(later == render(short, 32, 8))
    }

    @Test func a5_theScrollIsDrivenByTheInjectedClockOnTheScreen() async throws {
        let clock = ManualClock()
        let display = FrameRecorder(32, 8)
        let renderer = PixelRenderer(size: PixelSize(width: 32, height: 8), scrollSpeed: 16)
        let screen = PixelScreen(display: display, clock: clock, renderer: renderer, localTime: { (9, 41, 0) })
        let long = card("Bus 42 in 3 min, then 12 min", icon: "clock")
        await screen.handle(NookActivityEvent(activity: long, kind: .animateIn, at: clock.now, module: nil))
        func expected(_ elapsed: Duration) -> Frame {
            var frame = Frame(width: 32, height: 8)
            renderer.render(long, elapsed: elapsed, into: &frame)
            return frame
        }
        #expect(await screen.lastPresentedFrame == expected(.zero))
        // Nothing moves while the clock stands still.
        for _ in 0..<200 { await Task.yield() }
        #expect(display.frames.withLock { $0.count } == 1)
        // Stepped by the injected clock alone, the LEDs follow the renderer frame for frame.
        var elapsed = Duration.zero
        let step = Duration.milliseconds(100)
        for _ in 0..<25 {
            await clock.waitForSleepers()
            clock.advance(by: step)
            elapsed += step
            // Bounded by time, not by a count of yields: a loaded machine may not run the
            // screen's task within any fixed number of them.
            var shown: Frame?
            let deadline = ContinuousClock.now + TestBounds.duration(.seconds(20))
            repeat {
                shown = await screen.lastPresentedFrame
                if shown == expected(elapsed) { break }
                try await Task.sleep(for: .milliseconds(1))
            } while ContinuousClock.now < deadline
            #expect(shown == expected(elapsed), "the frame \(elapsed) into the scroll")
        }
        #expect(display.frames.withLock { $0.count } > 10, "it scrolled after its rest")
        await screen.handle(NookActivityEvent(activity: long, kind: .hidden(.completed), at: clock.now, module: nil))
    }

    @Test func a5_matricesOfOtherSizesDoTheSensibleThing() {
        let font = BitmapFont.fixed5x7
        // 64x8: the same layout with a wider text area; what scrolls on a 32x8 fits here.
        let bus = card("Bus 42 3m", icon: "clock", progress: 1)
        #expect(PixelRenderer(size: PixelSize(width: 32, height: 8)).marqueePass(for: bus) != nil)
        #expect(PixelRenderer(size: PixelSize(width: 64, height: 8)).marqueePass(for: bus) == nil)
        let wide = render(bus, 64, 8)
        #expect(litColumns(wide, 9..<64, rows: 0..<7).first == 9 + (55 - font.width(of: bus.title)) / 2)
        #expect((9..<64).allSatisfy { lit(wide, $0, 7) }, "the progress runs under the whole text area")
        // 16x16: the icon centred on top, the text in the band under it.
        let square = render(card("21", icon: "cloud", tint: .named(.orange)), 16, 16)
        #expect(litColumns(square, 0..<16, rows: 0..<8) == litColumns(square, 4..<12, rows: 0..<8) && columnLit(square, 4, rows: 0..<8))
        let band = litColumns(square, 0..<16, rows: 8..<16)
        #expect(band.first == (16 - font.width(of: "21")) / 2, "the text centred under it: \(band)")
        // 8x8: no room beside the icon; it leads the text, and the two scroll together.
        let small = PixelRenderer(size: PixelSize(width: 8, height: 8))
        let tiny = card("21", icon: "cloud", tint: .named(.orange))
        #expect(small.marqueePass(for: tiny) != nil)
        var first = Frame(width: 8, height: 8)
        small.render(tiny, elapsed: .zero, into: &first)
        var icon = Frame(width: 8, height: 8)
        PixelIcons.draw("cloud", at: 0, 0, color: PixelPalette.color(for: .named(.orange)).pixel, into: &icon)
        #expect(first == icon, "the icon first")
        // A strip: the tint, progress as the lit share, and no breathing (an app waits for nobody).
        let strip = card("50%", tint: .named(.green), progress: 0.5)
        let now = render(strip, 60, 1)
        #expect(now == render(strip, 60, 1, at: .milliseconds(1500)))
        #expect((0..<30).allSatisfy { now[$0, 0] == 0xFF00_FF00 } && (30..<60).allSatisfy { now[$0, 0] != 0xFF00_FF00 })
        #expect(!PixelRenderer(size: PixelSize(width: 60, height: 1)).isAnimated(strip))
    }
}
