import NookDisplay
import NookLED
import Testing

@Suite("L1 L5 SPI LED encoders, decoded back")
struct EncoderTests {
    static let layouts: [(Int, Int, (Int, Int), Bool, LEDLayout.Corner, LEDLayout.Order)] = [
        (32, 8, (32, 8), true, .topLeft, .columns), (8, 8, (8, 8), false, .bottomRight, .rows),
        (16, 8, (8, 8), true, .topRight, .rows), (60, 1, (60, 1), false, .topLeft, .rows), (17, 7, (17, 7), true, .bottomLeft, .columns),
    ]

    func randomFrame(width: Int, height: Int, seed: UInt64) -> Frame {
        var random = SplitMix(seed: seed)
        return Frame(width: width, height: height, pixels: (0..<width * height).map { _ in 0xFF00_0000 | UInt32(truncatingIfNeeded: random.next()) & 0xFF_FFFF })
    }

    /// The pixels a decoded chain shows, placed by the wiring walk.
    func pixels(width: Int, height: Int, chain: [(Int, Int)], leds: [UInt32]) -> Frame {
        var frame = Frame(width: width, height: height)
        for (position, pixel) in chain.enumerated() { frame[pixel.0, pixel.1] = leds[position] }
        return frame
    }

    @Test(arguments: ["grb", "rgb", "brg"])
    func l1_ws2812SymbolsDecodeToTheFrameForEveryLayout(order: String) throws {
        let exact = LEDSafety(gamma: 1, brightness: 1)
        for (index, (width, height, panel, serpentine, origin, lineOrder)) in Self.layouts.enumerated() {
            let layout = try LEDLayout(width: width, height: height, panelWidth: panel.0, panelHeight: panel.1, serpentine: serpentine, origin: origin, order: lineOrder)
            let frame = randomFrame(width: width, height: height, seed: UInt64(index))
            var channels: [UInt8] = []
            LEDChain(layout: layout, white: false, safety: exact).channels(of: frame, into: &channels)
            var bytes: [UInt8] = []
            WS2812Encoder(order: LEDColorOrder(order)!).encode(channels, into: &bytes)
            let decoded = try decodeWS2812(bytes, ledBytes: layout.count * 3)
            #expect(decoded.resetMicroseconds >= 280, "WS2812B latches only after 280 µs low")
            let leds = (0..<layout.count).map { led -> UInt32 in
                let wire = Array(decoded.values[led * 3..<led * 3 + 3])
                return RGB(red: channel("r", of: wire, order: order), green: channel("g", of: wire, order: order), blue: channel("b", of: wire, order: order)).pixel
            }
            let chain = walk(width: width, height: height, panel: panel, serpentine: serpentine, origin: origin, order: lineOrder)
            #expect(pixels(width: width, height: height, chain: chain, leds: leds) == frame, "\(layout) in \(order)")
            // The strip's direct path (frame to symbols, no channel array) sends the same pixels.
            let spi = RecordingSPI()
            try SPIStrip(chip: .ws2812, layout: layout, order: LEDColorOrder(order)!, safety: exact, transport: spi).show(frame)
            let direct = try decodeWS2812(spi.transfers.withLock { $0.last!.bytes }, ledBytes: layout.count * 3)
            #expect(direct.resetMicroseconds >= 280)
            let directLEDs = (0..<layout.count).map { led -> UInt32 in
                let wire = Array(direct.values[led * 3..<led * 3 + 3])
                return RGB(red: channel("r", of: wire, order: order), green: channel("g", of: wire, order: order), blue: channel("b", of: wire, order: order)).pixel
            }
            #expect(pixels(width: width, height: height, chain: chain, leds: directLEDs) == frame, "SPIStrip: \(layout) in \(order)")
        }
    }

    @Test func l1_sk6812GRBWPutsTheGreyPartOnTheWhiteLED() throws {
        let layout = try LEDLayout.strip(3)
        let frame = Frame(width: 3, height: 1, pixels: [0xFFFF_FFFF, 0xFF40_8020, 0xFF00_00FF])
        var channels: [UInt8] = []
        LEDChain(layout: layout, white: true, safety: LEDSafety(gamma: 1, brightness: 1)).channels(of: frame, into: &channels)
        var bytes: [UInt8] = []
        WS2812Encoder(order: .grbw).encode(channels, into: &bytes)
        let values = try decodeWS2812(bytes, ledBytes: 12).values
        let leds = (0..<3).map { led -> [UInt8] in
            let wire = Array(values[led * 4..<led * 4 + 4])
            return ["r", "g", "b", "w"].map { channel(Character($0), of: wire, order: "grbw") }
        }
        #expect(leds == [[0, 0, 0, 255], [0x20, 0x60, 0, 0x20], [0, 0, 255, 0]])
    }

    @Test func l1_apa102FramesCarryGlobalBrightnessAndEnoughEndClocks() throws {
        for ledCount in [1, 16, 17, 60, 256] {
            let layout = try LEDLayout.strip(ledCount)
            let frame = randomFrame(width: ledCount, height: 1, seed: UInt64(ledCount))
            var channels: [UInt8] = []
            LEDChain(layout: layout, white: false, safety: LEDSafety(gamma: 1, brightness: 1)).channels(of: frame, into: &channels)
            var bytes: [UInt8] = []
            APA102Encoder(order: .bgr, globalBrightness: 31).encode(channels, into: &bytes)
            let decoded = try decodeAPA102(bytes, ledCount: ledCount)
            #expect(decoded.leds.allSatisfy { $0.global == 31 })
            let leds = decoded.leds.map { RGB(red: channel("r", of: $0.wire, order: "bgr"), green: channel("g", of: $0.wire, order: "bgr"), blue: channel("b", of: $0.wire, order: "bgr")).pixel }
            #expect(Frame(width: ledCount, height: 1, pixels: leds) == frame)
            // SK9822 latches on 32 zero bits; data needs one more clock edge per two LEDs.
            #expect(decoded.endBytes.prefix(4) == [0, 0, 0, 0])
            #expect((decoded.endBytes.count - 4) * 8 >= ledCount / 2)
        }
    }

    @Test func l5_apa102BrightnessLimitUsesTheGlobalStepThenTheValues() throws {
        let limit = 0.25
        let global = APA102Encoder.globalBrightness(for: limit)
        #expect(global == 8)
        let layout = try LEDLayout.strip(1)
        let chain = LEDChain(layout: layout, white: false, safety: LEDSafety(gamma: 1, brightness: limit), extraScale: 31 / Double(global))
        var channels: [UInt8] = []
        chain.channels(of: Frame(width: 1, height: 1, fill: 0xFFFF_FFFF), into: &channels)
        var bytes: [UInt8] = []
        APA102Encoder(order: .bgr, globalBrightness: global).encode(channels, into: &bytes)
        let led = try decodeAPA102(bytes, ledCount: 1).leds[0]
        let duty = Double(led.global) / 31 * Double(led.wire[0]) / 255
        #expect(abs(duty - limit) < 0.01, "full white at a 25 % limit drives \(duty)")
    }

    @Test func l5_gammaAndBrightnessLimit() {
        let table = LEDSafety(gamma: 2.2, brightness: 0.5).correctionTable()
        #expect(table[0] == 0)
        #expect(table[255] == 128)
        #expect(table[128] < 32, "mid grey is about a fifth of full duty once gamma-corrected")
        #expect(zip(table, table.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(LEDSafety(gamma: 1, brightness: 1).correctionTable() == (0...255).map { UInt8($0) })
    }
}
