import NookDisplay
import NookLED
import NookTestSupport
import Testing

/// Records every SPI transfer.
final class RecordingSPI: SPITransport {
    let transfers = Locked<[(bytes: [UInt8], speedHz: UInt32)]>([])
    let failing = Locked(false)
    func transfer(_ bytes: [UInt8], speedHz: UInt32) throws(LEDError) {
        if failing.withLock({ $0 }) { throw LEDError("'ioctl SPI_IOC_MESSAGE' failed: (5) Input/output error") }
        transfers.withLock { $0.append((bytes, speedHz)) }
    }
}

/// The IS31FL3731 as its datasheet describes it: register 0xFD selects the page (frames 0–7,
/// function page 0x0B); every other write lands in the selected page, auto-incrementing.
final class IS31FL3731Model: I2CTransport {
    struct Registers { var pages = [[UInt8]](repeating: [UInt8](repeating: 0, count: 256), count: 16); var page = 0 }
    let registers = Locked(Registers())
    func writeByte(_ value: UInt8) throws(LEDError) { Issue.record("IS31FL3731 has no command-only writes") }
    func writeByteData(register: UInt8, _ value: UInt8) throws(LEDError) { try writeBlock(register: register, [value]) }
    func writeBlock(register: UInt8, _ bytes: [UInt8]) throws(LEDError) {
        registers.withLock { chip in
            if register == 0xFD {
                chip.page = Int(bytes[0])
                return
            }
            for (offset, byte) in bytes.enumerated() { chip.pages[chip.page][Int(register) + offset] = byte }
        }
    }
    var shownFrame: Int { registers.withLock { Int($0.pages[0x0B][0x01]) } }
    var isShutDown: Bool { registers.withLock { $0.pages[0x0B][0x0A] & 1 == 0 } }
    func pwm(frame: Int, led: Int) -> UInt8 { registers.withLock { $0.pages[frame][0x24 + led] } }
    func enabled(frame: Int, led: Int) -> Bool { registers.withLock { $0.pages[frame][led / 8] >> (led % 8) & 1 == 1 } }

    /// The Scroll pHAT HD's picture, read the way Pimoroni's library addresses it.
    func scrollPHATHD() -> [[UInt8]] {
        func address(_ x: Int, _ y: Int) -> Int {
            var (x, y) = (x, y)
            if x > 8 { x -= 8; y = 6 - (y + 8) } else { x = 8 - x }
            return x * 16 + y
        }
        return (0..<7).map { y in (0..<17).map { x in pwm(frame: shownFrame, led: address(x, 6 - y)) } }
    }
}

/// The HT16K33: one-byte commands (0x2_ oscillator, 0x8_ display/blink, 0xE_ dimming) and 16
/// bytes of display RAM from address 0.
final class HT16K33Model: I2CTransport {
    struct State { var ram = [UInt8](repeating: 0, count: 16); var oscillator = false; var displayOn = false; var dimming = -1 }
    let state = Locked(State())
    func writeByte(_ value: UInt8) throws(LEDError) {
        state.withLock { chip in
            switch value >> 4 {
            case 0x2: chip.oscillator = value & 1 == 1
            case 0x8: chip.displayOn = value & 1 == 1
            case 0xE: chip.dimming = Int(value & 0x0F)
            default: Issue.record("unknown HT16K33 command \(value)")
            }
        }
    }
    func writeByteData(register: UInt8, _ value: UInt8) throws(LEDError) { try writeBlock(register: register, [value]) }
    func writeBlock(register: UInt8, _ bytes: [UInt8]) throws(LEDError) {
        state.withLock { chip in for (offset, byte) in bytes.enumerated() { chip.ram[Int(register) + offset] = byte } }
    }
    /// Adafruit's 8x8 backpack: row y is RAM byte 2y, column x is bit (x + 7) % 8.
    func matrix8x8() -> [String] {
        state.withLock { chip in (0..<8).map { y in String((0..<8).map { x in chip.ram[y * 2] >> ((x + 7) % 8) & 1 == 1 ? "#" : "." }) } }
    }
}
