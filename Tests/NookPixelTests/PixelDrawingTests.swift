import NookActivities
import NookDisplay
import NookPixel
import NookTestTraits
import Testing

/// M2 on LED matrices: an app's drawing (AWTRIX's `draw`) drawn 1:1 on a 32x8 over the app,
/// scaled onto other matrices with its aspect; an app without words draws no text.
@Suite("M2 drawings on LED matrices", .cpuBound)
struct PixelDrawingTests {
    static let red: UInt32 = 0xFF0000
    static let blue: UInt32 = 0x0000FF

    func card(_ title: String, icon: String? = nil, drawing: NookDrawing?, wordless: Bool, progress: Double? = nil) -> NookActivity {
        var card = NookActivity(title: title, systemImage: icon, presentation: .blocker(timeout: nil), progress: progress)
        card.app = NookAppFace(drawing: drawing, wordless: wordless)
        return card
    }

    func render(_ activity: NookActivity, width: Int = 32, height: Int = 8) -> Frame {
        var frame = Frame(width: width, height: height)
        PixelRenderer(size: PixelSize(width: width, height: height)).render(activity, elapsed: .zero, into: &frame)
        return frame
    }

    func lit(_ frame: Frame, _ color: UInt32) -> Set<[Int]> {
        var found: Set<[Int]> = []
        for y in 0..<frame.height {
            for x in 0..<frame.width where frame[x, y] & 0xFF_FFFF == color { found.insert([x, y]) }
        }
        return found
    }

    @Test func m2_aDrawingIsDrawnOneToOneOnA32x8AndAnAppWithoutWordsDrawsNoText() {
        let drawing = NookDrawing([.rectangle(x: 20, y: 4, width: 4, height: 4, color: Self.blue, filled: false),
                                   .pixel(x: 0, y: 0, color: Self.red), .line(x0: 2, y0: 7, x1: 5, y1: 7, color: Self.red)])
        let frame = render(card("weather", drawing: drawing, wordless: true))
        let outline: Set<[Int]> = [[20, 4], [21, 4], [22, 4], [23, 4], [20, 5], [23, 5], [20, 6], [23, 6], [20, 7], [21, 7], [22, 7], [23, 7]]
        #expect(lit(frame, Self.blue) == outline)
        #expect(lit(frame, Self.red) == [[0, 0], [2, 7], [3, 7], [4, 7], [5, 7]])
        // Nothing but the drawing: the app's name (its card's title) is not drawn.
        let count = (0..<8).flatMap { y in (0..<32).map { x in frame[x, y] } }.filter { $0 & 0xFF_FFFF != 0 }.count
        #expect(count == outline.count + 5)
        // With words, the text is drawn and the drawing over it.
        let worded = render(card("weather", drawing: drawing, wordless: false))
        #expect(lit(worded, Self.blue) == outline && lit(worded, PixelPalette.text.pixel & 0xFF_FFFF).count > 10)
    }

    @Test func m2_anIconOrAProgressAloneIsDrawnWithoutText() {
        let icon = render(card("door", icon: "bolt", drawing: nil, wordless: true))
        #expect((0..<8).allSatisfy { y in (9..<32).allSatisfy { x in icon[x, y] & 0xFF_FFFF == 0 } })
        #expect((0..<8).contains { y in (0..<8).contains { x in icon[x, y] & 0xFF_FFFF != 0 } })
        let progress = render(card("load", drawing: nil, wordless: true, progress: 0.5))
        #expect((0..<7).allSatisfy { y in (0..<32).allSatisfy { x in progress[x, y] & 0xFF_FFFF == 0 } })
        #expect((0..<32).allSatisfy { x in progress[x, 7] & 0xFF_FFFF != 0 })
    }

    @Test func m2_aDrawingIsScaledWithItsAspectOntoOtherMatrices() {
        let drawing = NookDrawing([.rectangle(x: 0, y: 0, width: 32, height: 8, color: Self.red, filled: true)])
        // 64x16: twice over, the whole matrix.
        #expect(lit(render(card("x", drawing: drawing, wordless: true), width: 64, height: 16), Self.red).count == 64 * 16)
        // 16x16: half as big, centred in height.
        let small = lit(render(card("x", drawing: drawing, wordless: true), width: 16, height: 16), Self.red)
        #expect(small.count == 16 * 4 && small.allSatisfy { (6..<10).contains($0[1]) })
    }
}
