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
        for text in drawing.texts where text.x >= 0 && text.x < width && text.y >= -1 && text.y < height {
            let layout = layoutText(text.text, family: fontFamily, weight: .regular, pixelSize: 6 * scale,
                                    maxWidth: rect.maxX - (rect.x + Double(text.x) * scale), maxLines: 1)
            layout.draw(x: rect.x + Double(text.x) * scale, y: rect.y + Double(text.y) * scale - scale, color: RGB(hex: text.color))
        }
    }
}
