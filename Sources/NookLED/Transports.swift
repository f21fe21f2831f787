/// Where an SPI LED chain's bytes go: spidev (``SPIDevice``) or a test's recorder.
public protocol SPITransport: AnyObject, Sendable {
    /// Sends `bytes` as one transfer clocked at `speedHz` (chip select held throughout).
    func transfer(_ bytes: [UInt8], speedHz: UInt32) throws(LEDError)
}

/// Where an I2C LED driver's register writes go: i2c-dev (``I2CDevice``) or a test's chip
/// model. SMBus transactions only, so the same code drives a real bus and the kernel's
/// `i2c-stub` (which has no plain I2C transfers).
public protocol I2CTransport: AnyObject, Sendable {
    /// SMBus "send byte": one byte with no register (HT16K33's commands).
    func writeByte(_ value: UInt8) throws(LEDError)
    /// SMBus "write byte data": `value` into `register`.
    func writeByteData(register: UInt8, _ value: UInt8) throws(LEDError)
    /// SMBus "I2C block write": up to 32 bytes from `register` on (auto-increment).
    func writeBlock(register: UInt8, _ bytes: [UInt8]) throws(LEDError)
}

extension I2CTransport {
    /// Any number of bytes from `register` on, in 32-byte SMBus blocks.
    func writeRegisters(from register: UInt8, _ bytes: [UInt8]) throws(LEDError) {
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + 32)
            try writeBlock(register: register &+ UInt8(offset), Array(bytes[offset..<end]))
            offset = end
        }
    }
}
