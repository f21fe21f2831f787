/// The characters an app's or a notification's chart is written in (``NookApp/Chart``): the
/// eight block elements `▁`…`█` of a bar chart and the braille patterns of a line chart, made
/// for the font's cell rather than taken from X11's fonts (which have none at these sizes), so a
/// chart titling a card is drawn as a chart on a matrix, not as `?`s.
extension BitmapFont {
    /// The glyphs for a cell `height` rows tall and `advance` columns wide (its spacing column left clear).
    static func chartGlyphs(height: Int, advance: Int) -> [UInt32: [UInt8]] {
        let ink = UInt8(truncatingIfNeeded: 0xFF00 >> (advance - 1))
        var glyphs: [UInt32: [UInt8]] = [:]
        // U+2581 LOWER ONE EIGHTH BLOCK … U+2588 FULL BLOCK: eighths of the cell from its bottom.
        for eighths in 1...8 {
            let filled = max(1, Int((Double(eighths * height) / 8).rounded()))
            glyphs[0x2580 + UInt32(eighths)] = (0..<height).map { $0 >= height - filled ? ink : 0 }
        }
        // U+2800…U+28FF: dots 1–3 and 7 down the left column, 4–6 and 8 down the right, four
        // rows spread over the cell.
        let dotRows = (0..<4).map { Int((Double($0 * (height - 1)) / 3).rounded()) }
        let (left, right): (UInt8, UInt8) = (0x80, 0x20)
        let dots: [(row: Int, column: UInt8)] = [(0, left), (1, left), (2, left), (0, right), (1, right), (2, right), (3, left), (3, right)]
        for pattern in 0..<256 {
            var rows = [UInt8](repeating: 0, count: height)
            for (bit, dot) in dots.enumerated() where pattern & (1 << bit) != 0 { rows[dotRows[dot.row]] |= dot.column }
            glyphs[0x2800 + UInt32(pattern)] = rows
        }
        return glyphs
    }
}
