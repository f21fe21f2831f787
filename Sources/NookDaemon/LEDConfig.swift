import NookConfig
import NookDisplay
import NookLED

/// The `[led]` table (L1, L2, L5): which LEDs `display.backend = "led-spi"`, `"led-i2c"` or
/// `"led-mock"` drives, how they are wired, and the safety limits. Every value is checked at
/// start, each error naming its key and line.
public struct LEDSettings: Hashable, Sendable {
    public enum Chip: String, CaseIterable, Sendable {
        case ws2812, sk6812, apa102, sk9822, is31fl3731, ht16k33

        var isSPI: Bool { SPIChip(rawValue: rawValue) != nil }
    }

    /// `/dev/spidev0.0` (led-spi) or `/dev/i2c-1` (led-i2c).
    public var device: String?
    public var chip: Chip = .ws2812
    /// I2C address; defaults to the board's (IS31FL3731 0x74, LED SHIM 0x75, HT16K33 0x70).
    public var address: UInt8?
    /// I2C boards: `scroll-phat-hd`, `16x9`, `led-shim` (IS31FL3731), `8x8`, `16x8` (HT16K33).
    public var board: String?
    /// SPI chains: the whole display in LEDs (`32x8`, `60x1` for a strip).
    public var geometry = PixelSize(width: 32, height: 8)
    /// One panel of a tiled display (`8x8`); nil: one panel.
    public var tile: PixelSize?
    public var serpentine = true
    public var origin: LEDLayout.Corner = .topLeft
    public var lines: LEDLayout.Order = .rows
    public var order: LEDColorOrder?
    public var safety = LEDSafety()
    /// APA102/SK9822 clock.
    public var spiHz: UInt32 = 8_000_000
    /// Marquee speed, LED columns per second.
    public var scrollSpeed: Double = 16

    public init() {}

    static let keys = ["device", "chip", "address", "board", "geometry", "tile", "layout", "origin", "lines", "order",
                       "brightness", "gamma", "milliamps_per_channel", "idle_milliamps", "supply_milliamps", "spi_hz", "scroll_speed"]

    /// The LEDs' size: the I2C board's, else the configured geometry.
    public var size: PixelSize {
        switch chip {
        case .is31fl3731: IS31FL3731.Board(rawValue: board ?? "scroll-phat-hd")?.size ?? geometry
        case .ht16k33: HT16K33.Board(rawValue: board ?? "8x8")?.size ?? geometry
        default: geometry
        }
    }

    public func layout() throws(LEDError) -> LEDLayout {
        try LEDLayout(width: size.width, height: size.height, panelWidth: tile?.width, panelHeight: tile?.height,
                      serpentine: serpentine, origin: origin, order: lines)
    }

    init(reading reader: ConfigReader, backend: DaemonConfig.Backend) throws(ConfigError) {
        self.init()
        device = try reader.string("led.device")
        if let name = try reader.choice("led.chip", among: Chip.allCases.map(\.rawValue)) { chip = Chip(rawValue: name)! }
        if let value = try reader.integer("led.address", in: 0x03...0x77) { address = UInt8(value) }
        board = try reader.string("led.board")
        if let text = try reader.string("led.geometry") {
            guard let size = PixelSize(parsing: text), size.width * size.height <= 16_384 else {
                throw reader.error("led.geometry", "must be WIDTHxHEIGHT in LEDs, at most 16384 of them, such as \"32x8\" or \"60x1\", got \"\(text)\"")
            }
            geometry = size
        }
        if let text = try reader.string("led.tile") {
            guard let size = PixelSize(parsing: text) else { throw reader.error("led.tile", "must be WIDTHxHEIGHT such as \"8x8\", got \"\(text)\"") }
            tile = size
        }
        if let layout = try reader.choice("led.layout", among: ["serpentine", "progressive"]) { serpentine = layout == "serpentine" }
        if let corner = try reader.choice("led.origin", among: LEDLayout.Corner.allCases.map(\.rawValue)) { origin = LEDLayout.Corner(rawValue: corner)! }
        if let text = try reader.choice("led.lines", among: LEDLayout.Order.allCases.map(\.rawValue)) { lines = LEDLayout.Order(rawValue: text)! }
        if let text = try reader.string("led.order") {
            guard let order = LEDColorOrder(text) else {
                throw reader.error("led.order", "must name each of r, g and b once, and w for RGBW chips, such as \"grb\" or \"grbw\", got \"\(text)\"")
            }
            self.order = order
        }
        safety.brightness = try reader.number("led.brightness", in: 0.01...1) ?? safety.brightness
        safety.gamma = try reader.number("led.gamma", in: 1...4) ?? safety.gamma
        safety.milliampsPerChannel = try reader.number("led.milliamps_per_channel", in: 0.1...1000) ?? safety.milliampsPerChannel
        safety.idleMilliampsPerLED = try reader.number("led.idle_milliamps", in: 0...100) ?? safety.idleMilliampsPerLED
        safety.supplyMilliamps = try reader.number("led.supply_milliamps", in: 1...1_000_000)
        if let hz = try reader.integer("led.spi_hz", in: 100_000...50_000_000) { spiHz = UInt32(hz) }
        scrollSpeed = try reader.number("led.scroll_speed", in: 1...200) ?? scrollSpeed

        // Checks across keys, each naming the key a person would change.
        switch backend {
        case .ledSPI:
            guard chip.isSPI else { throw reader.error("led.chip", "\(chip.rawValue) is an I2C chip; use display.backend = \"led-i2c\" or an SPI chip (ws2812, sk6812, apa102, sk9822)") }
            guard device != nil else { throw reader.error("led.device", "is required for led-spi, such as \"/dev/spidev0.0\"") }
        case .ledI2C:
            guard !chip.isSPI else { throw reader.error("led.chip", "\(chip.rawValue) is an SPI chip; use display.backend = \"led-spi\" or an I2C chip (is31fl3731, ht16k33)") }
            guard device != nil else { throw reader.error("led.device", "is required for led-i2c, such as \"/dev/i2c-1\"") }
        default:
            break
        }
        if let board {
            let boards: [String] = switch chip {
            case .is31fl3731: IS31FL3731.Board.allCases.map(\.rawValue)
            case .ht16k33: HT16K33.Board.allCases.map(\.rawValue)
            default: []
            }
            guard boards.contains(board) else {
                throw reader.error("led.board", boards.isEmpty ? "applies to I2C chips only; \(chip.rawValue) takes led.geometry"
                                   : "must be one of \(boards.joined(separator: ", ")) for \(chip.rawValue), got \"\(board)\"")
            }
        }
        if !chip.isSPI, reader.document["led.geometry"] != nil, size != geometry {
            throw reader.error("led.geometry", "\(chip.rawValue) takes its size from led.board (\(size)); leave led.geometry out")
        }
        if chip.isSPI, reader.document["led.address"] != nil {
            throw reader.error("led.address", "applies to I2C chips only; \(chip.rawValue) is on SPI")
        }
        if let order, order.hasWhite, chip != .sk6812 {
            throw reader.error("led.order", "\(chip.rawValue) has no white channel (only sk6812 RGBW has), got \"\(order)\"")
        }
        do {
            _ = try layout()
        } catch {
            throw reader.error(reader.document["led.tile"] != nil ? "led.tile" : "led.geometry", error.description)
        }
        if let problem = safety.problem(ledCount: size.width * size.height) {
            throw reader.error("led.supply_milliamps", problem)
        }
    }
}
