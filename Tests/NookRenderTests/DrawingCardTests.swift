import NookActivities
import NookDisplay
import NookRender
import NookTestTraits
import Testing

/// M2 on panels: an app's drawing (AWTRIX's `draw`) painted under its title, scaled from the
/// 32x8 with its aspect kept, in both arrangements; an app without words is titled by its name.
@Suite("M2 drawings on panels", .cpuBound)
struct DrawingCardTests {
    static let drawing = NookDrawing([.rectangle(x: 0, y: 0, width: 16, height: 8, color: 0xFF0000, filled: true),
                                      .rectangle(x: 16, y: 0, width: 16, height: 8, color: 0x0000FF, filled: true)])

    func card(drawing: NookDrawing?) -> NookActivity {
        var card = NookActivity(title: "weather", systemImage: "cloud", presentation: .blocker(timeout: nil), progress: 0.5)
        card.app = NookAppFace(drawing: drawing, wordless: true)
        return card
    }

    /// Pixels of `rendered` inside `box` close to `color`.
    func count(_ color: RGB, in box: CardLayout.Box, of rendered: RenderedCard) -> Int {
        var found = 0
        for y in max(0, box.y)..<min(rendered.frame.height, box.y + box.height) {
            for x in max(0, box.x)..<min(rendered.frame.width, box.x + box.width) {
                let pixel = RGB(pixel: rendered.frame[x, y])
                if abs(Int(pixel.red) - Int(color.red)) < 8 && abs(Int(pixel.green) - Int(color.green)) < 8 && abs(Int(pixel.blue) - Int(color.blue)) < 8 {
                    found += 1
                }
            }
        }
        return found
    }

    @Test(arguments: [PixelSize(width: 1280, height: 400), PixelSize(width: 800, height: 480), PixelSize(width: 480, height: 800)])
    func m2_aPanelPaintsTheDrawingUnderTheTitleWithItsAspect(size: PixelSize) throws {
        let rendered = CardRenderer(theme: .dark).render(card(drawing: Self.drawing), size: size)
        let figure = try #require(rendered.layout.figure)
        #expect(abs(Double(figure.width) / Double(figure.height) - 4) < 0.2, "\(figure)")
        #expect(figure.y >= rendered.layout.title.y + rendered.layout.title.height - 1 && figure.width >= 64, "\(figure) \(rendered.layout.title)")
        let progress = try #require(rendered.layout.progress)
        #expect(!figure.intersects(progress) && !figure.intersects(rendered.layout.icon), "\(figure) \(progress)")
        // Half red, half blue, each pixel of the 32x8 a sharp square.
        let half = figure.width * figure.height / 2
        let red = count(RGB(hex: 0xFF0000), in: figure, of: rendered), blue = count(RGB(hex: 0x0000FF), in: figure, of: rendered)
        #expect(red > half * 8 / 10 && blue > half * 8 / 10, "red \(red), blue \(blue) of \(half) each")
        #expect(CardRenderer(theme: .dark).render(card(drawing: nil), size: size).layout.figure == nil)
    }

    /// What falls outside the 32x8 is clipped, text too: a line low in it, a stack of combining
    /// marks, a start left of it never reach the title, the bar or past the card.
    @Test(arguments: [PixelSize(width: 1280, height: 400), PixelSize(width: 800, height: 480)])
    func m2_aDrawingsTextIsClippedToItsArea(size: PixelSize) throws {
        let magenta: UInt32 = 0xFF00FF
        let marks = "e" + String(repeating: "\u{0301}", count: 12)
        let drawing = NookDrawing([.text(x: 0, y: 6, text: "Hgjy", color: magenta), .text(x: -16, y: 0, text: String(repeating: "W", count: 12), color: magenta),
                                   .text(x: 20, y: 0, text: marks + marks, color: magenta)])
        let rendered = CardRenderer(theme: .dark).render(card(drawing: drawing), size: size)
        let figure = try #require(rendered.layout.figure)
        let everywhere = CardLayout.Box(x: 0, y: 0, width: rendered.frame.width, height: rendered.frame.height)
        let inside = count(RGB(hex: magenta), in: figure, of: rendered)
        #expect(inside > 0 && count(RGB(hex: magenta), in: everywhere, of: rendered) == inside, "\(inside) inside \(figure)")
    }
}
