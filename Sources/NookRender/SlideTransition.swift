import NookDisplay

/// Animation frames of a card sliding up over what is under it (R5), made only of whole-row
/// copies from two pre-rendered frames: about the cost of one `memcpy` of the frame, where
/// blending or fractional offsets would cost several times more.
public enum SlideTransition {
    /// Ease-out cubic: fast start, gentle landing.
    public static func eased(_ progress: Double) -> Double {
        let clamped = min(1, max(0, progress))
        let remaining = 1 - clamped
        return 1 - remaining * remaining * remaining
    }

    /// The card's top edge, in rows from the top of the frame, at `progress` (0 = below the
    /// panel, 1 = in place).
    public static func offset(height: Int, progress: Double) -> Int {
        Int(((1 - eased(progress)) * Double(height)).rounded())
    }

    /// Writes the frame at `progress` into `output`: rows above the card's top edge from
    /// `under`, the rest from the top of `card`. All three frames have the same size.
    public static func compose(card: Frame, under: Frame, progress: Double, into output: inout Frame) {
        precondition(card.size == under.size && card.size == output.size, "slide frames must share one size")
        let width = card.width
        let offset = offset(height: card.height, progress: progress)
        let split = offset * width
        let stride = MemoryLayout<UInt32>.stride
        output.pixels.withUnsafeMutableBytes { target in
            under.pixels.withUnsafeBytes { below in
                if split > 0 { target.baseAddress!.copyMemory(from: below.baseAddress!, byteCount: split * stride) }
            }
            card.pixels.withUnsafeBytes { cardPixels in
                let count = card.pixels.count - split
                if count > 0 { (target.baseAddress! + split * stride).copyMemory(from: cardPixels.baseAddress!, byteCount: count * stride) }
            }
        }
    }
}
