import NookActivities
import NookDisplay
import NookLED
import NookPixel
import NookTestSupport
import Testing

/// Pimoroni's LED SHIM: 28 RGB LEDs on an IS31FL3731, each colour one of the chip's LEDs.
@Suite("L2 L4 LED SHIM on the IS31FL3731")
struct LEDSHIMTests {
    /// Where Pimoroni's ledshim library (github.com/pimoroni/ledshim) puts each LED's channels,
    /// written here as three per-colour columns so a slip in the driver's table of triples shows.
    static let red: [Int] = [118, 117, 116, 115, 114, 113, 112, 134, 133, 132, 131, 130, 129, 128,
                             127, 121, 122, 123, 124, 125, 126, 15, 8, 9, 10, 11, 12, 13]
    static let green: [Int] = [69, 68, 84, 83, 82, 81, 80, 21, 20, 19, 18, 17, 33, 32,
                               47, 41, 25, 26, 27, 28, 29, 95, 89, 90, 91, 92, 76, 77]
    static let blue: [Int] = [85, 101, 100, 99, 98, 97, 96, 37, 36, 35, 34, 50, 49, 48,
                              63, 57, 58, 42, 43, 44, 45, 111, 105, 106, 107, 108, 109, 93]

    @Test func l2_ledSHIMPutsEachLEDsRedGreenAndBlueOnPimoronisRegisters() throws {
        let chip = IS31FL3731Model()
        let driver = try IS31FL3731(bus: chip, board: .ledSHIM, safety: LEDSafety(gamma: 1, brightness: 1))
        #expect(driver.size == PixelSize(width: 28, height: 1))
        // Every channel of every LED a value of its own (1...84), so a swap or a shared register shows.
        var frame = Frame(width: 28, height: 1)
        for led in 0..<28 {
            frame[led, 0] = 0xFF00_0000 | UInt32(led * 3 + 1) << 16 | UInt32(led * 3 + 2) << 8 | UInt32(led * 3 + 3)
        }
        try driver.show(frame)
        let shown = chip.shownFrame
        for led in 0..<28 {
            #expect(chip.pwm(frame: shown, led: Self.red[led]) == UInt8(led * 3 + 1), "LED \(led) red")
            #expect(chip.pwm(frame: shown, led: Self.green[led]) == UInt8(led * 3 + 2), "LED \(led) green")
            #expect(chip.pwm(frame: shown, led: Self.blue[led]) == UInt8(led * 3 + 3), "LED \(led) blue")
        }
        let used = Set(Self.red + Self.green + Self.blue)
        #expect(used.count == 84, "no register serves two channels")
        #expect((0..<144).filter { !used.contains($0) }.allSatisfy { chip.pwm(frame: shown, led: $0) == 0 },
                "nothing lands on a chip LED the SHIM does not wire")
        // The driver's own table agrees, register for register.
        let board = IS31FL3731.Board.ledSHIM
        let table = (0..<28).map { board.rgbRegisters(x: $0, y: 0) }
        #expect(table.map(\.red) == Self.red && table.map(\.green) == Self.green && table.map(\.blue) == Self.blue)
        #expect(board.defaultAddress == 0x75 && IS31FL3731.Board.scrollPHATHD.defaultAddress == 0x74)
        try driver.clear()
        #expect(chip.isShutDown && (0..<144).allSatisfy { chip.pwm(frame: 0, led: $0) == 0 && chip.pwm(frame: 1, led: $0) == 0 })
    }

    @Test func l4_ledSHIMShowsAnAmbientCardAsItsTintWithProgressAsFill() throws {
        let chip = IS31FL3731Model()
        let driver = try IS31FL3731(bus: chip, board: .ledSHIM, safety: LEDSafety(gamma: 1, brightness: 1))
        let renderer = PixelRenderer(size: driver.size)
        #expect(renderer.isStrip)
        var frame = Frame(width: 28, height: 1)
        renderer.render(NookActivity(title: "Copy", tint: .named(.cyan), progress: 0.25), elapsed: .zero, into: &frame)
        try driver.show(frame)
        let shown = chip.shownFrame
        let lit = (0..<28).map { led in
            (chip.pwm(frame: shown, led: Self.red[led]), chip.pwm(frame: shown, led: Self.green[led]), chip.pwm(frame: shown, led: Self.blue[led]))
        }
        // A quarter of 28 LEDs: the first 7 in full cyan, the rest in a dimmer cyan.
        #expect(lit.prefix(7).allSatisfy { $0 == (0, 0xFF, 0xFF) })
        #expect(lit.dropFirst(7).allSatisfy { $0.0 == 0 && $0.1 > 0 && $0.1 < 0xFF && $0.1 == $0.2 })
    }
}
