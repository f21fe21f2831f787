#if canImport(Glibc)
import Glibc
#endif
import NookSystem

/// An i2c-dev bus (`/dev/i2c-1`) talking to one chip address with SMBus transactions
/// (`ioctl(I2C_SMBUS)`), which every adapter supports, the kernel's `i2c-stub` included (L2).
public final class I2CDevice: I2CTransport {
    // <linux/i2c-dev.h>, <linux/i2c.h>
    static let setAddress: UInt = 0x0703
    static let smbus: UInt = 0x0720
    static let sizeByte: UInt32 = 1, sizeByteData: UInt32 = 2, sizeI2CBlockData: UInt32 = 8

    public let path: String
    public let address: UInt8
    private let fd: FileDescriptor

    public init(path: String, address: UInt8) throws(LEDError) {
        guard (0x03...0x77).contains(address) else { throw LEDError("I2C address must be between 0x03 and 0x77, got \(address)") }
        self.path = path
        self.address = address
        do {
            fd = try FileDescriptor.open(path, O_RDWR | O_CLOEXEC)
        } catch {
            throw LEDError("\(error)" + (error.errno == .permissionDenied ? "; is nookd's user in the nook group (udev/70-nook.rules)?" : "")
                + (error.errno == .noSuchFileOrDirectory ? "; enable I2C (dtparam=i2c_arm=on in config.txt) and load i2c-dev" : ""))
        }
        do throws(SystemCallError) {
            try System.ioctl(fd.rawValue, Self.setAddress, value: Int32(address), name: "I2C_SLAVE", subject: "\(path) address 0x\(String(address, radix: 16))")
        } catch {
            throw LEDError(error.description + (error.errno == .resourceBusy ? "; a kernel driver holds this address" : ""))
        }
    }

    /// One `struct i2c_smbus_ioctl_data` write: read_write 0, command, size, and a pointer to
    /// `union i2c_smbus_data` (34 bytes; a block's length first).
    private func smbusWrite(command: UInt8, size: UInt32, data: [UInt8]?, what: String) throws(LEDError) {
        var union = [UInt8](repeating: 0, count: 34)
        if let data { for (index, byte) in data.enumerated() { union[index] = byte } }
        var request = [UInt8](repeating: 0, count: 16)
        let status = union.withUnsafeMutableBufferPointer { union in
            request.withUnsafeMutableBytes { raw -> Result<Int32, SystemCallError> in
                raw.storeBytes(of: 0, toByteOffset: 0, as: UInt8.self)
                raw.storeBytes(of: command, toByteOffset: 1, as: UInt8.self)
                raw.storeBytes(of: size, toByteOffset: 4, as: UInt32.self)
                raw.storeBytes(of: data == nil ? 0 : UInt(bitPattern: union.baseAddress), toByteOffset: 8, as: UInt.self)
                return Result { () throws(SystemCallError) in
                    try System.ioctl(fd.rawValue, Self.smbus, raw.baseAddress!, name: "I2C_SMBUS (\(what))", subject: "\(path) address 0x\(String(address, radix: 16))")
                }
            }
        }
        if case .failure(let failure) = status { throw LEDError(failure.description) }
    }

    public func writeByte(_ value: UInt8) throws(LEDError) {
        try smbusWrite(command: value, size: Self.sizeByte, data: nil, what: "send byte")
    }

    public func writeByteData(register: UInt8, _ value: UInt8) throws(LEDError) {
        try smbusWrite(command: register, size: Self.sizeByteData, data: [value], what: "write byte data")
    }

    public func writeBlock(register: UInt8, _ bytes: [UInt8]) throws(LEDError) {
        precondition(bytes.count <= 32, "an SMBus block holds at most 32 bytes")
        try smbusWrite(command: register, size: Self.sizeI2CBlockData, data: [UInt8(bytes.count)] + bytes, what: "I2C block write")
    }
}
