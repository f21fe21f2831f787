import NookDisplay

/// WS2812 RGB straight from a frame to SPI symbols: the common case, and the hot path that
/// `led_encode_ns_per_led` times. One pass over the pixels; per channel one lookup in a
/// 256-entry table whose entries carry both what is sent (the value's four symbol bytes, gamma,
/// brightness and the current budget folded in) and what the budget counts (the corrected
/// value before scaling), so the budget's sum comes from the same loads as the stores.
///
/// The budget is only known once the pass has summed the frame, so the pass writes with the
/// previous frame's scaling and checks it afterwards: kept if it is the exact scaling or at most
/// 1/256 below it (never brighter: a smaller factor keeps the frame within the supply too, and
/// 1/256 is under one step of an 8-bit value), else the frame is written again with the exact
/// one. A steady or slowly changing picture costs one pass; a jump in brightness costs two.
/// Tables and byte offsets are made once per strip, so a frame allocates nothing.
struct WS2812Path {
    private let budget: CurrentBudget
    private let ledCount: Int
    private let size: PixelSize
    /// Per pixel (frame order), the byte offset of its LED's first symbol in the stream.
    private let offsets: [Int]
    /// Byte offsets within an LED of its red, green and blue symbol words (the wire order).
    private let red: Int, green: Int, blue: Int
    private let correction: [UInt8]
    /// Frame value → corrected value << 40 | symbol word as stored (big-endian) of the scaled
    /// corrected value. Three low words sum below 2^34, so `(r + g + b) >> 40` is the three
    /// corrected values' sum in one shift.
    private var entries: [UInt64]
    /// The 16.16 budget factor `entries` holds; nil: unscaled.
    private var factor: Int?

    static let countShift: UInt64 = 40

    init(chain: LEDChain, order: LEDColorOrder) {
        precondition(chain.channelsPerLED == 3 && order.count == 3)
        budget = chain.budget
        ledCount = chain.layout.count
        size = PixelSize(width: chain.layout.width, height: chain.layout.height)
        let ledBytes = 3 * WS2812Encoder.spiBitsPerLEDBit
        offsets = chain.layout.chainIndex.map { Int($0) * ledBytes }
        let slots = order.channels
        red = slots.firstIndex(of: 0)! * 4
        green = slots.firstIndex(of: 1)! * 4
        blue = slots.firstIndex(of: 2)! * 4
        correction = chain.table
        entries = []
        factor = nil
        entries = makeEntries(factor: nil)
    }

    private func makeEntries(factor: Int?) -> [UInt64] {
        (0..<256).map { value in
            let corrected = Int(correction[value])
            let sent = factor.map { (corrected * $0) >> 16 } ?? corrected
            return UInt64(corrected) << Self.countShift | UInt64(WS2812Encoder.symbols[sent].bigEndian)
        }
    }

    mutating func encode(_ frame: Frame, into out: inout [UInt8]) {
        precondition(frame.size == size, "a \(frame.size) frame on a \(size) WS2812 layout")
        let bytes = WS2812Encoder.byteCount(ledCount: ledCount, channelsPerLED: 3)
        if out.count != bytes { out = [UInt8](repeating: 0, count: bytes) }
        let sum = store(frame, into: &out)
        let exact = budget.scaleFactor(ledCount: ledCount, sum: sum)
        guard !Self.acceptable(factor, exact: exact) else { return }
        factor = exact
        entries = makeEntries(factor: exact)
        store(frame, into: &out)
    }

    /// Whether symbols written with `used` may stand for a frame whose exact factor is `exact`.
    static func acceptable(_ used: Int?, exact: Int?) -> Bool {
        switch (used, exact) {
        case (nil, nil): true
        case (nil, _?), (_?, nil): false
        case (let used?, let exact?): used <= exact && exact - used <= exact >> 8
        }
    }

    /// Writes every LED's symbols with the current entries; returns the corrected channels' sum.
    @discardableResult
    private func store(_ frame: Frame, into out: inout [UInt8]) -> Int {
        var sum = 0
        let (red, green, blue) = (self.red, self.green, self.blue)
        entries.withUnsafeBufferPointer { entries in
            offsets.withUnsafeBufferPointer { offsets in
                frame.pixels.withUnsafeBufferPointer { pixels in
                    out.withUnsafeMutableBytes { out in
                        for pixel in 0..<pixels.count {
                            let value = pixels[pixel]
                            let base = offsets[pixel]
                            let r = entries[Int(value >> 16 & 0xFF)]
                            let g = entries[Int(value >> 8 & 0xFF)]
                            let b = entries[Int(value & 0xFF)]
                            out.storeBytes(of: UInt32(truncatingIfNeeded: r), toByteOffset: base &+ red, as: UInt32.self)
                            out.storeBytes(of: UInt32(truncatingIfNeeded: g), toByteOffset: base &+ green, as: UInt32.self)
                            out.storeBytes(of: UInt32(truncatingIfNeeded: b), toByteOffset: base &+ blue, as: UInt32.self)
                            sum &+= Int(truncatingIfNeeded: (r &+ g &+ b) >> Self.countShift)
                        }
                        // The reset gap: zeros after the last LED (the buffer may come in dirty).
                        let end = out.count
                        var index = ledCount * 12
                        while index < end { out[index] = 0; index &+= 1 }
                    }
                }
            }
        }
        return sum
    }
}
