#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookDisplay
import NookRender
import NookTestTraits
import Testing

/// E8 and R4: an LCDproc screen drawn as the home glance.
@Suite("E8 R4 the LCDproc glance as home content", .cpuBound)
struct GlanceTests {
    /// What `lcdproc C` (CPU) shows on a 40x4 grid, as nook-lcdproc composes it.
    static let cpu = NookGlance(
        columns: 40, rows: 4,
        lines: ["CPU 12.0%: myhost", "Usr  6.0% Nice  0.0% Idle 88.0%", "Sys  4.0% Wait  2.0%", "0%                                  100%"],
        titleRow: 0,
        bars: [NookGlance.Bar(row: 3, column: 3, length: 4.2, direction: .horizontal),
               NookGlance.Bar(row: 2, column: 36, length: 2.5, direction: .vertical)])

    @Test func e8_goldenGlanceImages() throws {
        pinFonts()
        let recording = getenv("NOOK_RECORD_GOLDEN") != nil
        for (size, theme) in [(PixelSize(width: 1280, height: 400), Theme.dark), (PixelSize(width: 1920, height: 480), Theme.light)] {
            let frame = HomeRenderer(theme: theme).render(.glance(Self.cpu), size: size, time: LocalTime(hour: 9, minute: 41, weekday: 1, day: 23, month: 11))
            let path = "\(testDirectory)/Golden/glance-\(size.width)x\(size.height)-\(theme.appearance).png"
            if recording { try PNG.write(frame, to: path) }
            let match = GoldenComparison(frame, try PNG.read(from: path))
            #expect(match.passes, "\(path): \(match) (record anew with NOOK_RECORD_GOLDEN=1 if the change is intended)")
        }
    }

    /// The title row is a tinted bar across the grid, the bars are solid accent colour of the
    /// length given, and text stays inside the panel.
    @Test func e8_titleBarIsTintedAndBarsAreRealBars() {
        pinFonts()
        let theme = Theme.dark
        let size = PixelSize(width: 1280, height: 400)
        let frame = HomeRenderer(theme: theme).render(.glance(Self.cpu), size: size, time: LocalTime(hour: 9, minute: 41, weekday: 1, day: 23, month: 11))
        // Grid geometry as the renderer computes it (DejaVu Sans Mono's advance is 0.602 em).
        let margin = 400.0 * 0.06
        let font = min((1280 - 2 * margin) / 40 / 0.602, (400 - 2 * margin) / 4 / 1.3)
        let (cellWidth, cellHeight) = (font * 0.602, font * 1.3)
        let left = (1280 - cellWidth * 40) / 2, top = (400 - cellHeight * 4) / 2
        // The title bar: the far right of row 0 (no text there) is neither background nor text.
        let titlePixel = RGB(pixel: frame[Int(left + cellWidth * 39.5), Int(top + cellHeight * 0.5)])
        #expect(titlePixel != theme.background && titlePixel.blue > theme.background.blue, "the title row is tinted")
        // The horizontal bar: accent from its start to 4.2 cells on, background after.
        let barY = Int(top + cellHeight * 3.5)
        #expect(RGB(pixel: frame[Int(left + cellWidth * 3.5), barY]) == theme.accent)
        #expect(RGB(pixel: frame[Int(left + cellWidth * 7.0), barY]) == theme.accent)
        #expect(RGB(pixel: frame[Int(left + cellWidth * 7.8), barY]) == theme.background)
        // The vertical bar grows up from the bottom of its cell, 2.5 rows tall.
        let barX = Int(left + cellWidth * 36.5)
        #expect(RGB(pixel: frame[barX, Int(top + cellHeight * 2.9)]) == theme.accent)
        #expect(RGB(pixel: frame[barX, Int(top + cellHeight * 1.0)]) == theme.accent)
        #expect(RGB(pixel: frame[barX, Int(top + cellHeight * 0.35)]) != theme.accent)
    }

    @Test func e8_anInvalidGlanceIsRefusedNamingTheField() {
        var glance = Self.cpu
        glance.lines[1] = String(repeating: "x", count: 41)
        #expect(throws: NookActivityValidationError(field: "lines[1]", problem: "is 41 characters long; the grid is 40 wide")) { try glance.validate() }
        glance = Self.cpu
        glance.bars.append(NookGlance.Bar(row: 4, column: 0, length: 1, direction: .horizontal))
        #expect(throws: NookActivityValidationError.self) { try glance.validate() }
        glance = Self.cpu
        glance.bars[0].length = .nan
        #expect(throws: NookActivityValidationError.self) { try glance.validate() }
    }
}
