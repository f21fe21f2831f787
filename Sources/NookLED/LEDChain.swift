import NookDisplay

/// A frame turned into the channel values of each LED in chain order (layout, gamma,
/// brightness, white extraction, current budget applied): what every SPI encoder sends.
public struct LEDChain: Sendable {
    public let layout: LEDLayout
    /// 3 (RGB) or 4 (RGBW) channels per LED.
    public let channelsPerLED: Int
    public let safety: LEDSafety
    public let budget: CurrentBudget
    private let table: [UInt8]

    /// - Parameter dutyScale: see ``CurrentBudget/init(_:dutyScale:)``; `extraScale` folds a
    ///   chip's own brightness step (APA102's global brightness) back out of the 8-bit values.
    public init(layout: LEDLayout, white: Bool, safety: LEDSafety, dutyScale: Double = 1, extraScale: Double = 1) {
        self.layout = layout
        channelsPerLED = white ? 4 : 3
        self.safety = safety
        budget = CurrentBudget(safety, dutyScale: dutyScale)
        table = safety.correctionTable(extraScale: extraScale)
    }

    /// `channels` becomes `layout.count * channelsPerLED` values: LED n's red, green, blue (and
    /// white) at `n * channelsPerLED`. Its storage is reused from frame to frame.
    public func channels(of frame: Frame, into channels: inout [UInt8]) {
        precondition(frame.width == layout.width && frame.height == layout.height,
                     "a \(frame.size) frame on a \(layout.width)x\(layout.height) LED layout")
        let stride = channelsPerLED
        if channels.count != layout.count * stride { channels = [UInt8](repeating: 0, count: layout.count * stride) }
        var sum = 0
        table.withUnsafeBufferPointer { table in
            layout.chainIndex.withUnsafeBufferPointer { chainIndex in
                frame.pixels.withUnsafeBufferPointer { pixels in
                    channels.withUnsafeMutableBufferPointer { out in
                        for pixel in 0..<pixels.count {
                            let value = pixels[pixel]
                            var red = table[Int(value >> 16 & 0xFF)]
                            var green = table[Int(value >> 8 & 0xFF)]
                            var blue = table[Int(value & 0xFF)]
                            let base = Int(chainIndex[pixel]) * stride
                            if stride == 4 {
                                // The white LED takes the grey part: brighter whites for less current.
                                let white = min(red, green, blue)
                                red -= white
                                green -= white
                                blue -= white
                                out[base + 3] = white
                            }
                            out[base] = red
                            out[base + 1] = green
                            out[base + 2] = blue
                            sum += Int(red) + Int(green) + Int(blue) + (stride == 4 ? Int(out[base + 3]) : 0)
                        }
                    }
                }
            }
        }
        budget.apply(to: &channels, ledCount: layout.count, sum: sum)
    }
}
