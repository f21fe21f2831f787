import Foundation
import NookActivities
import NookDisplay
import NookRender
import NookTestSupport
import Testing

/// GIF icon files on panels (R3, M3): read as a PNG is, every frame with its delay; a card
/// draws the first frame, and whoever draws can tell it is animated.
@Suite("M3 GIF icon files on panels")
struct GIFIconFileTests {
    @Test func m3_r3_aGIFIsReadWithItsFramesAndACardDrawsTheFirst() throws {
        let path = FileManager.default.temporaryDirectory.path + "/nook-gif-icon-\(UInt64.random(in: 0...UInt64.max)).gif"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(TestGIF.encode(width: 8, height: 8, palette: [0xFF0000, 0x00FF00], frames: [
            .init(indices: [UInt8](repeating: 0, count: 64), width: 8, height: 8, delayCentiseconds: 50),
            .init(indices: [UInt8](repeating: 1, count: 64), width: 8, height: 8, delayCentiseconds: 0),
        ])).write(to: URL(fileURLWithPath: path))
        let picture = try IconFile.loadPicture(path: path)
        #expect(picture.isAnimated && IconFile.isAnimatedGIF(path: path))
        #expect(picture.frames.map(\.pixels) == [[UInt32](repeating: 0xFFFF_0000, count: 64), [UInt32](repeating: 0xFF00_FF00, count: 64)])
        #expect(picture.delays == [.milliseconds(500), .milliseconds(100)])
        #expect(try IconFile.load(path: path) == picture.frames[0])

        let card = NookActivity(title: "Door", systemImage: path)
        guard case .success(let first)? = CardRenderer.loadIcon(for: card) else { Issue.record("not read"); return }
        #expect(first == picture.frames[0])
        let renderer = CardRenderer(theme: .dark)
        let drawn = renderer.render(card, size: PixelSize(width: 480, height: 320), icon: .success(first))
        #expect(drawn.warnings.isEmpty, "\(drawn.warnings)")
        let dot = renderer.render(NookActivity(title: "Door", systemImage: "dot.circle"), size: PixelSize(width: 480, height: 320))
        #expect(drawn.frame != dot.frame, "the picture, not the generic glyph")
        // Red is in the picture drawn (it is nowhere else on an accent card).
        #expect(drawn.frame.pixels.contains { $0 & 0x00FF_FFFF == 0xFF_0000 })
    }
}
