#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookDisplay
import NookRender
import NookTestTraits
import Testing

/// A5 on panels and strips: an app's glance-sized card draws each coloured fragment of its
/// text in its own colour (pango foreground attributes), and a fragment without one as the
/// title is drawn.
@Suite("A5 an app's card on a panel", .cpuBound)
struct AppCardTests {
    static let red = NookTint.rgb(red: 255, green: 0, blue: 0)
    static let blue = NookTint.rgb(red: 0, green: 0, blue: 255)

    /// An app's card as the rotation makes it: "21 °C rain", in red, untinted and blue.
    static func weather(fragments: Bool = true, stale: Bool = false) -> NookActivity {
        let runs = [NookApp.Fragment("21 ", tint: red), NookApp.Fragment("°C"), NookApp.Fragment(" rain", tint: blue)]
        var card = NookActivity(title: runs.map(\.text).joined(), subtitle: "▁▃▅█▆", systemImage: "cloud", tint: .named(.gray),
                                presentation: .blocker(timeout: nil))
        card.app = NookAppFace(fragments: fragments ? runs : [], stale: stale)
        return card
    }

    /// The columns of the title's pixels close to `color`.
    func columns(of color: RGB, in rendered: RenderedCard) -> [Int] {
        let box = rendered.layout.title
        var found: [Int] = []
        for x in max(0, box.x)..<min(rendered.frame.width, box.x + box.width) {
            let hit = (max(0, box.y)..<min(rendered.frame.height, box.y + box.height)).contains { y in
                let pixel = RGB(pixel: rendered.frame[x, y])
                return abs(Int(pixel.red) - Int(color.red)) < 24 && abs(Int(pixel.green) - Int(color.green)) < 24
                    && abs(Int(pixel.blue) - Int(color.blue)) < 24
            }
            if hit { found.append(x) }
        }
        return found
    }

    @Test func a5_eachFragmentIsDrawnInItsOwnColourOnEveryPanel() throws {
        pinFonts()
        let theme = Theme.dark
        let (red, blue) = (RGB(hex: 0xFF0000), RGB(hex: 0x0000FF))
        for panel in panelSizes {
            let size = logicalSize(of: panel).size
            let rendered = CardRenderer(theme: theme).render(Self.weather(), size: size)
            let reds = columns(of: red, in: rendered), blues = columns(of: blue, in: rendered)
            let whites = columns(of: theme.primaryText, in: rendered)
            #expect(!reds.isEmpty && !blues.isEmpty && !whites.isEmpty, "\(size): red, untinted and blue runs are all drawn")
            if let lastRed = reds.last, let firstBlue = blues.first, let middle = whites.first(where: { $0 > lastRed }) {
                #expect(lastRed < middle && middle < firstBlue, "\(size): in the fragments' order, red \(lastRed) < white \(middle) < blue \(firstBlue)")
            } else {
                Issue.record("\(size): no untinted run between the red and the blue")
            }
            // The same card without fragments, or stale, has one colour of text.
            for plain in [Self.weather(fragments: false), Self.weather(stale: true)] {
                let one = CardRenderer(theme: theme).render(plain, size: size)
                #expect(columns(of: red, in: one).isEmpty && columns(of: blue, in: one).isEmpty, "\(size): a plain or stale title is one colour")
            }
        }
    }

    @Test func a5_goldenAppCard() throws {
        pinFonts()
        let recording = getenv("NOOK_RECORD_GOLDEN") != nil
        let frame = CardRenderer(theme: .dark).render(Self.weather(), size: PixelSize(width: 1280, height: 400)).frame
        let path = "\(testDirectory)/Golden/app-1280x400-dark.png"
        if recording { try PNG.write(frame, to: path) }
        let match = GoldenComparison(frame, try PNG.read(from: path))
        #expect(match.passes, "\(path): \(match) (record anew with NOOK_RECORD_GOLDEN=1 if the change is intended)")
    }
}
