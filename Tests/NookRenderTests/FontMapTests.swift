import NookActivities
import NookDisplay
@testable import NookRender
import Testing

/// The font maps text is laid out with: one map lent to one canvas at a time, warm for the
/// next, whichever thread draws.
@Suite("R1 font maps lent to one canvas at a time")
struct FontMapTests {
    @Test func r1_theMapGivenBackLastIsLentNextAndTwoAtOnceAreTwo() {
        let maps = FontMaps()
        let first = maps.borrow()
        maps.giveBack(first)
        let again = maps.borrow()
        #expect(again === first, "the warm map again, not a new one")
        let second = maps.borrow()
        #expect(second !== first, "a map is never lent to two canvases at once")
        maps.giveBack(second)
        maps.giveBack(again)
        #expect(maps.borrow() === first)
    }

    /// Cards drawn on many tasks at once, each a different text, come out as each drawn alone,
    /// and the maps lent between them are handed over under ThreadSanitizer's eyes. (Pango is not
    /// instrumented: that one map is never lent twice at once is the test above's.)
    @Test func r1_cardsDrawnAtOnceAreEachAsDrawnAlone() async {
        let renderer = CardRenderer(theme: .dark)
        let size = PixelSize(width: 640, height: 200)
        func card(_ index: Int) -> NookActivity {
            NookActivity(title: "Build \(index) finished", subtitle: "main · \(index * 7) tests", systemImage: "hammer", tint: .named(.green))
        }
        let alone = (0..<8).map { renderer.render(card($0), size: size).frame }
        let together = await withTaskGroup(of: (Int, Frame).self) { group in
            for round in 0..<4 {
                for index in 0..<8 {
                    group.addTask { (index, renderer.render(card(index), size: size).frame) }
                }
                _ = round
            }
            var frames: [(Int, Frame)] = []
            for await frame in group { frames.append(frame) }
            return frames
        }
        #expect(together.count == 32)
        for (index, frame) in together {
            #expect(PartialRedrawTests.difference(frame, alone[index]) == nil, "card \(index)")
        }
    }
}
