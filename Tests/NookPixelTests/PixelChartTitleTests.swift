import NookActivities
import NookDisplay
import NookPixel
import NookTestTraits
import Testing

/// M2 on LED matrices: a card titled by its chart (an AWTRIX notification without words) is
/// drawn as the chart, in bars or dots the font has, and nothing is said to be undrawable.
@Suite("M2 a chart as a title on LED matrices")
struct PixelChartTitleTests {
    func render(_ title: String, size: PixelSize) -> Frame {
        var frame = Frame(width: size.width, height: size.height)
        PixelRenderer(size: size).render(NookActivity(title: title, systemImage: "bell"), elapsed: .zero, into: &frame)
        return frame
    }

    /// The first column of the title: right of the icon where one is drawn beside it.
    func textStart(_ height: Int) -> Int { height >= 8 ? 9 : 0 }

    /// Lit LEDs in each column right of the icon, runs of equal counts merged, dark columns left out.
    func heights(_ frame: Frame) -> [Int] {
        var found: [Int] = []
        for x in textStart(frame.height)..<frame.width {
            let count = (0..<frame.height).filter { frame[x, $0] & 0xFF_FFFF != 0 }.count
            if count > 0, found.last != count { found.append(count) }
        }
        return found
    }

    @Test(arguments: [PixelSize(width: 32, height: 8), PixelSize(width: 32, height: 7)])
    func m2_aChartTitleIsDrawnAsTheChartNotAsQuestionMarks(size: PixelSize) {
        let renderer = PixelRenderer(size: size)
        let bars = NookApp.Chart(.bar, [1, 5, 9]).characters, line = NookApp.Chart(.line, [1, 4, 2, 9]).characters
        #expect(bars == "▁▅█")
        for title in [bars, line, "▁▂▃▄▅▆▇█"] {
            #expect(renderer.undrawn(title: title, subtitle: nil, icon: nil).isEmpty, "\(title): \(renderer.undrawn(title: title, subtitle: nil, icon: nil))")
            #expect(render(title, size: size) != render(String(repeating: "?", count: title.count), size: size), "\(title)")
        }
        // Bars rise with the values, from one row to the font's whole height.
        let rows = renderer.font.height
        #expect(heights(render(bars, size: size)) == [1, Int((Double(5 * rows) / 8).rounded()), rows], "\(heights(render(bars, size: size)))")
        // A line's dots sit lower for a lower value, from the cell's bottom row to its top.
        func litRows(_ title: String) -> Set<Int> {
            let frame = render(title, size: size)
            return Set((0..<size.height).filter { y in (textStart(size.height)..<size.width).contains { frame[$0, y] & 0xFF_FFFF != 0 } })
        }
        let (lowest, highest) = (litRows("⣀"), litRows("⠉"))
        #expect(lowest.count == 1 && highest.count == 1 && lowest.first! - highest.first! == rows - 1, "\(lowest) \(highest)")
    }
}
