import NookActivities
import NookDisplay

/// Where an app's parts go on an LED matrix (A5): AWTRIX 3's custom-app layout on its 32x8,
/// and the nearest sensible thing on other sizes.
///
/// - Wide matrices (24 or more columns, 8 or more rows: 32x8, 64x8, 64x16): the 8x8 icon at
///   the left, one dark column, the text area to its right; the text vertically centred.
/// - Tall narrow ones (16 or more rows, fewer than 24 columns: 16x16): the icon centred on top,
///   the text area is the band of rows under it, the whole width.
/// - Small ones (8x8, a 17x7 Scroll pHAT HD): no room beside or above, so the icon (8 or more
///   rows) scrolls in front of the text as one strip, as a card's does.
///
/// With a progress, the bottom row is its line under the text area, and the text area ends
/// above it. A chart takes the text area in place of the text, as AWTRIX draws one.
struct PixelAppLayout {
    /// The icon's top-left corner when it has a place of its own.
    var icon: (x: Int, y: Int)?
    /// The icon scrolls before the text (small matrices).
    var leadingIcon: Bool
    /// The text area's columns and rows (rows without the progress line).
    var columns: Range<Int>
    var rows: Range<Int>
    /// The row the font's top sits on.
    var textTop: Int
    var progressRow: Int?

    init(size: PixelSize, font: BitmapFont, hasIcon: Bool, hasProgress: Bool) {
        let progressRow = hasProgress && size.height >= 7 ? size.height - 1 : nil
        let bottom = progressRow ?? size.height
        (icon, leadingIcon) = (nil, false)
        if hasIcon, size.width >= 24, size.height >= 8 {
            icon = (0, max(0, (bottom - 8) / 2))
            columns = 9..<size.width
            rows = 0..<bottom
        } else if hasIcon, size.height >= 16, size.width >= 8 {
            icon = ((size.width - 8) / 2, 0)
            columns = 0..<size.width
            rows = 8..<bottom
        } else {
            leadingIcon = hasIcon && size.height >= 8
            columns = 0..<size.width
            rows = 0..<bottom
        }
        textTop = rows.lowerBound + max(0, (rows.count - font.height) / 2)
        self.progressRow = progressRow
    }
}
