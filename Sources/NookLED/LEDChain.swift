import NookDisplay

/// A frame turned into the channel values of each LED in chain order (layout, gamma,
/// brightness, white extraction, current budget applied): what every SPI encoder sends.
public struct LEDChain: Sendable {
    public let layout: LEDLayout
    /// 3 (RGB) or 4 (RGBW) channels per LED.
    public let channelsPerLED: Int
    public let safety: LEDSafety
    public let budget: CurrentBudget
    /// Frame value → channel value (gamma and brightness).
    let table: [UInt8]

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
    /// white) at `n * channelsPerLED`, within the current budget. Its storage is reused from
    /// frame to frame.
    public func channels(of frame: Frame, into channels: inout [UInt8]) {
        if let scale = unscaledChannels(of: frame, into: &channels) {
            channels.withUnsafeMutableBufferPointer { buffer in
                for index in buffer.indices { buffer[index] = scale[Int(buffer[index])] }
            }
        }
    }

    /// The channels before the current budget, and the budget's table (value → scaled value)
    /// when the frame is over it: an encoder folds the table into its own lookup, so scaling
    /// costs no pass of its own.
    func unscaledChannels(of frame: Frame, into channels: inout [UInt8]) -> [UInt8]? {
        precondition(frame.width == layout.width && frame.height == layout.height,
                     "a \(frame.size) frame on a \(layout.width)x\(layout.height) LED layout")
        let stride = channelsPerLED
        if channels.count != layout.count * stride { channels = [UInt8](repeating: 0, count: layout.count * stride) }
        var sum = 0
        table.withUnsafeBufferPointer { table in
            layout.chainIndex.withUnsafeBufferPointer { chainIndex in
                frame.pixels.withUnsafeBufferPointer { pixels in
                    channels.withUnsafeMutableBufferPointer { out in
                        if stride == 3 {
                            for pixel in 0..<pixels.count {
                                let value = pixels[pixel]
                                let red = table[Int(value >> 16 & 0xFF)]
                                let green = table[Int(value >> 8 & 0xFF)]
                                let blue = table[Int(value & 0xFF)]
                                let base = Int(chainIndex[pixel]) &* 3
                                out[base] = red
                                out[base &+ 1] = green
                                out[base &+ 2] = blue
                                sum &+= Int(red) &+ Int(green) &+ Int(blue)
                            }
                            return
                        }
                        for pixel in 0..<pixels.count {
                            let value = pixels[pixel]
                            var red = table[Int(value >> 16 & 0xFF)]
                            var green = table[Int(value >> 8 & 0xFF)]
                            var blue = table[Int(value & 0xFF)]
                            // The white LED takes the grey part: brighter whites for less current.
                            let white = min(red, green, blue)
                            red -= white
                            green -= white
                            blue -= white
                            let base = Int(chainIndex[pixel]) &* 4
                            out[base] = red
                            out[base &+ 1] = green
                            out[base &+ 2] = blue
                            out[base &+ 3] = white
                            sum &+= Int(red) &+ Int(green) &+ Int(blue) &+ Int(white)
                        }
                    }
                }
            }
        }
        return budget.scaleTable(ledCount: layout.count, sum: sum)
    }
}
