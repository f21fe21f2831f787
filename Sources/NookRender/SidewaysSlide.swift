import NookDisplay

/// A card moved sideways by a finger (T2): the card's columns shifted by `dx`, what is under it
/// in the columns it uncovers. Two copies per row, like ``SlideTransition``, so a drag costs
/// about one `memcpy` of the frame per present.
public enum SidewaysSlide {
    /// Writes `card` shifted `dx` pixels to the right (left when negative) and `rows` down from
    /// the top (the vertical slide's offset, 0 when at rest) over `under` into `output`.
    public static func compose(card: Frame, under: Frame, dx: Int, rows: Int = 0, into output: inout Frame) {
        precondition(card.size == under.size && card.size == output.size, "slide frames must share one size")
        let (width, height) = (card.width, card.height)
        let shift = max(-width, min(width, dx))
        let top = max(0, min(height, rows))
        let stride = MemoryLayout<UInt32>.stride
        output.pixels.withUnsafeMutableBytes { target in
            under.pixels.withUnsafeBytes { below in
                card.pixels.withUnsafeBytes { cardPixels in
                    let target = target.baseAddress!, below = below.baseAddress!, cardBase = cardPixels.baseAddress!
                    // Rows above the card's top edge: all of what is under it.
                    if top > 0 { target.copyMemory(from: below, byteCount: top * width * stride) }
                    // The card's row r is drawn at row top + r; the columns it leaves bare show what is under.
                    let visible = width - abs(shift)
                    for row in top..<height {
                        let out = target + row * width * stride
                        let cardRow = cardBase + (row - top) * width * stride
                        let underRow = below + row * width * stride
                        if shift >= 0 {
                            if shift > 0 { out.copyMemory(from: underRow, byteCount: shift * stride) }
                            if visible > 0 { (out + shift * stride).copyMemory(from: cardRow, byteCount: visible * stride) }
                        } else {
                            if visible > 0 { out.copyMemory(from: cardRow + (-shift) * stride, byteCount: visible * stride) }
                            (out + visible * stride).copyMemory(from: underRow + visible * stride, byteCount: (-shift) * stride)
                        }
                    }
                }
            }
        }
    }
}
