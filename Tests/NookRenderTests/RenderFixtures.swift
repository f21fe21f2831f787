#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookDisplay
import NookRender
import NookTestSupport
import Testing

/// Every render test starts with this: the pinned fonts of `TestFonts`.
func pinFonts() {
    TestFonts.pin()
}

let testDirectory: String = {
    let file = #filePath
    return String(file[..<file.lastIndex(of: "/")!])
}()

/// The five panel classes of the product, as the renderer draws them (a 400x1280 bar panel is
/// drawn at 1280x400 and turned by 90°).
let panelSizes: [PixelSize] = [
    PixelSize(width: 1280, height: 400), PixelSize(width: 1920, height: 480),
    PixelSize(width: 400, height: 1280), PixelSize(width: 320, height: 170), PixelSize(width: 240, height: 135),
]

func logicalSize(of panel: PixelSize) -> (size: PixelSize, rotation: Rotation) {
    panel.height > panel.width * 2 ? (panel.rotated(.quarter), .quarter) : (panel, .none)
}

let buildFinished = NookActivity(
    title: "Build finished", subtitle: "Debug · 12.4s", systemImage: "hammer", tint: .named(.green), progress: 0.75)

/// Counts pixels in `box` that differ from `background`: ink.
func ink(in frame: Frame, box: CardLayout.Box, background: RGB) -> Int {
    var count = 0
    for y in max(0, box.y)..<min(frame.height, box.y + box.height) {
        for x in max(0, box.x)..<min(frame.width, box.x + box.width) where frame[x, y] != background.pixel {
            count += 1
        }
    }
    return count
}

/// Fraction of pixels whose channels all lie within `tolerance` of the reference.
func similarity(_ a: Frame, _ b: Frame, tolerance: Int = 24) -> Double {
    guard a.size == b.size else { return 0 }
    var close = 0
    for index in a.pixels.indices {
        let (p, q) = (RGB(pixel: a.pixels[index]), RGB(pixel: b.pixels[index]))
        if abs(Int(p.red) - Int(q.red)) <= tolerance && abs(Int(p.green) - Int(q.green)) <= tolerance
            && abs(Int(p.blue) - Int(q.blue)) <= tolerance { close += 1 }
    }
    return Double(close) / Double(a.pixels.count)
}
