import NookActivities
import NookDisplay
import NookRender
import NookTestTraits
import Testing

/// The golden images' comparison (`GoldenComparison`) forgives what another cairo, pango or
/// freetype changes (how a glyph's or a circle's edge is antialiased, the picture a pixel apart)
/// and still fails a real change: fed a wrong image, it does not pass.
@Suite("R1 the golden comparison fails a real change", .cpuBound)
struct GoldenComparisonTests {
    let frame: Frame
    let layout: CardLayout

    init() {
        pinFonts()
        let card = CardRenderer(theme: .dark).render(buildFinished, size: PixelSize(width: 1280, height: 400))
        (frame, layout) = (card.frame, card.layout)
    }

    /// `frame` with the pixels of `box` moved right by `dx` (what was there shows through:
    /// the box is first filled with the card's colour at its corner).
    func moved(_ box: CardLayout.Box, by dx: Int) -> Frame {
        var changed = frame
        let background = frame[box.x, box.y]
        for y in box.y..<box.y + box.height {
            for x in box.x..<box.x + box.width { changed[x, y] = background }
            for x in box.x..<box.x + box.width where x + dx < frame.width { changed[x + dx, y] = frame[x, y] }
        }
        return changed
    }

    /// `frame` with `box` filled with the colour at its corner: what was drawn there is gone.
    func erased(_ box: CardLayout.Box) -> Frame {
        var changed = frame
        let background = frame[box.x, box.y]
        for y in box.y..<box.y + box.height {
            for x in box.x..<box.x + box.width { changed[x, y] = background }
        }
        return changed
    }

    @Test func r1_theWholePictureAPixelApartStillMatches() {
        var shifted = frame
        for y in 0..<frame.height {
            for x in 1..<frame.width { shifted[x, y] = frame[x - 1, y] }
        }
        #expect(GoldenComparison(frame, frame).score == 1)
        let match = GoldenComparison(shifted, frame)
        #expect(match.passes, "\(match)")
    }

    @Test(arguments: [2, 4])
    func r1_aTitleMovedFails(by pixels: Int) {
        let match = GoldenComparison(moved(layout.title, by: pixels), frame)
        #expect(!match.passes, "\(match)")
    }

    @Test func r1_aMissingGlyphFails() {
        // The title's first letter, "B": the left twelfth of the title's box.
        var box = layout.title
        box.width /= 12
        let match = GoldenComparison(erased(box), frame)
        #expect(!match.passes, "\(match)")
        // The same both ways: an extra glyph is as wrong as a missing one.
        let extra = GoldenComparison(frame, erased(box))
        #expect(!extra.passes, "\(extra)")
    }

    @Test func r1_aMissingOrShorterProgressBarFails() throws {
        let bar = try #require(layout.progress)
        let missing = GoldenComparison(erased(bar), frame)
        #expect(!missing.passes, "\(missing)")
        // The same card at 70 % instead of 75 %.
        var less = buildFinished
        less.progress = 0.70
        let shorter = GoldenComparison(CardRenderer(theme: .dark).render(less, size: frame.size).frame, frame)
        #expect(!shorter.passes, "\(shorter)")
    }
}
