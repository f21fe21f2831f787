import NookDisplay
import NookLED

// Decoders written from the chips' datasheets, independently of the encoders under test: they
// read the bytes a backend sent back into pixels, so a test compares pixels, not bytes.

/// A deterministic generator, so a failing property names a reproducible seed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

struct DecodeFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A WS2812 line as an SPI stream at 3.2 MHz: each LED bit is a high pulse then low for 1.25 µs
/// (4 SPI bits); 0 is high for ~312 ns, 1 for ~625 ns. Returns the LED bytes and how long the
/// line stayed low at the end, in microseconds.
func decodeWS2812(_ bytes: [UInt8], ledBytes: Int) throws -> (values: [UInt8], resetMicroseconds: Double) {
    var bits: [Bool] = []
    for byte in bytes { for shift in (0..<8).reversed() { bits.append(byte >> shift & 1 == 1) } }
    var values: [UInt8] = []
    var position = 0
    for _ in 0..<ledBytes {
        var value: UInt8 = 0
        for _ in 0..<8 {
            guard position + 4 <= bits.count else { throw DecodeFailure("stream ends inside LED byte \(values.count)") }
            let period = bits[position..<position + 4]
            guard period.first == true else { throw DecodeFailure("bit period at SPI bit \(position) does not start high") }
            let highs = period.prefix { $0 }.count
            guard period.dropFirst(highs).allSatisfy({ !$0 }) else { throw DecodeFailure("two pulses in one bit period at \(position)") }
            let highNanoseconds = Double(highs) * 312.5
            // WS2812B datasheet: T0H 220–380 ns, T1H 580–1000 ns.
            let bit: UInt8
            if (220...380).contains(highNanoseconds) { bit = 0 } else if (580...1000).contains(highNanoseconds) { bit = 1 } else {
                throw DecodeFailure("high pulse of \(highNanoseconds) ns at SPI bit \(position) is neither a 0 nor a 1")
            }
            value = value << 1 | bit
            position += 4
        }
        values.append(value)
    }
    let tail = bits[position...]
    guard tail.allSatisfy({ !$0 }) else { throw DecodeFailure("the line goes high again after the last LED") }
    return (values, Double(tail.count) * 0.3125)
}

/// APA102: 32 zero bits, then per LED `111bbbbb` and three colour bytes, then end bytes.
func decodeAPA102(_ bytes: [UInt8], ledCount: Int) throws -> (leds: [(global: UInt8, wire: [UInt8])], endBytes: [UInt8]) {
    guard bytes.count >= 4 + ledCount * 4, bytes.prefix(4) == [0, 0, 0, 0] else { throw DecodeFailure("no start frame") }
    var leds: [(UInt8, [UInt8])] = []
    for led in 0..<ledCount {
        let frame = Array(bytes[4 + led * 4..<8 + led * 4])
        guard frame[0] & 0xE0 == 0xE0 else { throw DecodeFailure("LED frame \(led) does not start with 111") }
        leds.append((frame[0] & 0x1F, Array(frame[1...])))
    }
    return (leds, Array(bytes[(4 + ledCount * 4)...]))
}

/// Wire bytes in a named channel order back to RGB(W), reading the order string itself.
func channel(_ letter: Character, of wire: [UInt8], order: String) -> UInt8 {
    wire[Array(order).firstIndex(of: letter)!]
}

/// The wiring walked as a person would lay the strip: tile by tile (left to right, then
/// down), line by line from the origin corner, turning back on every other line when
/// serpentine. Returns, for each chain position, the pixel it lights.
func walk(width: Int, height: Int, panel: (Int, Int), serpentine: Bool, origin: LEDLayout.Corner, order: LEDLayout.Order) -> [(Int, Int)] {
    var chain: [(Int, Int)] = []
    let (pw, ph) = panel
    for tileY in 0..<(height / ph) {
        for tileX in 0..<(width / pw) {
            let right = origin == .topRight || origin == .bottomRight
            let bottom = origin == .bottomLeft || origin == .bottomRight
            let xs = Array(right ? Array((0..<pw).reversed()) : Array(0..<pw))
            let ys = Array(bottom ? Array((0..<ph).reversed()) : Array(0..<ph))
            let lines = order == .rows ? ys : xs
            let along = order == .rows ? xs : ys
            for (number, line) in lines.enumerated() {
                let run = serpentine && number % 2 == 1 ? Array(along.reversed()) : along
                for step in run {
                    let (x, y) = order == .rows ? (step, line) : (line, step)
                    chain.append((tileX * pw + x, tileY * ph + y))
                }
            }
        }
    }
    return chain
}
