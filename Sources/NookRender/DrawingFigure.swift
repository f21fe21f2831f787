internal import CPangoCairo
import NookActivities
import NookDisplay

extension Canvas {
    /// An app's drawing (AWTRIX's `draw`) scaled from its 32x8 into `rect` (which has its
    /// aspect): each of its pixels a sharp square, as on the matrix it was made for; its text in
    /// the card's font, as tall as AWTRIX's five-row font is on the 32x8.
    func paint(_ drawing: NookDrawing, in rect: Rect, fontFamily: String) {
        let (width, height) = (NookDrawing.width, NookDrawing.height)
        // Premultiplied ARGB: an undrawn pixel is clear, so the card shows through.
        let pixels = drawing.raster.map { $0.map { 0xFF00_0000 | $0 } ?? 0 }
        paint(IconImage(width: width, height: height, pixels: pixels), in: rect, sharp: true)
        let scale = min(rect.width / Double(width), rect.height / Double(height))
        // The 32x8 as the image was painted (centred), and what falls outside it clipped, as
        // AWTRIX clips to its matrix: a text low in it, a stack of combining marks, a start
        // left of it never reach the title or past the card.
        let area = Rect(x: rect.x + (rect.width - Double(width) * scale) / 2, y: rect.y + (rect.height - Double(height) * scale) / 2,
                        width: Double(width) * scale, height: Double(height) * scale)
        cairo_save(context)
        defer { cairo_restore(context) }
        // On whole pixels inside the area: a clip edge through a pixel lets a glyph's ink through there.
        let (left, top) = (area.x.rounded(.up), area.y.rounded(.up))
        cairo_new_path(context)
        cairo_rectangle(context, left, top, area.maxX.rounded(.down) - left, area.maxY.rounded(.down) - top)
        cairo_clip(context)
        for text in drawing.texts where text.x < width && text.y < height && text.y > -height {
            let start = area.x + Double(text.x) * scale
            let layout = layoutText(text.text, family: fontFamily, weight: .regular, pixelSize: 6 * scale, maxWidth: area.maxX - start, maxLines: 1)
            layout.draw(x: start, y: area.y + Double(text.y) * scale - scale, color: RGB(hex: text.color))
        }
    }
}
