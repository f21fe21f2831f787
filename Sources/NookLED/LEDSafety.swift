#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What keeps LEDs comfortable to look at and their supply within its rating (L5): gamma, a
/// brightness limit and a current budget.
public struct LEDSafety: Hashable, Sendable {
    /// The exponent from the frame's sRGB-ish values to LED duty cycle; 1 turns correction off.
    /// LEDs are linear in duty cycle, eyes are not: without it, dim colours look washed out.
    public var gamma: Double
    /// The highest duty cycle any channel reaches, 0...1.
    public var brightness: Double
    /// Current one channel draws at full duty (WS2812B: about 20 mA per colour).
    public var milliampsPerChannel: Double
    /// Current each LED draws even when dark (WS2812B: about 1 mA for its controller).
    public var idleMilliampsPerLED: Double
    /// What the supply may deliver to the LEDs; nil sets no budget.
    public var supplyMilliamps: Double?

    public init(gamma: Double = 2.2, brightness: Double = 0.5, milliampsPerChannel: Double = 20,
                idleMilliampsPerLED: Double = 1, supplyMilliamps: Double? = nil) {
        (self.gamma, self.brightness, self.milliampsPerChannel) = (gamma, brightness, milliampsPerChannel)
        (self.idleMilliampsPerLED, self.supplyMilliamps) = (idleMilliampsPerLED, supplyMilliamps)
    }

    /// The first setting that cannot work for `ledCount` LEDs, in words naming it.
    public func problem(ledCount: Int) -> String? {
        if !(gamma >= 1 && gamma <= 4) { return "gamma must be between 1 and 4, got \(gamma)" }
        if !(brightness > 0 && brightness <= 1) { return "brightness must be above 0 and at most 1, got \(brightness)" }
        if !(milliampsPerChannel > 0 && milliampsPerChannel <= 1000) { return "milliamps per channel must be above 0 and at most 1000, got \(milliampsPerChannel)" }
        if !(idleMilliampsPerLED >= 0 && idleMilliampsPerLED <= 100) { return "idle milliamps per LED must be between 0 and 100, got \(idleMilliampsPerLED)" }
        if let supplyMilliamps {
            let idle = idleMilliampsPerLED * Double(ledCount)
            if !(supplyMilliamps > idle) {
                return "the supply limit of \(Int(supplyMilliamps)) mA does not even cover \(ledCount) dark LEDs (\(Int(idle.rounded(.up))) mA)"
            }
        }
        return nil
    }

    /// Frame value (0...255) to channel value, gamma and brightness applied: one table lookup per channel.
    public func correctionTable(extraScale: Double = 1) -> [UInt8] {
        (0..<256).map { value in
            let linear = gamma == 1 ? Double(value) / 255 : pow(Double(value) / 255, gamma)
            return UInt8(min(255, (linear * brightness * extraScale * 255).rounded()))
        }
    }
}

/// The current budget (L5): the estimated draw of a frame, and the scaling that keeps it under
/// the supply limit. Integer arithmetic, so "never exceeds" holds exactly, not up to rounding.
public struct CurrentBudget: Hashable, Sendable {
    public let milliampsPerChannel: Double
    public let idleMilliampsPerLED: Double
    public let supplyMilliamps: Double?

    /// - Parameter dutyScale: the fraction of full current a channel value of 255 draws
    ///   (APA102's 5-bit global brightness below 31 lowers it).
    public init(_ safety: LEDSafety, dutyScale: Double = 1) {
        milliampsPerChannel = safety.milliampsPerChannel * dutyScale
        idleMilliampsPerLED = safety.idleMilliampsPerLED
        supplyMilliamps = safety.supplyMilliamps
    }

    /// Estimated draw in mA of `channels` (every channel of every LED, 0...255) on `ledCount` LEDs.
    public func estimate(_ channels: [UInt8], ledCount: Int) -> Double {
        var sum = 0
        for value in channels { sum += Int(value) }
        return idleMilliampsPerLED * Double(ledCount) + Double(sum) * milliampsPerChannel / 255
    }

    /// The largest channel sum the supply allows, or nil without a budget.
    func allowedSum(ledCount: Int) -> Int? {
        guard let supplyMilliamps else { return nil }
        let headroom = supplyMilliamps - idleMilliampsPerLED * Double(ledCount)
        guard headroom > 0 else { return 0 }
        return Int((headroom * 255 / milliampsPerChannel).rounded(.down))
    }

    /// Scales `channels` down evenly so the estimate stays within the supply; returns the scale
    /// applied (1 when the frame was within budget).
    @discardableResult
    public func apply(to channels: inout [UInt8], ledCount: Int) -> Double {
        var sum = 0
        channels.withUnsafeBufferPointer { for value in $0 { sum += Int(value) } }
        return apply(to: &channels, ledCount: ledCount, sum: sum)
    }

    /// The same, with the channels' sum already counted.
    @discardableResult
    public func apply(to channels: inout [UInt8], ledCount: Int, sum: Int) -> Double {
        guard let table = scaleTable(ledCount: ledCount, sum: sum) else { return 1 }
        table.withUnsafeBufferPointer { table in
            channels.withUnsafeMutableBufferPointer { buffer in
                for index in buffer.indices { buffer[index] = table[Int(buffer[index])] }
            }
        }
        return Double(table[255]) / 255
    }

    /// For a frame whose channels sum to `sum`: nil within budget, else each value's scaled
    /// value. 16.16 fixed point rounded down: each scaled value is at most value × allowed / sum,
    /// so the scaled sum is at most `allowed`.
    public func scaleTable(ledCount: Int, sum: Int) -> [UInt8]? {
        guard let scale = scaleFactor(ledCount: ledCount, sum: sum) else { return nil }
        return (0..<256).map { UInt8(($0 * scale) >> 16) }
    }

    /// The 16.16 factor of ``scaleTable(ledCount:sum:)`` (value → `value * factor >> 16`), nil
    /// within budget. Any smaller factor keeps the frame within budget too.
    func scaleFactor(ledCount: Int, sum: Int) -> Int? {
        guard let allowed = allowedSum(ledCount: ledCount), sum > allowed else { return nil }
        return (allowed << 16) / sum
    }
}
