import NookActivities
import NookDisplay
@testable import NookRender
import NookTestSupport
import NookTestTraits
import Testing

/// Text layout is handed only what a box can show, so no card's text, valid or not, holds the
/// display loop: one letter with 31,000 combining marks took seconds to lay out.
@Suite("R1 hostile text: the layout's input is bounded by the boxes", .cpuBound)
struct HostileTextTests {
    init() { pinFonts() }

    static let sizes = [PixelSize(width: 1280, height: 400), PixelSize(width: 1920, height: 480), PixelSize(width: 320, height: 170)]
    /// Emulated (qemu-user, where pango's layout costs 40 to 90 times its native time, and these
    /// tests were the slowest slice, 146 s), the small panel alone: the bounds are the same code
    /// at every size, which the native passes check at all three.
    static let sampledSizes = QEMUUser.running ? [sizes[2]] : sizes

    /// The most scalars a card's title and subtitle can hand pango at `size`: both boxes at the
    /// smallest font a card uses, every character a full stack.
    func scalarBound(_ size: PixelSize) -> Int {
        let smallest = 0.09 * Double(min(size.height, size.width))
        return 2 * LayoutText.characterBound(width: Double(size.width), lines: 2, pixelSize: smallest) * NookTextLimit.scalarsPerCharacter + 2
    }

    @Test func r1_theHostileCorpusIsValidAndCoversEveryIcon() throws {
        let icons = IconCatalog.glyphs.keys.sorted()
        let cards = HostileCards.cards(icons: icons)
        for card in cards { try card.validate() }
        #expect(Set(cards.compactMap(\.systemImage)) == Set(icons))
        // Each text fills its field: to within a piece of the character or the byte limit.
        for limit in [NookActivity.Limits.title, NookActivity.Limits.subtitle] {
            for (name, text) in HostileCards.texts(limit) {
                #expect(limit.characters - text.unicodeScalars.count < 32 || limit.bytes - text.utf8.count < 80, "\(name) fills \(limit)")
            }
        }
    }

    @Test(arguments: sampledSizes)
    func r1_everyHostileCardRendersWithItsTextBoundedByItsBoxes(size: PixelSize) {
        let renderer = CardRenderer(theme: .dark)
        let cards = HostileCards.cards(icons: IconCatalog.glyphs.keys.sorted())
        let kinds = HostileCards.texts(NookActivity.Limits.title).map(\.name)
        // Colour emoji are drawn from a bitmap font at its own size (two lines of them are taller
        // than a 170-pixel panel), whatever the text's length: not what is checked here.
        let emoji: Set = ["zwj-families", "skin-tone-couples", "flags"]
        for (index, card) in cards.enumerated() {
            let rendered = renderer.render(card, size: size)
            let layout = rendered.layout
            let (title, subtitle) = (kinds[index % kinds.count], kinds[(index + 1) % kinds.count])
            #expect(layout.textScalars <= scalarBound(size), "\(layout.textScalars) scalars laid out for \(title) / \(subtitle)")
            #expect(ink(in: rendered.frame, box: layout.title, background: Theme.dark.cardBackground) > 0, "the title is drawn")
            guard !emoji.contains(title), !emoji.contains(subtitle) else { continue }
            for box in [layout.title, layout.subtitle!] {
                #expect(box.x >= 0 && box.x + box.width <= size.width + 1 && box.y >= 0 && box.y + box.height <= size.height + 1,
                        "\(box) inside \(size): \(title) / \(subtitle)")
            }
        }
    }

    @Test(arguments: sampledSizes)
    func r1_aTitleOfOneLetterAndThousandsOfMarksIsLaidOutAsOneShortStack(size: PixelSize) {
        // Never valid, but the renderer draws whatever it is handed (a journal of an older nookd).
        let title = "t" + String(repeating: "\u{301}", count: 31_000)
        let huge = NookActivity(title: title, subtitle: String(repeating: "\u{301}", count: 20_000) + String(repeating: "i", count: 20_000))
        let layout = CardRenderer(theme: .dark).render(huge, size: size).layout
        #expect(layout.textScalars <= scalarBound(size))
        #expect(!layout.titleEllipsized)
        #expect(layout.subtitleEllipsized)
    }

    /// What the bound leaves out could never have been on the glass: the same boxes, laid out
    /// from the bounded text and from all of it, draw the same pixels.
    /// (Emulated, two of the five boxes: one line and two.)
    @Test(arguments: QEMUUser.sample([
        (60.0, 1400.0, 1), (45.6, 1400.0, 1), (72.0, 1500.0, 1), (23.0, 230.0, 2), (16.0, 270.0, 2),
    ] as [(Double, Double, Int)], count: 2))
    func r1_boundingTheTextChangesNothingOnTheGlass(pixelSize: Double, width: Double, lines: Int) {
        let texts = [
            String(repeating: "i", count: 900), String(repeating: "il.' |", count: 200), String(repeating: " ", count: 400) + "x",
            String(repeating: "Build finished on the second runner, ", count: 30),
            String(repeating: "漢字かな", count: 200), String(repeating: "بِسْمِ ٱللَّٰهِ ", count: 60),
            String(repeating: "a\u{301}", count: 700), String(repeating: "😀👩‍👩‍👧‍👦", count: 200),
        ]
        for text in texts {
            for weight in [FontWeight.bold, .regular] {
                var bounded = Frame(width: Int(width) + 40, height: Int(pixelSize * 3) * lines, fill: 0xFF00_0000)
                var whole = bounded
                func draw(_ frame: inout Frame, bound: Bool) -> Bool {
                    Canvas.draw(into: &frame) { canvas in
                        let layout = canvas.layoutText(text, family: Theme.dark.fontFamily, weight: weight, pixelSize: pixelSize,
                                                       maxWidth: width, maxLines: lines, bounded: bound)
                        layout.draw(x: 10, y: 0, color: Theme.dark.primaryText)
                        return layout.isEllipsized
                    }
                }
                let boundedEllipsized = draw(&bounded, bound: true)
                let wholeEllipsized = draw(&whole, bound: false)
                #expect(bounded.pixels == whole.pixels, "\(text.prefix(16)) at \(pixelSize) px, \(width) wide, \(lines) lines, \(weight)")
                #expect(boundedEllipsized == wholeEllipsized)
            }
        }
    }

    @Test func r1_boundedTextKeepsShortTextAndCutsLongTextWithAnEllipsis() {
        #expect(LayoutText.bounded("Build finished", characters: 20) == ("Build finished", false))
        let cut = LayoutText.bounded(String(repeating: "ab", count: 100), characters: 21)
        #expect(cut.text == String(repeating: "ab", count: 10) + "a…" && cut.ellipsized)
        let stack = LayoutText.bounded("t" + String(repeating: "\u{301}", count: 100) + "x", characters: 5)
        #expect(stack.text.unicodeScalars.count == 33 && stack.text.count == 2 && !stack.ellipsized)
    }
}
