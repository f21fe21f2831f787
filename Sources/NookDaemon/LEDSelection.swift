import NookLogging
import NookActivities
import NookDisplay
import NookLED
import NookPixel

/// The LED backends of DisplaySelection (L1, L2): `[led]` turned into a driver behind
/// `LEDDisplay`, or the mock at the LEDs' size.
enum LEDSelection {
    static func choose(_ config: DaemonConfig, clock: any NookClock, logger: Logger) throws(DaemonError) -> any DisplayBackend {
        let led = config.display.led
        let driver: any LEDDriver
        do throws(LEDError) {
            switch config.display.backend {
            case .ledSPI:
                guard let chip = SPIChip(rawValue: led.chip.rawValue), let device = led.device else {
                    throw LEDError("led-spi needs [led] chip (ws2812, sk6812, apa102 or sk9822) and device (such as /dev/spidev0.0)")
                }
                let transport = try SPIDevice(path: device)
                driver = try SPIStrip(chip: chip, layout: try led.layout(), order: led.order, safety: led.safety, transport: transport, apa102SpeedHz: led.spiHz)
            case .ledI2C:
                guard let device = led.device else { throw LEDError("led-i2c needs [led] device (such as /dev/i2c-1)") }
                switch led.chip {
                case .is31fl3731:
                    let board = IS31FL3731.Board(rawValue: led.board ?? "scroll-phat-hd") ?? .scrollPHATHD
                    let bus = try I2CDevice(path: device, address: led.address ?? board.defaultAddress)
                    driver = try IS31FL3731(bus: bus, board: board, safety: led.safety)
                case .ht16k33:
                    let bus = try I2CDevice(path: device, address: led.address ?? 0x70)
                    driver = try HT16K33(bus: bus, board: HT16K33.Board(rawValue: led.board ?? "8x8") ?? .matrix8x8, safety: led.safety)
                default:
                    throw LEDError("led-i2c drives is31fl3731 or ht16k33, not \(led.chip.rawValue)")
                }
            default:
                preconditionFailure("LEDSelection for the \(config.display.backend) backend")
            }
        } catch {
            throw DaemonError("cannot drive the LEDs through \(config.display.backend.rawValue): \(error)")
        }
        let display = LEDDisplay(driver: driver, clock: clock)
        var budget = ""
        if let supply = led.safety.supplyMilliamps { budget = ", current budget \(Int(supply)) mA" }
        logger.notice("driving \(display.mode.name) through \(config.display.backend.rawValue) at up to \(Int(display.mode.refreshHz)) frames a second, brightness \(led.safety.brightness)\(budget)")
        return display
    }
}
