import NookActivities
import NookDisplay
import NookPixel
import Testing

/// A5 on LED matrices with what a hostile or careless sender sends: long, wide, right-to-left
/// and combining text, empty and many fragments, odd charts, on every matrix size and a strip.
@Suite("A5 apps on LED matrices, hostile input")
struct AppHostileTests {
    static let sizes = [(32, 8), (8, 8), (17, 7), (64, 16), (16, 16), (30, 1), (1, 30)]

    func card(_ text: String, fragments: [NookApp.Fragment] = [], icon: String? = "bolt", tint: NookTint = .accent,
              progress: Double? = nil, chart: NookApp.Chart? = nil) -> NookActivity {
        var card = NookActivity(title: text, systemImage: icon, tint: tint, presentation: .blocker(timeout: nil), progress: progress)
        card.app = NookAppFace(fragments: fragments, chart: chart)
        return card
    }

    func litCount(_ frame: Frame) -> Int {
        var count = 0
        for y in 0..<frame.height { for x in 0..<frame.width where frame[x, y] & 0xFF_FFFF != 0 { count += 1 } }
        return count
    }

    @Test func a5_hostileTextAndChartsDrawOnEveryMatrixSize() {
        let texts = [String(repeating: "x", count: 10_000), String(repeating: "😀", count: 512), "שלום עולם مرحبا بالعالم",
                     String(repeating: "e\u{301}\u{308}\u{323}", count: 50), ""]
        let many = (0..<200).map { NookApp.Fragment("f\($0)", tint: .named($0 % 2 == 0 ? .red : .green)) }
        let empties = [NookApp.Fragment("", tint: .named(.red)), NookApp.Fragment("ab", tint: .named(.blue)), NookApp.Fragment("")]
        var cards = texts.map { card($0) }
        cards.append(card(many.map(\.text).joined(), fragments: many))
        cards.append(card("ab", fragments: empties))
        for values in [[Double](repeating: 5, count: 16), [0, 0, 0], [-3, -1, -7], [1e15, -1e15], [42]] {
            cards.append(card("", chart: .init(.bar, values)))
            cards.append(card("", chart: .init(.line, values)))
        }
        cards.append(card("Upload", progress: 0))
        cards.append(card("Upload", progress: 1))
        for (width, height) in Self.sizes {
            let renderer = PixelRenderer(size: PixelSize(width: width, height: height))
            for activity in cards {
                for seconds in [0.0, 0.5, 1.5, 30, 3600, -5] {
                    var frame = Frame(width: width, height: height)
                    renderer.render(activity, elapsed: .nookSeconds(seconds) ?? .zero, into: &frame)
                }
            }
        }
    }

    /// A tint of pure black is the LEDs off: an app in it would leave the matrix dark, as if
    /// nothing showed. The text stays readable (white, as AWTRIX's default text colour).
    @Test func a5_anAppTintedPureBlackStillShowsItsText() {
        var frame = Frame(width: 32, height: 8)
        PixelRenderer(size: PixelSize(width: 32, height: 8)).render(card("21C", tint: .rgb(red: 0, green: 0, blue: 0)), elapsed: .zero, into: &frame)
        #expect(litCount(frame) > 0, "a black tint left the matrix dark")
    }
}
