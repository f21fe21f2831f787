#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookDisplay
import NookRender
import NookTestTraits
import Testing

/// E8 and R4: LCDproc's server menu open on the home glance (lcdexec's menu, as nook-lcdproc
/// composes it on a 40x4 grid with Nook's two buttons): the title bar, then the entries with
/// the selected one highlighted.
@Suite("E8 R4 the LCDproc server menu on the glance", .cpuBound)
struct MenuGlanceTests {
    /// The same lines MenuTests checks the model composes.
    static let menu = NookGlance(
        columns: 40, rows: 4,
        lines: ["lcdexec myhost", "▸ Touch it", "  More                                 ›", "  Back                                 ‹"],
        titleRow: 0, highlightRow: 1)

    @Test func e8_goldenMenuImage() throws {
        pinFonts()
        let recording = getenv("NOOK_RECORD_GOLDEN") != nil
        let size = PixelSize(width: 1280, height: 400)
        let frame = HomeRenderer(theme: .dark).render(.glance(Self.menu), size: size, time: LocalTime(hour: 9, minute: 41, weekday: 1, day: 23, month: 11))
        let path = "\(testDirectory)/Golden/glance-menu-\(size.width)x\(size.height)-dark.png"
        if recording { try PNG.write(frame, to: path) }
        let match = GoldenComparison(frame, try PNG.read(from: path))
        #expect(match.passes, "\(path): \(match) (record anew with NOOK_RECORD_GOLDEN=1 if the change is intended)")
    }

    /// The highlighted row is drawn over a bar of accent colour; the rows below are not.
    @Test func e8_theSelectedEntryIsHighlighted() {
        pinFonts()
        let theme = Theme.dark
        let frame = HomeRenderer(theme: theme).render(.glance(Self.menu), size: PixelSize(width: 1280, height: 400), time: LocalTime(hour: 9, minute: 41, weekday: 1, day: 23, month: 11))
        let margin = 400.0 * 0.06
        let font = min((1280 - 2 * margin) / 40 / 0.602, (400 - 2 * margin) / 4 / 1.3)
        let (cellWidth, cellHeight) = (font * 0.602, font * 1.3)
        let left = (1280 - cellWidth * 40) / 2, top = (400 - cellHeight * 4) / 2
        // Column 30 has no text in rows 1 and 2.
        let selected = RGB(pixel: frame[Int(left + cellWidth * 30.5), Int(top + cellHeight * 1.5)])
        let plain = RGB(pixel: frame[Int(left + cellWidth * 30.5), Int(top + cellHeight * 2.5)])
        #expect(plain == theme.background)
        #expect(selected != theme.background && selected.blue > theme.background.blue, "the selected row is tinted")
        var unselected = Self.menu
        unselected.highlightRow = nil
        let without = HomeRenderer(theme: theme).render(.glance(unselected), size: PixelSize(width: 1280, height: 400), time: LocalTime(hour: 9, minute: 41, weekday: 1, day: 23, month: 11))
        #expect(RGB(pixel: without[Int(left + cellWidth * 30.5), Int(top + cellHeight * 1.5)]) == theme.background)
    }
}
