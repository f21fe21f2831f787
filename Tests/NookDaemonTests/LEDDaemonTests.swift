import Foundation
import NookActivities
import NookConfig
import NookDisplay
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing
@testable import NookDaemon

@Suite("L1 L2 L3 N1 LED displays in nookd: [led] config, the LED mock, the marquee's dwell", .ownThreads)
struct LEDDaemonTests {
    /// Pinned first: an in-process card screen or PNG draws text, and fontconfig reads its
    /// configuration once per process (the golden images depend on it).
    init() { TestFonts.pin() }

    func parse(_ text: String) throws(ConfigError) -> DaemonConfig {
        try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml")))
    }

    @Test func l1_l2_theLEDTableIsRead() throws {
        let matrix = try parse("""
            [display]
            backend = "led-spi"

            [led]
            device = "/dev/spidev0.0"
            chip = "ws2812"
            geometry = "32x8"
            layout = "serpentine"
            lines = "columns"
            origin = "top-left"
            order = "grb"
            brightness = 0.2
            supply_milliamps = 3000
            """)
        #expect(matrix.display.backend == .ledSPI)
        #expect(matrix.display.led.size == PixelSize(width: 32, height: 8) && matrix.display.led.lines == .columns && matrix.display.led.serpentine)
        #expect(matrix.display.led.safety.brightness == 0.2 && matrix.display.led.safety.supplyMilliamps == 3000)
        let scroll = try parse("[display]\nbackend = \"led-i2c\"\n[led]\ndevice = \"/dev/i2c-1\"\nchip = \"is31fl3731\"\naddress = 0x74\nboard = \"scroll-phat-hd\"\n")
        #expect(scroll.display.led.size == PixelSize(width: 17, height: 7) && scroll.display.led.address == 0x74)
    }

    @Test func l2_theLEDSHIMIsChosenByItsBoardName() throws {
        let shim = try parse("[display]\nbackend = \"led-i2c\"\n[led]\ndevice = \"/dev/i2c-1\"\nchip = \"is31fl3731\"\nboard = \"led-shim\"\n")
        #expect(shim.display.led.size == PixelSize(width: 28, height: 1) && shim.display.led.board == "led-shim")
        #expect(throws: ConfigError.self) {
            try parse("[display]\nbackend = \"led-i2c\"\n[led]\ndevice = \"/dev/i2c-1\"\nchip = \"ht16k33\"\nboard = \"led-shim\"\n")
        }
    }

    @Test func r6_l4_rotationTurnsMatricesButNotStrips() {
        #expect(DaemonScreen.ledRotation(.quarter, size: PixelSize(width: 17, height: 7)) == .quarter)
        #expect(DaemonScreen.ledRotation(.half, size: PixelSize(width: 32, height: 8)) == .half)
        #expect(DaemonScreen.ledRotation(.half, size: PixelSize(width: 28, height: 1)) == .none)
        #expect(DaemonScreen.ledRotation(.quarter, size: PixelSize(width: 1, height: 60)) == .none)
    }

    @Test func n1_ledMistakesNameTheKeyAndLine() {
        let cases: [(String, String)] = [
            ("[display]\nbackend = \"led-spi\"\n[led]\ndevice = \"/dev/spidev0.0\"\nchip = \"is31fl3731\"\n",
             "nook.toml:5: led.chip: is31fl3731 is an I2C chip; use display.backend = \"led-i2c\" or an SPI chip (ws2812, sk6812, apa102, sk9822)"),
            ("[display]\nbackend = \"led-i2c\"\n[led]\nchip = \"ht16k33\"\n", "nook.toml: led.device: is required for led-i2c, such as \"/dev/i2c-1\""),
            ("[led]\norder = \"rgbx\"\n", "nook.toml:2: led.order: must name each of r, g and b once, and w for RGBW chips, such as \"grb\" or \"grbw\", got \"rgbx\""),
            ("[led]\nchip = \"apa102\"\norder = \"grbw\"\n", "nook.toml:3: led.order: apa102 has no white channel (only sk6812 RGBW has), got \"grbw\""),
            ("[led]\ngeometry = \"20x8\"\ntile = \"8x8\"\n", "nook.toml:3: led.tile: tiles of 8x8 do not divide a 20x8 display evenly"),
            ("[led]\nchip = \"ht16k33\"\nboard = \"scroll-phat-hd\"\n", "nook.toml:3: led.board: must be one of 8x8, 16x8 for ht16k33, got \"scroll-phat-hd\""),
            ("[led]\ngeometry = \"32x8\"\nsupply_milliamps = 100\n",
             "nook.toml:3: led.supply_milliamps: the supply limit of 100 mA does not even cover 256 dark LEDs (256 mA)"),
            ("[led]\nbrightness = 1.5\n", "nook.toml:2: led.brightness: must be from 0.01 to 1.0, got 1.5"),
            ("[led]\nlayout = \"zigzag\"\n", "nook.toml:2: led.layout: must be one of serpentine, progressive, got \"zigzag\""),
            ("[led]\nwidth = 3\n", "nook.toml:2: led.width: is not a known setting"),
            ("[led]\nchip = \"is31fl3731\"\ngeometry = \"32x8\"\n", "nook.toml:3: led.geometry: is31fl3731 takes its size from led.board (17x7); leave led.geometry out"),
            ("[led]\nchip = \"ws2812\"\naddress = 0x70\n", "nook.toml:3: led.address: applies to I2C chips only; ws2812 is on SPI"),
        ]
        for (text, message) in cases {
            do {
                _ = try parse(text)
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.description.hasPrefix(message), "\(error.description)")
            }
        }
    }

    @Test func l3_aTimedCardWhoseTitleScrollsStaysForOneFullPass() {
        let display = MockDisplay(size: PixelSize(width: 32, height: 8), clock: NookSystemClock())
        let screen = DaemonScreen(display: display, clock: NookSystemClock(), settings: .init(), scrollSpeed: 16, onWarning: { _ in })
        let long = NookActivity(title: "Backup of /home finished at last", dwell: .seconds(1))
        // 32 characters of 5 columns, less one, plus the 8-column gap, at 16 a second.
        #expect(screen.fitted(long).dwell == .nookSeconds(Double(32 * 5 - 1 + 8) / 16))
        let short = NookActivity(title: "OK", dwell: .seconds(1))
        #expect(screen.fitted(short).dwell == .seconds(1))
        let blocker = NookActivity(title: "Backup of /home finished at last", presentation: .blocker(timeout: nil))
        #expect(screen.fitted(blocker) == blocker, "a blocker stays anyway")
        let invalid = NookActivity(title: "Backup of /home finished at last", dwell: .zero)
        #expect(screen.fitted(invalid) == invalid, "a zero dwell is refused as sent, not lengthened into a valid one")
        let cards = DaemonScreen(cards: .init(display: MockDisplay(size: PixelSize(width: 320, height: 170), clock: NookSystemClock()), clock: NookSystemClock()), settings: .init())
        #expect(cards.fitted(long) == long, "cairo cards ellipsise; their dwell is the sender's")
    }

    @Test func l3_nookdOnTheLEDMockDrawsRoundLEDFramesAndStretchesAScrollingDwell() throws {
        let scratch = Scratch()
        let frames = scratch.path + "/frames"
        let config = scratch.file("nook.toml", "[display]\nbackend = \"led-mock\"\n[led]\ngeometry = \"32x8\"\nscroll_speed = 40\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config, "--display", "led-mock", "--frames", frames])
        let title = "The nightly backup of every home directory finished"
        // Held back while the list reads its dwell: on the glass, its 6.55 s may end before a
        // loaded machine gets to the list; resumed below to draw its frames.
        #expect(try nookctl(["suspend"], socket: daemon.socket).status == 0)
        let sent = try nookctl(["enqueue", "--title", title, "--dwell", "0.5", "--icon", "checkmark.circle", "--tint", "green", "--json"], socket: daemon.socket)
        #expect(sent.status == 0, "\(sent.error)")
        let listed = try nookctl(["list", "--json"], socket: daemon.socket)
        let pass = Double((title.count * 5 - 1 + 8)) / 40
        #expect(listed.output.contains("\"dwell\":\(pass)"), "the dwell became one marquee pass: \(listed.output)")
        #expect(try nookctl(["resume"], socket: daemon.socket).status == 0)
        try eventually("the LED frames on disk") { FileManager.default.fileExists(atPath: frames + "/latest.png") }
        let png = try Data(contentsOf: URL(fileURLWithPath: frames + "/latest.png"))
        // IHDR: width and height, big-endian, at bytes 16 and 20.
        let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 32 * 16 && height == 8 * 16, "round-LED picture of 32x8 LEDs: \(width)x\(height)")
        let status = try nookctl(["status"], socket: daemon.socket)
        #expect(status.output.contains("led-mock"), "\(status.output)")
        #expect(daemon.stop().status == 0)
    }
}
