/// WS2812/SK6812 data as an SPI byte stream (L1). These chips read one wire with pulse
/// widths: a bit is 1.25 µs, high for about 0.3 µs (0) or 0.6–0.9 µs (1). At an SPI clock of
/// 3.2 MHz one SPI bit lasts 312.5 ns, so each LED bit is four SPI bits: `1000` for 0
/// (312 ns high) and `1100` for 1 (625 ns high), and each LED byte is four SPI bytes.
/// The frame ends with 120 zero bytes (300 µs low), the reset that latches the colours:
/// WS2812B needs more than 280 µs, SK6812 more than 80 µs.
public struct WS2812Encoder: Sendable {
    /// The SPI clock the symbols are timed for.
    public static let spiHz: UInt32 = 3_200_000
    public static let spiBitsPerLEDBit = 4
    public static let resetBytes = 120

    public let order: LEDColorOrder
    /// Each LED byte's four SPI bytes, most significant LED bit first, as a big-endian word.
    static let symbols: [UInt32] = (0..<256).map { byte in
        var word: UInt32 = 0
        for bit in (0..<8).reversed() { word = word << 4 | (byte >> bit & 1 == 1 ? 0b1100 : 0b1000) }
        return word
    }

    public init(order: LEDColorOrder) { self.order = order }

    /// SPI bytes for `ledCount` LEDs.
    public static func byteCount(ledCount: Int, channelsPerLED: Int) -> Int {
        ledCount * channelsPerLED * 8 * spiBitsPerLEDBit / 8 + resetBytes
    }

    /// Encodes `channels` (RGB(W) per LED, from ``LEDChain``) into `out`, reusing its storage;
    /// `scale` (the current budget's value table) is applied on the way.
    public func encode(_ channels: [UInt8], scale: [UInt8]? = nil, into out: inout [UInt8]) {
        if let scale {
            // The budget folded into the symbol table: still one lookup per channel.
            let scaled = scale.map { Self.symbols[Int($0)] }
            encode(channels, symbols: scaled, into: &out)
        } else {
            encode(channels, symbols: Self.symbols, into: &out)
        }
    }

    private func encode(_ channels: [UInt8], symbols: [UInt32], into out: inout [UInt8]) {
        let stride = order.count
        let ledCount = channels.count / stride
        let size = Self.byteCount(ledCount: ledCount, channelsPerLED: stride)
        if out.count != size { out = [UInt8](repeating: 0, count: size) }
        let wire = order.channels
        // The wire order as plain integers: no array access in the loop.
        let (w0, w1, w2, w3) = (wire[0], wire[1], wire[2], stride == 4 ? wire[3] : 0)
        symbols.withUnsafeBufferPointer { symbols in
            channels.withUnsafeBufferPointer { channels in
                out.withUnsafeMutableBytes { out in
                    var position = 0
                    var base = 0
                    for _ in 0..<ledCount {
                        // Each LED byte is one 32-bit word of symbols, stored most significant byte first.
                        out.storeBytes(of: symbols[Int(channels[base + w0])].bigEndian, toByteOffset: position, as: UInt32.self)
                        out.storeBytes(of: symbols[Int(channels[base + w1])].bigEndian, toByteOffset: position + 4, as: UInt32.self)
                        out.storeBytes(of: symbols[Int(channels[base + w2])].bigEndian, toByteOffset: position + 8, as: UInt32.self)
                        if stride == 4 {
                            out.storeBytes(of: symbols[Int(channels[base + w3])].bigEndian, toByteOffset: position + 12, as: UInt32.self)
                        }
                        position += stride * 4
                        base += stride
                    }
                    for index in position..<out.count { out[index] = 0 }
                }
            }
        }
    }
}

/// APA102/SK9822 data (L1): clock and data lines, so any SPI speed up to the chip's limit.
/// A frame is a start frame of 32 zero bits, one 32-bit frame per LED (`111` + 5-bit global
/// brightness, then the colours in the chip's order, usually blue, green, red), and an end
/// frame: 32 zero bits (SK9822 latches on them) and then at least one clock edge per two LEDs
/// (`ledCount / 16` bytes, rounded up) so the data reaches the end of the chain. The end
/// bytes are zeros, not the datasheet's ones: any LEDs beyond the configured count then stay
/// dark instead of turning white.
public struct APA102Encoder: Sendable {
    public let order: LEDColorOrder
    /// 0...31, the same for every LED.
    public let globalBrightness: UInt8

    public init(order: LEDColorOrder, globalBrightness: UInt8) {
        precondition(order.count == 3, "APA102 has three channels")
        self.order = order
        self.globalBrightness = min(31, globalBrightness)
    }

    /// The global brightness step that best serves a brightness limit: the smallest that
    /// reaches it, the rest done in the 8-bit values (finer steps near black).
    public static func globalBrightness(for brightness: Double) -> UInt8 {
        UInt8(max(1, min(31, (brightness * 31).rounded(.up))))
    }

    public static func endBytes(ledCount: Int) -> Int { 4 + (ledCount + 15) / 16 }

    public func encode(_ channels: [UInt8], into out: inout [UInt8]) {
        let ledCount = channels.count / 3
        let size = 4 + ledCount * 4 + Self.endBytes(ledCount: ledCount)
        if out.count != size { out = [UInt8](repeating: 0, count: size) }
        let wire = order.channels
        let header = 0xE0 | globalBrightness
        channels.withUnsafeBufferPointer { channels in
            out.withUnsafeMutableBufferPointer { out in
                for index in 0..<4 { out[index] = 0 }
                var position = 4
                for led in 0..<ledCount {
                    out[position] = header
                    out[position + 1] = channels[led * 3 + wire[0]]
                    out[position + 2] = channels[led * 3 + wire[1]]
                    out[position + 3] = channels[led * 3 + wire[2]]
                    position += 4
                }
                for index in position..<out.count { out[index] = 0 }
            }
        }
    }
}
