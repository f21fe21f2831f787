import NookDisplay

/// A monospaced bitmap font for LED matrices (L3): one row mask per glyph row, the leftmost
/// column in the high bit. No anti-aliasing exists in it, so every LED is fully on or off.
/// The glyphs come from Debian's X11 misc-fixed fonts (``fixed5x7``, ``fixed4x6``; see
/// BitmapFontData.swift and Hardware/dev/led-font): Latin with Latin-1 and Extended-A, Greek,
/// Cyrillic, punctuation, currency signs and arrows (M3).
public struct BitmapFont: Sendable {
    public let height: Int
    /// Rows above the baseline.
    public let ascent: Int
    /// Columns per glyph, its spacing column included.
    public let advance: Int
    let glyphs: [UInt32: [UInt8]]

    init(height: Int, ascent: Int, advance: Int, glyphs: [UInt32: [UInt8]]) {
        (self.height, self.ascent, self.advance) = (height, ascent, advance)
        self.glyphs = glyphs.merging(Self.chartGlyphs(height: height, advance: advance)) { font, _ in font }
    }

    /// A font from its table as Hardware/dev/led-font writes it: one glyph a line, its code
    /// point and then each row's mask, in hex (`0041 2050888F888800`).
    init(height: Int, ascent: Int, advance: Int, table: String) {
        var glyphs: [UInt32: [UInt8]] = [:]
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let code = UInt32(fields[0], radix: 16) else { continue }
            let hex = Array(fields[1].utf8)
            glyphs[code] = stride(from: 0, to: hex.count - 1, by: 2).compactMap { UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16) }
        }
        self.init(height: height, ascent: ascent, advance: advance, glyphs: glyphs)
    }

    /// The rows of `scalar`'s glyph; a character the font lacks is drawn as `?`, never skipped,
    /// so a title's length on the glass matches its length in characters.
    func rows(_ scalar: Unicode.Scalar) -> [UInt8] {
        glyphs[scalar.value] ?? glyphs[0x3F]!
    }

    /// The glyph of one character (a combining sequence or emoji counts as one): a precomposed
    /// Latin-1 letter is one scalar; anything longer (emoji, combining marks) is not in the font.
    static func glyphScalar(_ character: Character) -> Unicode.Scalar {
        var scalars = character.unicodeScalars.makeIterator()
        guard let first = scalars.next(), scalars.next() == nil else { return "?" }
        return first
    }

    /// The characters of `text` the font has no glyph for, each once, in order of appearance:
    /// they are drawn as `?`, and the sender is told which (M3).
    public func undrawable(in text: String) -> [Character] {
        var seen = Set<Character>()
        var missing: [Character] = []
        for character in text where character.unicodeScalars.count != 1 || glyphs[Self.glyphScalar(character).value] == nil {
            if seen.insert(character).inserted { missing.append(character) }
        }
        return missing
    }

    /// Width in columns of `text`, without the spacing after its last glyph.
    public func width(of text: String) -> Int {
        max(0, text.count * advance - 1)
    }

    /// Draws `text` with its top-left at (`x`, `y`), clipped to the frame.
    public func draw(_ text: String, at x: Int, _ y: Int, color: UInt32, into frame: inout Frame) {
        var left = x
        // Character by character, up to the frame's edge: a scrolling title is drawn every
        // frame, and only what is on the glass is worth segmenting.
        for character in text {
            if left >= frame.width { return }
            if left + advance > 0 { blit(rows(Self.glyphScalar(character)), at: left, y, color: color, into: &frame) }
            left += advance
        }
    }

    private func blit(_ rows: [UInt8], at x: Int, _ y: Int, color: UInt32, into frame: inout Frame) {
        for (row, mask) in rows.enumerated() where mask != 0 {
            let py = y + row
            guard py >= 0, py < frame.height else { continue }
            for column in 0..<min(8, advance) where mask & (0x80 >> column) != 0 {
                let px = x + column
                if px >= 0, px < frame.width { frame[px, py] = color }
            }
        }
    }
}
