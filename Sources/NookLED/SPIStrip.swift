import NookDisplay

/// The chips an SPI LED chain can be made of (L1).
public enum SPIChip: String, CaseIterable, Sendable {
    case ws2812, sk6812, apa102, sk9822

    public var defaultOrder: LEDColorOrder {
        switch self {
        case .ws2812, .sk6812: .grb
        case .apa102, .sk9822: .bgr
        }
    }
}

/// WS2812/SK6812 or APA102/SK9822 LEDs on one SPI bus (L1, L5): each frame through the layout,
/// gamma, brightness limit and current budget, encoded, and sent as one transfer.
public final class SPIStrip: LEDDriver {
    public let chip: SPIChip
    public let layout: LEDLayout
    public let order: LEDColorOrder
    /// The clock of each transfer: the WS2812 symbol clock, or the configured APA102 clock.
    public let speedHz: UInt32
    private let transport: any SPITransport
    private let chain: LEDChain
    private let apa102: APA102Encoder?
    private var channels: [UInt8] = []
    private var bytes: [UInt8] = []
    /// WS2812/SK6812 RGB: the one-pass path from frame to symbols.
    private var rgbPath: WS2812Path?

    public init(chip: SPIChip, layout: LEDLayout, order: LEDColorOrder? = nil, safety: LEDSafety,
                transport: any SPITransport, apa102SpeedHz: UInt32 = 8_000_000) throws(LEDError) {
        let order = order ?? chip.defaultOrder
        if let problem = safety.problem(ledCount: layout.count) { throw LEDError(problem) }
        switch chip {
        case .ws2812, .sk6812:
            speedHz = WS2812Encoder.spiHz
            apa102 = nil
            chain = LEDChain(layout: layout, white: order.hasWhite, safety: safety)
        case .apa102, .sk9822:
            guard !order.hasWhite else { throw LEDError("\(chip.rawValue) has no white channel; order \"\(order)\" names one") }
            speedHz = apa102SpeedHz
            let global = APA102Encoder.globalBrightness(for: safety.brightness)
            apa102 = APA102Encoder(order: order, globalBrightness: global)
            chain = LEDChain(layout: layout, white: false, safety: safety, dutyScale: Double(global) / 31, extraScale: 31 / Double(global))
        }
        (self.chip, self.layout, self.order, self.transport) = (chip, layout, order, transport)
        if apa102 == nil, order.count == 3 { rgbPath = WS2812Path(chain: chain, order: order) }
    }

    public var size: PixelSize { PixelSize(width: layout.width, height: layout.height) }
    public var name: String { "\(chip.rawValue) \(layout)" }

    public func show(_ frame: Frame) throws(LEDError) {
        if let apa102 {
            chain.channels(of: frame, into: &channels)
            apa102.encode(channels, into: &bytes)
        } else if rgbPath != nil {
            rgbPath!.encode(frame, into: &bytes)
        } else {
            let scale = chain.unscaledChannels(of: frame, into: &channels)
            WS2812Encoder(order: order).encode(channels, scale: scale, into: &bytes)
        }
        try transport.transfer(bytes, speedHz: speedHz)
    }

    private func encode() {
        if let apa102 { apa102.encode(channels, into: &bytes) } else { WS2812Encoder(order: order).encode(channels, into: &bytes) }
    }

    /// Every LED dark (the chain still needs a whole frame to latch it).
    public func clear() throws(LEDError) {
        channels = [UInt8](repeating: 0, count: layout.count * chain.channelsPerLED)
        encode()
        try transport.transfer(bytes, speedHz: speedHz)
    }

    /// Bytes per frame over the clock: what the bus allows, capped at 60.
    public var maximumFrameRate: Double {
        let frameBytes = apa102 != nil ? 8 + layout.count * 4 + APA102Encoder.endBytes(ledCount: layout.count)
            : WS2812Encoder.byteCount(ledCount: layout.count, channelsPerLED: chain.channelsPerLED)
        return min(60, Double(speedHz) / Double(frameBytes * 8))
    }

}
