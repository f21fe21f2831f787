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
        typealias LED = Service.Display.LED
        self.init()
        device = try LED.device.read(reader)
        if let name = try LED.chip.read(reader) { chip = Chip(rawValue: name)! }
        if let value = try LED.address.read(reader) { address = UInt8(value) }
        board = try LED.board.read(reader)
        if let text = try LED.geometry.read(reader) {
            guard let size = PixelSize(parsing: text), size.width * size.height <= 16_384 else {
                throw reader.error(LED.geometry.key, "must be WIDTHxHEIGHT in LEDs, at most 16384 of them, such as \"32x8\" or \"60x1\", got \"\(text)\"")
            }
            geometry = size
        }
        if let text = try LED.tile.read(reader) {
            guard let size = PixelSize(parsing: text) else { throw reader.error(LED.tile.key, "must be WIDTHxHEIGHT such as \"8x8\", got \"\(text)\"") }
            tile = size
        }
        if let layout = try LED.layout.read(reader) { serpentine = layout == "serpentine" }
        if let corner = try LED.origin.read(reader) { origin = LEDLayout.Corner(rawValue: corner)! }
        if let text = try LED.lines.read(reader) { lines = LEDLayout.Order(rawValue: text)! }
        if let text = try LED.order.read(reader) {
            guard let order = LEDColorOrder(text) else {
                throw reader.error(LED.order.key, "must name each of r, g and b once, and w for RGBW chips, such as \"grb\" or \"grbw\", got \"\(text)\"")
            }
            self.order = order
        }
        safety.brightness = try LED.brightness.read(reader) ?? safety.brightness
        safety.gamma = try LED.gamma.read(reader) ?? safety.gamma
        safety.milliampsPerChannel = try LED.milliampsPerChannel.read(reader) ?? safety.milliampsPerChannel
        safety.idleMilliampsPerLED = try LED.idleMilliamps.read(reader) ?? safety.idleMilliampsPerLED
        safety.supplyMilliamps = try LED.supplyMilliamps.read(reader)
        if let hz = try LED.spiHz.read(reader) { spiHz = UInt32(hz) }
        scrollSpeed = try LED.scrollSpeed.read(reader) ?? scrollSpeed

        // Checks across keys, each naming the key a person would change.
        switch backend {
        case .ledSPI:
            guard chip.isSPI else { throw reader.error(LED.chip.key, "\(chip.rawValue) is an I2C chip; use display.backend = \"led-i2c\" or an SPI chip (ws2812, sk6812, apa102, sk9822)") }
            guard device != nil else { throw reader.error(LED.device.key, "is required for led-spi, such as \"/dev/spidev0.0\"") }
        case .ledI2C:
            guard !chip.isSPI else { throw reader.error(LED.chip.key, "\(chip.rawValue) is an SPI chip; use display.backend = \"led-spi\" or an I2C chip (is31fl3731, ht16k33)") }
            guard device != nil else { throw reader.error(LED.device.key, "is required for led-i2c, such as \"/dev/i2c-1\"") }
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
                throw reader.error(LED.board.key, boards.isEmpty ? "applies to I2C chips only; \(chip.rawValue) takes led.geometry"
                                   : "must be one of \(boards.joined(separator: ", ")) for \(chip.rawValue), got \"\(board)\"")
            }
        }
        if !chip.isSPI, reader.document[LED.geometry.key] != nil, size != geometry {
            throw reader.error(LED.geometry.key, "\(chip.rawValue) takes its size from led.board (\(size)); leave led.geometry out")
        }
        if chip.isSPI, reader.document[LED.address.key] != nil {
            throw reader.error(LED.address.key, "applies to I2C chips only; \(chip.rawValue) is on SPI")
        }
        if let order, order.hasWhite, chip != .sk6812 {
            throw reader.error(LED.order.key, "\(chip.rawValue) has no white channel (only sk6812 RGBW has), got \"\(order)\"")
        }
        do {
            _ = try layout()
        } catch {
            throw reader.error(reader.document[LED.tile.key] != nil ? LED.tile.key : LED.geometry.key, error.description)
        }
        if let problem = safety.problem(ledCount: size.width * size.height) {
            throw reader.error(LED.supplyMilliamps.key, problem)
        }
    }
}

extension Service.Display {
    /// `[led]` (L1, L2, L5), the display service's: which LEDs, how they are wired, their limits.
    enum LED {
        static let device = Setting<String?>.text("led.device", reload: .restart)
        /// The page says "ws2812 (the default)".
        static let chip = Setting<String>.choice("led.chip", among: LEDSettings.Chip.allCases.map(\.rawValue), default: LEDSettings.Chip.ws2812.rawValue,
                                                 reload: .restart).showing(default: nil)
        static let address = Setting<Int?>.integer("led.address", in: 0x03...0x77, reload: .restart, shownDefault: "the board's")
            .showing(range: "0x03 to 0x77")
        static let board = Setting<String?>.text("led.board", reload: .restart)
        static let geometry = Setting<String?>.text("led.geometry", reload: .restart, shownDefault: "\"32x8\"")
        static let tile = Setting<String?>.text("led.tile", reload: .restart, shownDefault: "one panel")
        static let layout = Setting<String>.choice("led.layout", among: ["serpentine", "progressive"], default: "serpentine", reload: .restart)
        /// The page says "top-left (the default)".
        static let origin = Setting<String>.choice("led.origin", among: LEDLayout.Corner.allCases.map(\.rawValue), default: LEDLayout.Corner.topLeft.rawValue,
                                                   reload: .restart).showing(default: nil)
        static let lines = Setting<String>.choice("led.lines", among: LEDLayout.Order.allCases.map(\.rawValue), default: LEDLayout.Order.rows.rawValue,
                                                  reload: .restart)
        static let order = Setting<String?>.text("led.order", reload: .restart)
        static let brightness = Setting<Double>.number("led.brightness", default: LEDSafety().brightness, in: 0.01...1, reload: .restart)
        static let gamma = Setting<Double>.number("led.gamma", default: LEDSafety().gamma, in: 1...4, reload: .restart)
        static let milliampsPerChannel = Setting<Double>.number("led.milliamps_per_channel", default: LEDSafety().milliampsPerChannel,
                                                                in: 0.1...1000, reload: .restart)
        static let idleMilliamps = Setting<Double>.number("led.idle_milliamps", default: LEDSafety().idleMilliampsPerLED, in: 0...100, reload: .restart)
        static let supplyMilliamps = Setting<Double?>.number("led.supply_milliamps", in: 1...1_000_000, reload: .restart, shownDefault: "none")
        static let spiHz = Setting<Int>.integer("led.spi_hz", default: Int(LEDSettings().spiHz), in: 100_000...50_000_000, reload: .restart)
        static let scrollSpeed = Setting<Double>.number("led.scroll_speed", default: LEDSettings().scrollSpeed, in: 1...200, reload: .restart)

        static let settings = [device.declaration, chip.declaration, address.declaration, board.declaration, geometry.declaration, tile.declaration,
                               layout.declaration, origin.declaration, lines.declaration, order.declaration, brightness.declaration, gamma.declaration,
                               milliampsPerChannel.declaration, idleMilliamps.declaration, supplyMilliamps.declaration, spiHz.declaration,
                               scrollSpeed.declaration]
    }
}
