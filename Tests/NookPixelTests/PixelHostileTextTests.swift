import NookActivities
import NookDisplay
import NookPixel
import NookTestSupport
import NookTestTraits
import Testing

/// The pixel renderer with the text that held the card renderer for seconds: a character is
/// one glyph however many scalars it has, so the marquee is as long as the title has
/// characters, and each card draws.
@Suite("L3 hostile text on LED matrices", .cpuBound)
struct PixelHostileTextTests {
    init() { TestFonts.pin() }

    @Test func l3_aLetterWithThousandsOfMarksIsOneGlyphAndNeedsNoMarquee() {
        let renderer = PixelRenderer(size: PixelSize(width: 32, height: 8))
        let card = NookActivity(title: "t" + String(repeating: "\u{301}", count: 31_000), systemImage: "bell")
        #expect(renderer.marqueePass(for: card) == nil)
        var frame = Frame(width: 32, height: 8)
        renderer.render(card, elapsed: .seconds(1), into: &frame)
        // The icon, and one '?' (the font has no such letter) right of it.
        #expect((9..<14).contains { x in (0..<7).contains { frame[x, $0] != 0xFF00_0000 } })
        #expect((15..<32).allSatisfy { x in (0..<8).allSatisfy { frame[x, $0] == 0xFF00_0000 } })
    }

    @Test(arguments: [PixelSize(width: 32, height: 8), PixelSize(width: 8, height: 8), PixelSize(width: 64, height: 1)])
    func l3_everyHostileCardDrawsWithAMarqueeAsLongAsItsCharacters(size: PixelSize) throws {
        let renderer = PixelRenderer(size: size)
        for card in HostileCards.cards(icons: PixelIcons.names) {
            try card.validate()
            var frame = Frame(width: size.width, height: size.height)
            renderer.render(card, elapsed: .milliseconds(1234), into: &frame)
            #expect(frame.pixels.contains { $0 != 0xFF00_0000 }, "something is lit")
            if let pass = renderer.marqueePass(for: card) {
                // At most 512 characters of 6 columns (and an icon) at 16 columns a second.
                #expect(pass <= .seconds((512 * 6 + 9 + PixelRenderer.marqueeGap) / 16 + 1))
            }
        }
    }
}
