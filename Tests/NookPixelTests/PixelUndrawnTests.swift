import NookActivities
import NookDisplay
import NookPixel
import NookTestSupport
import NookTestTraits
import Testing

/// What a matrix will not show of a card is what the renderer says it will not show (L3, R3):
/// the characters it names are those it draws as '?', a subtitle it never draws, an icon name
/// it has no drawing of; a strip says nothing (it shows the tint alone, as documented).
@Suite("L3 what an LED matrix will not show is named")
struct PixelUndrawnTests {
    init() { TestFonts.pin() }

    func frame(_ renderer: PixelRenderer, _ card: NookActivity) -> Frame {
        var frame = Frame(width: renderer.size.width, height: renderer.size.height)
        renderer.render(card, elapsed: .zero, into: &frame)
        return frame
    }

    @Test func l3_theCharactersNamedAreExactlyThoseDrawnAsAQuestionMark() {
        let renderer = PixelRenderer(size: PixelSize(width: 64, height: 8))
        #expect(renderer.font.undrawable(in: "日本 🔥, Grüße!") == ["日", "本", "🔥"])
        #expect(renderer.undrawn(title: "日本 🔥", subtitle: nil, icon: nil) == ["the LED font cannot draw '日本🔥' in the title; they show as '?'"])
        #expect(renderer.undrawn(title: "✓", subtitle: nil, icon: nil, titleField: "text") == ["the LED font cannot draw '✓' in the text; it shows as '?'"])
        // What it names is what the glass shows as '?', and what it does not name is drawn.
        #expect(frame(renderer, NookActivity(title: "Ab 日本")) == frame(renderer, NookActivity(title: "Ab ??")))
        #expect(renderer.undrawn(title: "Grüße, 21 °C", subtitle: nil, icon: nil).isEmpty)
        #expect(frame(renderer, NookActivity(title: "Grüße")) != frame(renderer, NookActivity(title: "Gr?ße")))
    }

    /// The LED font draws Latin (Latin-1 and Extended-A), Greek and Cyrillic, with punctuation,
    /// currency signs and arrows: a kitchen's, a Greek and a Russian title are drawn, not '?'.
    @Test func m3_l3_theLEDFontDrawsLatinGreekAndCyrillic() {
        for size in [PixelSize(width: 64, height: 8), PixelSize(width: 64, height: 6)] {
            let renderer = PixelRenderer(size: size)
            let titles = ["Küche 21 °C", "Łódź, Čeština, Ĳssel, Œuvre", "Ωμέγα άλφα ΣΊΣΥΦΟΣ", "Привет, Ёлка, Ґанок, Ђак, Її",
                          "€ 12 – “ok” … ← ↑ → ↓"]
            for title in titles {
                #expect(renderer.undrawn(title: title, subtitle: nil, icon: nil).isEmpty, "\(size): \(title)")
                // Each letter is its own glyph: none is the '?' a lacking font draws.
                let letters = title.filter { $0.isLetter }
                #expect(frame(renderer, NookActivity(title: letters)) != frame(renderer, NookActivity(title: String(repeating: "?", count: letters.count))),
                        "\(size): \(title)")
            }
            #expect(frame(renderer, NookActivity(title: "Ж")) != frame(renderer, NookActivity(title: "X")))
            #expect(frame(renderer, NookActivity(title: "Ω")) != frame(renderer, NookActivity(title: "O")))
            #expect(renderer.font.undrawable(in: "Küche 21 °C 🔥 Привет 日本 ✓") == ["🔥", "日", "本", "✓"])
        }
    }

    /// What cannot be drawn is quoted back on one line and bounded: a line break, an escape
    /// sequence's ESC or a direction override is written out, not echoed into the bridges' logs.
    @Test func l3_theCharactersNamedAreQuotedOnOneLine() {
        let renderer = PixelRenderer(size: PixelSize(width: 64, height: 8))
        let said = renderer.undrawn(title: "a\r\nb\u{1B}[2Jc\u{202E}d\u{2028}", subtitle: nil, icon: "x\ny", known: { _ in true })
        #expect(said.first == "the LED font cannot draw '\\u{d}\\u{a}\\u{1b}\\u{202e}\\u{2028}' in the title; they show as '?'", "\(said)")
        #expect(said.last == "the LED matrix has no 8x8 drawing of the icon 'x\\u{a}y': it shows the ringed dot", "\(said)")
        for line in said { #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{202E}" || $0 == "\u{2028}" }, "\(line.debugDescription)") }
        // A character of a letter and hundreds of marks is named by its first few scalars.
        let heavy = renderer.undrawn(title: "a" + String(repeating: "\u{0301}", count: 400), subtitle: nil, icon: nil)
        #expect(heavy.count == 1 && heavy[0].utf8.count < 120, "\(heavy.first?.utf8.count ?? 0) bytes")
    }

    @Test func l3_aSubtitleAndAnIconWithoutADrawingAreNamedAndAStripNamesNothing() throws {
        let renderer = PixelRenderer(size: PixelSize(width: 32, height: 8))
        #expect(renderer.undrawn(title: "x", subtitle: "more", icon: nil) == ["an LED matrix shows the title only: the subtitle is not drawn"])
        #expect(frame(renderer, NookActivity(title: "x", subtitle: "more")) == frame(renderer, NookActivity(title: "x")))
        let undrawnIcon = try #require(NookIconNames.all.first { !PixelIcons.names.contains($0) && $0 != PixelIcons.generic })
        #expect(renderer.undrawn(title: "x", subtitle: nil, icon: undrawnIcon) == ["the LED matrix has no 8x8 drawing of the icon '\(undrawnIcon)': it shows the ringed dot"])
        #expect(frame(renderer, NookActivity(title: "x", systemImage: undrawnIcon)) == frame(renderer, NookActivity(title: "x", systemImage: PixelIcons.generic)))
        #expect(renderer.undrawn(title: "x", subtitle: nil, icon: "hammer").isEmpty)
        // An icon file is drawn on the matrix (M3): nothing to say.
        #expect(renderer.undrawn(title: "x", subtitle: nil, icon: "/icons/door.png").isEmpty)
        #expect(renderer.undrawn(title: "x", subtitle: nil, icon: "/icons/door.gif").isEmpty)
        // An unknown name is said once, by the caller (the board has no such icon at all).
        #expect(renderer.undrawn(title: "x", subtitle: nil, icon: "cloud.sun", known: { _ in false }).isEmpty)
        let strip = PixelRenderer(size: PixelSize(width: 60, height: 1))
        #expect(strip.undrawn(title: "日本", subtitle: "s", icon: "airplane").isEmpty)
    }
}
