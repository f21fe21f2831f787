#if canImport(Glibc)
import Glibc
#endif
import NookSystem

/// An spidev device (`/dev/spidev0.0`), written with `SPI_IOC_MESSAGE(1)` so each transfer
/// carries its own clock speed (L1). Opened read-write with mode 0 and 8-bit words.
public final class SPIDevice: SPITransport {
    /// `ioctl(2)` itself, or a test's stand-in that reads the request structures.
    public typealias IOControl = @Sendable (_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32

    // <linux/spi/spidev.h>: _IOW('k', nr, type).
    static let writeMode: UInt = 0x4001_6B01
    static let writeBitsPerWord: UInt = 0x4001_6B03
    /// SPI_IOC_MESSAGE(1): one `struct spi_ioc_transfer` of 32 bytes.
    static let message1: UInt = 0x4020_6B00

    public let path: String
    private let fd: FileDescriptor
    private let control: IOControl
    /// spidev refuses a transfer longer than its `bufsiz` module parameter (4096 by default).
    public let maximumTransfer: Int?

    public init(path: String, control: @escaping IOControl = { fd, request, argument in Glibc.ioctl(fd, request, argument) },
                bufsizPath: String = "/sys/module/spidev/parameters/bufsiz") throws(LEDError) {
        self.path = path
        self.control = control
        do {
            fd = try FileDescriptor.open(path, O_RDWR | O_CLOEXEC)
        } catch {
            throw LEDError("\(error)" + (error.errno == .permissionDenied ? "; is nookd's user in the nook group (udev/70-nook.rules)?" : "")
                + (error.errno == .noSuchFileOrDirectory ? "; enable SPI (dtparam=spi=on in config.txt)" : ""))
        }
        var mode: UInt8 = 0
        var bits: UInt8 = 8
        let descriptor = fd.rawValue
        do throws(SystemCallError) {
            _ = try systemCall("ioctl SPI_IOC_WR_MODE", subject: path) { control(descriptor, Self.writeMode, &mode) }
            _ = try systemCall("ioctl SPI_IOC_WR_BITS_PER_WORD", subject: path) { control(descriptor, Self.writeBitsPerWord, &bits) }
        } catch {
            throw LEDError(error.description)
        }
        maximumTransfer = (try? readRegularFile(bufsizPath, limit: 64)).flatMap { Int(String(decoding: $0, as: UTF8.self).trimmingCharacters(in: [" ", "\n"])) }
    }

    public func transfer(_ bytes: [UInt8], speedHz: UInt32) throws(LEDError) {
        if let maximumTransfer, bytes.count > maximumTransfer {
            throw LEDError("a frame of \(bytes.count) bytes exceeds spidev's buffer of \(maximumTransfer); add spidev.bufsiz=65536 to the kernel command line (cmdline.txt)")
        }
        // struct spi_ioc_transfer, built byte by byte so its layout is the kernel's, not Swift's.
        var request = [UInt8](repeating: 0, count: 32)
        let status = bytes.withUnsafeBufferPointer { data in
            request.withUnsafeMutableBytes { raw -> Result<Int32, SystemCallError> in
                raw.storeBytes(of: UInt64(UInt(bitPattern: data.baseAddress)), toByteOffset: 0, as: UInt64.self)  // tx_buf
                raw.storeBytes(of: UInt32(data.count), toByteOffset: 16, as: UInt32.self)  // len
                raw.storeBytes(of: speedHz, toByteOffset: 20, as: UInt32.self)  // speed_hz
                raw.storeBytes(of: 8, toByteOffset: 26, as: UInt8.self)  // bits_per_word
                return Result { () throws(SystemCallError) in
                    try systemCall("ioctl SPI_IOC_MESSAGE", subject: path) { control(fd.rawValue, Self.message1, raw.baseAddress!) }
                }
            }
        }
        if case .failure(let failure) = status { throw LEDError(failure.description) }
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
