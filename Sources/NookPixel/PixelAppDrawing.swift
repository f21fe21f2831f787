import NookActivities
import NookDisplay

/// An app's drawing (AWTRIX's `draw`) on an LED matrix: 1:1 from the top-left corner on a
/// 32x8, as AWTRIX draws it; on other matrices the 32x8 scaled by a whole factor where it
/// fits more than once (64x16), or sampled down where it does not (16x16, 8x8), centred,
/// its aspect kept. Text is drawn in the matrix's own font at the command's corner.
extension PixelRenderer {
    func drawDrawing(_ drawing: NookDrawing, into frame: inout Frame) {
        let (width, height) = (NookDrawing.width, NookDrawing.height)
        var pixels = drawing.raster
        let texts = drawing.texts
        if !texts.isEmpty {
            // The font draws into a frame: unlit pixels keep the marker no colour has.
            let unlit: UInt32 = 0x0100_0000
            var scratch = Frame(width: width, height: height, fill: unlit)
            for text in texts { font.draw(text.text, at: text.x, text.y, color: RGB(hex: text.color).pixel, into: &scratch) }
            for index in pixels.indices where scratch.pixels[index] != unlit { pixels[index] = scratch.pixels[index] & 0xFF_FFFF }
        }
        let fit = min(Double(size.width) / Double(width), Double(size.height) / Double(height))
        let scale = fit >= 1 ? fit.rounded(.down) : fit
        let (shownWidth, shownHeight) = (max(1, Int(Double(width) * scale)), max(1, Int(Double(height) * scale)))
        let (left, top) = ((size.width - shownWidth) / 2, (size.height - shownHeight) / 2)
        for y in 0..<shownHeight {
            for x in 0..<shownWidth {
                let (sourceX, sourceY) = (min(width - 1, Int(Double(x) / scale)), min(height - 1, Int(Double(y) / scale)))
                if let color = pixels[sourceY * width + sourceX] { frame[left + x, top + y] = RGB(hex: color).pixel }
            }
        }
    }
}
