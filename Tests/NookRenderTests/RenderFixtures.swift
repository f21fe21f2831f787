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

/// How a frame compares with its golden image, so that a golden holds with every cairo, pango
/// and freetype Nook is built against: Debian 12's and 13's antialias glyph and circle edges
/// differently (up to 2.7 % of a small card's pixels differ by more than the tolerance), and
/// still fails a real change: a glyph or a bar missing, moved or of another length
/// (`GoldenComparisonTests` feeds such wrong images).
///
/// A pixel matches when its channels lie within `tolerance` of the reference's pixel at the same
/// place or, failing that, within the range of the reference's 3x3 neighbourhood around it
/// (an edge pixel antialiased differently lies between the ink and the ground beside it), and
/// the reference's pixel lies so in the frame's neighbourhood too: both ways, so ink missing
/// from either side has a flat neighbourhood to fail against. Two things are asked: 99.5 % of
/// the pixels match, and no 16x16 tile holds more than 24 that do not, since a whole glyph
/// missing from a 1280x400 card is only 0.2 % of it (Debian 13 against Debian 12: at most 13).
struct GoldenComparison: CustomStringConvertible {
    /// Fraction of the pixels that match.
    var score: Double
    /// The most unmatched pixels in one 16x16 tile.
    var worstTile: Int

    static let tile = 16

    var passes: Bool { score >= 0.995 && worstTile <= 24 }

    var description: String {
        let percent = (score * 10000).rounded() / 100
        return "\(percent) % of pixels match (99.5 % asked), at most \(worstTile) unmatched in a 16x16 tile (24 allowed)"
    }

    init(_ a: Frame, _ b: Frame, tolerance: Int = 24) {
        guard a.size == b.size else {
            (score, worstTile) = (0, Self.tile * Self.tile)
            return
        }
        let (width, height) = (a.width, a.height)
        let columns = (width + Self.tile - 1) / Self.tile
        var tiles = [Int](repeating: 0, count: columns * ((height + Self.tile - 1) / Self.tile))
        var unmatched = 0
        // Plain loops over the pixel buffers and static functions: the tests are built for
        // debugging, where closures and array literals per pixel cost a test a minute.
        a.pixels.withUnsafeBufferPointer { first in
            b.pixels.withUnsafeBufferPointer { second in
                for y in 0..<height {
                    for x in 0..<width {
                        let index = y * width + x
                        if Self.close(first[index], second[index], tolerance) { continue }
                        if Self.between(first, second, x, y, width, height, tolerance)
                            && Self.between(second, first, x, y, width, height, tolerance) { continue }
                        unmatched += 1
                        tiles[y / Self.tile * columns + x / Self.tile] += 1
                    }
                }
            }
        }
        score = 1 - Double(unmatched) / Double(width * height)
        worstTile = tiles.max() ?? 0
    }

    static func close(_ p: UInt32, _ q: UInt32, _ tolerance: Int) -> Bool {
        abs(Int(p >> 16 & 0xFF) - Int(q >> 16 & 0xFF)) <= tolerance && abs(Int(p >> 8 & 0xFF) - Int(q >> 8 & 0xFF)) <= tolerance
            && abs(Int(p & 0xFF) - Int(q & 0xFF)) <= tolerance
    }

    /// Whether `frame`'s pixel at (x, y) lies within the range of `other`'s 3x3 neighbourhood.
    static func between(_ frame: UnsafeBufferPointer<UInt32>, _ other: UnsafeBufferPointer<UInt32>, _ x: Int, _ y: Int,
                        _ width: Int, _ height: Int, _ tolerance: Int) -> Bool {
        let pixel = frame[y * width + x]
        var shift: UInt32 = 0
        while shift <= 16 {
            var (low, high) = (255, 0)
            for ny in max(0, y - 1)...min(height - 1, y + 1) {
                for nx in max(0, x - 1)...min(width - 1, x + 1) {
                    let value = Int(other[ny * width + nx] >> shift & 0xFF)
                    low = min(low, value)
                    high = max(high, value)
                }
            }
            let value = Int(pixel >> shift & 0xFF)
            if value < low - tolerance || value > high + tolerance { return false }
            shift += 8
        }
        return true
    }
}
