import NookDisplay

/// ISSI IS31FL3731 (L2): a 16x9 charlieplexed matrix of single-colour LEDs with 8-bit PWM,
/// on Pimoroni's Scroll pHAT HD (17x7), Adafruit's CharliePlex (16x9) and Pimoroni's LED SHIM
/// (28 RGB LEDs, each three of the chip's LEDs).
///
/// The chip has eight frame pages (LED on/off, blink, 144 PWM registers each) and a function
/// page (0x0B: mode, which frame is shown, shutdown), chosen by writing the page number to
/// the command register 0xFD. Nook draws into the frame not on display and then switches the
/// shown frame, so a half-written frame is never seen.
///
/// Every register is written with SMBus "write byte data", one register at a time, and only
/// the PWM registers that differ from what that frame page already holds: the kernel's
/// `i2c-stub`, which proves this driver in the VM, applies pages to byte writes only (its
/// block writes ignore the page), and a marquee step changes few LEDs. A full frame is 147
/// writes, about 11 ms at 400 kHz.
public final class IS31FL3731: LEDDriver {
    public enum Board: String, CaseIterable, Sendable {
        /// Pimoroni Scroll pHAT HD / Scroll HAT Mini: 17x7, wired across the chip's halves.
        case scrollPHATHD = "scroll-phat-hd"
        /// The chip's own 16x9 grid, LED n at register n (Adafruit CharliePlex FeatherWing).
        case matrix16x9 = "16x9"
        /// Pimoroni LED SHIM: a strip of 28 RGB LEDs (an ambient strip, L4), at address 0x75.
        case ledSHIM = "led-shim"

        public var size: PixelSize {
            switch self {
            case .scrollPHATHD: PixelSize(width: 17, height: 7)
            case .matrix16x9: PixelSize(width: 16, height: 9)
            case .ledSHIM: PixelSize(width: 28, height: 1)
            }
        }

        /// The board's I2C address as shipped (the LED SHIM's ADDR pad is cut to 0x75).
        public var defaultAddress: UInt8 { self == .ledSHIM ? 0x75 : 0x74 }

        /// True where each pixel is three chip LEDs (red, green, blue), not one.
        public var isRGB: Bool { self == .ledSHIM }

        /// The PWM register offsets (0...143) of LED n's red, green and blue on the LED SHIM,
        /// LED 0 first. The board routes them irregularly across the chip's matrix, so this is
        /// a table: the `LOOKUP` of Pimoroni's ledshim Python library (github.com/pimoroni/ledshim,
        /// `library/ledshim/__init__.py`), as its ports to other languages repeat it.
        static let ledSHIMRegisters: [(red: UInt8, green: UInt8, blue: UInt8)] = [
            (118, 69, 85), (117, 68, 101), (116, 84, 100), (115, 83, 99), (114, 82, 98), (113, 81, 97), (112, 80, 96),
            (134, 21, 37), (133, 20, 36), (132, 19, 35), (131, 18, 34), (130, 17, 50), (129, 33, 49), (128, 32, 48),
            (127, 47, 63), (121, 41, 57), (122, 25, 58), (123, 26, 42), (124, 27, 43), (125, 28, 44), (126, 29, 45),
            (15, 95, 111), (8, 89, 105), (9, 90, 106), (10, 91, 107), (11, 92, 108), (12, 76, 109), (13, 77, 93),
        ]

        /// The PWM register offsets of pixel (x, y)'s red, green and blue, for an RGB board.
        public func rgbRegisters(x: Int, y: Int) -> (red: Int, green: Int, blue: Int) {
            precondition(isRGB && y == 0, "\(rawValue) has no RGB pixel (\(x), \(y))")
            let entry = Self.ledSHIMRegisters[x]
            return (Int(entry.red), Int(entry.green), Int(entry.blue))
        }

        /// The PWM register offset (0...143) of pixel (x, y). For the Scroll pHAT HD this is
        /// Pimoroni's mapping, with the vertical flip their library applies on output.
        public func ledIndex(x: Int, y: Int) -> Int {
            switch self {
            case .matrix16x9:
                return y * 16 + x
            case .ledSHIM:
                preconditionFailure("the LED SHIM's pixels are RGB: rgbRegisters(x:y:)")
            case .scrollPHATHD:
                return x <= 8 ? (8 - x) * 16 + (6 - y) : (x - 8) * 16 + y - 8
            }
        }
    }

    static let commandRegister: UInt8 = 0xFD
    static let functionPage: UInt8 = 0x0B
    static let pwmStart: UInt8 = 0x24
    enum Function {
        static let mode: UInt8 = 0x00, pictureFrame: UInt8 = 0x01, displayOption: UInt8 = 0x05, audioSync: UInt8 = 0x06, shutdown: UInt8 = 0x0A
    }

    public let board: Board
    public var size: PixelSize { board.size }
    public var name: String { "IS31FL3731 (\(board.rawValue))" }
    private let bus: any I2CTransport
    private let table: [UInt8]
    /// The frame page being shown (0 or 1); the next frame goes to the other.
    private var shown: UInt8 = 0
    private var pwm = [UInt8](repeating: 0, count: 144)
    /// What each of frame pages 0 and 1 holds, so only changed registers are written.
    private var pages = [[UInt8]](repeating: [UInt8](repeating: 0, count: 144), count: 2)

    /// Sets the chip up: picture mode, frames 0 and 1 with every LED enabled and dark, frame
    /// 0 shown, then out of shutdown.
    public init(bus: any I2CTransport, board: Board, safety: LEDSafety) throws(LEDError) {
        self.bus = bus
        self.board = board
        table = safety.correctionTable()
        try setUp()
    }

    /// False after ``clear()``: the next frame sets the chip up again first, so unblanking
    /// works, and so does a chip that lost power meanwhile (its registers back at reset values).
    private var awake = false

    private func setUp() throws(LEDError) {
        try page(Self.functionPage)
        try bus.writeByteData(register: Function.shutdown, 0)
        try bus.writeByteData(register: Function.mode, 0)
        try bus.writeByteData(register: Function.pictureFrame, 0)
        try bus.writeByteData(register: Function.displayOption, 0)
        try bus.writeByteData(register: Function.audioSync, 0)
        let dark = [UInt8](repeating: 0, count: 144)
        for frame: UInt8 in [0, 1] {
            try page(frame)
            try write(from: 0x00, [UInt8](repeating: 0xFF, count: 18))
            try write(from: 0x12, [UInt8](repeating: 0, count: 18))
            try write(from: Self.pwmStart, dark)
            pages[Int(frame)] = dark
        }
        shown = 0
        try page(Self.functionPage)
        try bus.writeByteData(register: Function.shutdown, 1)
        awake = true
    }

    private func page(_ number: UInt8) throws(LEDError) {
        try bus.writeByteData(register: Self.commandRegister, number)
    }

    private func write(from register: UInt8, _ bytes: [UInt8]) throws(LEDError) {
        for (offset, byte) in bytes.enumerated() { try bus.writeByteData(register: register + UInt8(offset), byte) }
    }

    /// The PWM registers of frame page `number` that differ from what it holds.
    private func writePWM(page number: UInt8) throws(LEDError) {
        try page(number)
        for led in 0..<144 where pages[Int(number)][led] != pwm[led] {
            try bus.writeByteData(register: Self.pwmStart + UInt8(led), pwm[led])
            pages[Int(number)][led] = pwm[led]
        }
    }

    /// A single-colour LED shows the brightest channel: a tint stays visible at its strength.
    /// An RGB board's pixel is its three chip LEDs, each channel through the same correction.
    public func show(_ frame: Frame) throws(LEDError) {
        if !awake { try setUp() }
        if board.isRGB {
            for y in 0..<size.height {
                for x in 0..<size.width {
                    let value = frame[x, y]
                    let (red, green, blue) = board.rgbRegisters(x: x, y: y)
                    pwm[red] = table[Int(value >> 16 & 0xFF)]
                    pwm[green] = table[Int(value >> 8 & 0xFF)]
                    pwm[blue] = table[Int(value & 0xFF)]
                }
            }
        } else {
            fillSingleColour(frame)
        }
        let next: UInt8 = shown == 0 ? 1 : 0
        try writePWM(page: next)
        try page(Self.functionPage)
        try bus.writeByteData(register: Function.pictureFrame, next)
        shown = next
    }

    private func fillSingleColour(_ frame: Frame) {
        for y in 0..<size.height {
            for x in 0..<size.width {
                let value = frame[x, y]
                let level = max(value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF)
                pwm[board.ledIndex(x: x, y: y)] = table[Int(level)]
            }
        }
    }

    /// Every PWM register of both frames to zero, then software shutdown: dark, and drawing nothing.
    public func clear() throws(LEDError) {
        pwm = [UInt8](repeating: 0, count: 144)
        // Written in full, whatever the pages are thought to hold: this also runs after a bus error.
        pages = [[UInt8]](repeating: [UInt8](repeating: 0xFF, count: 144), count: 2)
        for frame: UInt8 in [0, 1] { try writePWM(page: frame) }
        try page(Self.functionPage)
        try bus.writeByteData(register: Function.shutdown, 0)
        awake = false
    }

    /// At most 147 byte writes a frame at 400 kHz: about 90 a second, capped at 60.
    public var maximumFrameRate: Double { 60 }
}

/// Holtek HT16K33 (L2): 16x8 single-colour LEDs on/off from 16 bytes of display RAM, with 16
/// dimming steps and hardware blink; on Adafruit's 8x8 and 16x8 matrix backpacks.
public final class HT16K33: LEDDriver {
    public enum Board: String, CaseIterable, Sendable {
        /// Adafruit 8x8 backpack: its columns are wired one place round (the library's `(x + 7) % 8`).
        case matrix8x8 = "8x8"
        /// Adafruit 16x8 backpack: the chip's rows straight.
        case matrix16x8 = "16x8"

        public var size: PixelSize { self == .matrix8x8 ? PixelSize(width: 8, height: 8) : PixelSize(width: 16, height: 8) }

        /// The RAM byte and bit of pixel (x, y).
        public func ramBit(x: Int, y: Int) -> (byte: Int, bit: Int) {
            switch self {
            case .matrix8x8: (y * 2, (x + 7) % 8)
            case .matrix16x8: (y * 2 + x / 8, x % 8)
            }
        }
    }

    enum Command {
        static let oscillatorOn: UInt8 = 0x21, standby: UInt8 = 0x20
        static let displayOff: UInt8 = 0x80, displayOn: UInt8 = 0x81
        static let dimming: UInt8 = 0xE0
    }

    public let board: Board
    public var size: PixelSize { board.size }
    public var name: String { "HT16K33 (\(board.rawValue))" }
    private let bus: any I2CTransport
    /// 0...15, from the brightness limit.
    public let dimming: UInt8

    public init(bus: any I2CTransport, board: Board, safety: LEDSafety) throws(LEDError) {
        self.bus = bus
        self.board = board
        dimming = UInt8(max(0, min(15, (safety.brightness * 16).rounded(.up) - 1)))
        try setUp()
    }

    /// False after ``clear()`` (standby): the next frame wakes the chip first.
    private var awake = false

    private func setUp() throws(LEDError) {
        try bus.writeByte(Command.oscillatorOn)
        try bus.writeRegisters(from: 0x00, [UInt8](repeating: 0, count: 16))
        try bus.writeByte(Command.dimming | dimming)
        try bus.writeByte(Command.displayOn)
        awake = true
    }

    /// An LED is on where the pixel's brightest channel is at least half: a pulsing blocker
    /// becomes a blink, the only way an on/off LED can pulse.
    public func show(_ frame: Frame) throws(LEDError) {
        if !awake { try setUp() }
        var ram = [UInt8](repeating: 0, count: 16)
        for y in 0..<size.height {
            for x in 0..<size.width {
                let value = frame[x, y]
                if max(value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF) >= 0x80 {
                    let (byte, bit) = board.ramBit(x: x, y: y)
                    ram[byte] |= 1 << bit
                }
            }
        }
        try bus.writeRegisters(from: 0x00, ram)
    }

    /// RAM to zero, display off, oscillator to standby.
    public func clear() throws(LEDError) {
        try bus.writeRegisters(from: 0x00, [UInt8](repeating: 0, count: 16))
        try bus.writeByte(Command.displayOff)
        try bus.writeByte(Command.standby)
        awake = false
    }

    public var maximumFrameRate: Double { 60 }
}
