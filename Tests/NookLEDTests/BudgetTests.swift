import NookDisplay
import NookLED
import NookTestTraits
import Testing

@Suite("L5 current budget")
struct BudgetTests {
    /// Estimated draw, from the datasheet figures, written out here rather than asked of the code.
    func draw(_ channels: [UInt8], leds: Int, perChannel: Double, idle: Double) -> Double {
        Double(leds) * idle + channels.reduce(0.0) { $0 + Double($1) / 255 * perChannel }
    }

    @Test func l5_randomFramesNeverExceedTheSupply() throws {
        var random = SplitMix(seed: 18)
        for round in 0..<300 {
            let width = Int.random(in: 1...40, using: &random)
            let height = Int.random(in: 1...10, using: &random)
            let white = Bool.random(using: &random)
            let leds = width * height
            let perChannel = Double.random(in: 5...60, using: &random)
            let idle = Double.random(in: 0...2, using: &random)
            let supply = Double(leds) * idle + Double.random(in: 1...Double(leds) * perChannel * 3, using: &random)
            let safety = LEDSafety(gamma: Double.random(in: 1...3, using: &random), brightness: Double.random(in: 0.05...1, using: &random),
                                   milliampsPerChannel: perChannel, idleMilliampsPerLED: idle, supplyMilliamps: supply)
            // Mostly bright frames: dark ones never reach a budget.
            let frame = Frame(width: width, height: height, pixels: (0..<leds).map { _ in
                Bool.random(using: &random) ? 0xFFFF_FFFF : 0xFF00_0000 | UInt32(truncatingIfNeeded: random.next()) & 0xFF_FFFF
            })
            var channels: [UInt8] = []
            LEDChain(layout: try LEDLayout(width: width, height: height), white: white, safety: safety).channels(of: frame, into: &channels)
            let estimate = draw(channels, leds: leds, perChannel: perChannel, idle: idle)
            #expect(estimate <= supply + 1e-9, "round \(round): \(estimate) mA on a \(supply) mA supply")
        }
    }

    @Test func l5_whatAWS2812StripSendsNeverExceedsTheSupply() throws {
        // The SPI path folds the budget into its symbol table: check the wire, decoded.
        var random = SplitMix(seed: 1812)
        // 15 of the 60 strips under qemu-user, where the 60 took over a minute.
        for round in 0..<(QEMUUser.running ? 15 : 60) {
            let leds = Int.random(in: 1...300, using: &random)
            let white = Bool.random(using: &random)
            let supply = Double(leds) + Double.random(in: 1...Double(leds) * 60, using: &random)
            let spi = RecordingSPI()
            let strip = try SPIStrip(chip: white ? .sk6812 : .ws2812, layout: try LEDLayout.strip(leds), order: white ? .grbw : .grb,
                                     safety: LEDSafety(gamma: 1, brightness: 1, milliampsPerChannel: 20, idleMilliampsPerLED: 1, supplyMilliamps: supply),
                                     transport: spi)
            let frame = Frame(width: leds, height: 1, pixels: (0..<leds).map { _ in 0xFF00_0000 | UInt32(truncatingIfNeeded: random.next()) & 0xFF_FFFF })
            try strip.show(frame)
            let values = try decodeWS2812(spi.transfers.withLock { $0.last!.bytes }, ledBytes: leds * (white ? 4 : 3)).values
            let estimate = draw(values, leds: leds, perChannel: 20, idle: 1)
            #expect(estimate <= supply, "round \(round): \(estimate) mA on a \(supply) mA supply")
        }
    }

    /// The WS2812 strip writes a frame with the last frame's budget scaling and keeps it only
    /// when it is the exact one or at most 1/256 dimmer: a run of frames that brighten, dim,
    /// jump and repeat on one strip must stay within the supply and within one step of the
    /// exact scaling (LEDChain's, computed afresh for each frame).
    @Test func l5_aStripShowingChangingFramesStaysWithinTheSupplyAndOneStepOfExactScaling() throws {
        var random = SplitMix(seed: 2812)
        let leds = 64
        let safety = LEDSafety(gamma: 1, brightness: 1, milliampsPerChannel: 20, idleMilliampsPerLED: 1, supplyMilliamps: 1500)
        let layout = try LEDLayout.strip(leds)
        let spi = RecordingSPI()
        let strip = try SPIStrip(chip: .ws2812, layout: layout, order: .grb, safety: safety, transport: spi)
        let chain = LEDChain(layout: layout, white: false, safety: safety)
        let base = (0..<leds).map { _ in UInt32(truncatingIfNeeded: random.next()) & 0xFF_FFFF }
        // A fade up past the budget, a slow wobble over it, a jump to dark and back, repeats.
        var levels: [Double] = stride(from: 0.1, through: 1, by: 0.05).map { $0 }
        levels += (0..<20).map { 0.9 + 0.002 * Double($0 % 5) }
        levels += [0.05, 1, 1, 0.6, 0.6, 1]
        for (step, level) in levels.enumerated() {
            let frame = Frame(width: leds, height: 1, pixels: base.map { value in
                let channels = [value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF].map { UInt32(Double($0) * level) }
                return 0xFF00_0000 | channels[0] << 16 | channels[1] << 8 | channels[2]
            })
            try strip.show(frame)
            let sent = try decodeWS2812(spi.transfers.withLock { $0.last!.bytes }, ledBytes: leds * 3).values
            #expect(draw(sent, leds: leds, perChannel: 20, idle: 1) <= 1500, "step \(step)")
            var exact: [UInt8] = []
            chain.channels(of: frame, into: &exact)
            // The wire is GRB, the chain RGB: compare LED by LED.
            for led in 0..<leds {
                let wire = [sent[led * 3 + 1], sent[led * 3], sent[led * 3 + 2]]
                for channel in 0..<3 {
                    let (got, want) = (Int(wire[channel]), Int(exact[led * 3 + channel]))
                    #expect(got <= want && want - got <= 1, "step \(step), LED \(led): \(got) against exact \(want)")
                }
            }
        }
    }

    @Test func l5_aFrameWithinBudgetIsUntouchedAndAnOverBudgetOneIsScaledEvenly() throws {
        // 256 WS2812s at full white: 256 × 3 × 20 mA + 256 mA ≈ 15.6 A on a 4 A supply.
        let safety = LEDSafety(gamma: 1, brightness: 1, milliampsPerChannel: 20, idleMilliampsPerLED: 1, supplyMilliamps: 4000)
        let layout = try LEDLayout(width: 32, height: 8)
        var channels: [UInt8] = []
        LEDChain(layout: layout, white: false, safety: safety).channels(of: Frame(width: 32, height: 8, fill: 0xFFFF_FFFF), into: &channels)
        let estimate = draw(channels, leds: 256, perChannel: 20, idle: 1)
        #expect(estimate <= 4000 && estimate > 3900, "scaled to just under the supply: \(estimate)")
        #expect(Set(channels).count == 1, "every channel scaled alike")
        var dim: [UInt8] = []
        LEDChain(layout: layout, white: false, safety: safety).channels(of: Frame(width: 32, height: 8, fill: 0xFF10_1010), into: &dim)
        #expect(dim.allSatisfy { $0 == 0x10 })
    }

    @Test func l5_aSupplyThatCannotFeedDarkLEDsIsNamed() {
        #expect(LEDSafety(supplyMilliamps: 100).problem(ledCount: 256) == "the supply limit of 100 mA does not even cover 256 dark LEDs (256 mA)")
        #expect(LEDSafety(brightness: 0).problem(ledCount: 1) != nil)
        #expect(LEDSafety(supplyMilliamps: 4000).problem(ledCount: 256) == nil)
    }
}
