#if canImport(Glibc)
import Glibc
#endif
import NookSystem

/// A panel's backlight through the kernel's backlight class (Z2):
/// `/sys/class/backlight/NAME/{brightness,max_brightness}`. udev/70-nook.rules gives the
/// `brightness` file to the nook group, so nookd writes it without root.
struct Backlight: Sendable {
    let directory: String
    let maximum: Int

    /// Reads `max_brightness`; the error names the file and what is wrong with it.
    init(name: String, root: String = "/sys/class/backlight") throws(DaemonError) {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw DaemonError("brightness.backlight must be a device name under \(root), got \"\(name)\"")
        }
        directory = root + "/" + name
        let bytes: [UInt8]
        do { bytes = try readRegularFile(directory + "/max_brightness", limit: 64) } catch {
            throw DaemonError("no backlight '\(name)': \(error)")
        }
        let text = String(decoding: bytes, as: UTF8.self).trimmingSpaces
        guard let maximum = Int(text), maximum > 0 else {
            throw DaemonError("\(directory)/max_brightness must be a positive number, got \"\(text)\"")
        }
        self.maximum = maximum
    }

    /// Writes one level (0…maximum).
    func set(_ level: Int) throws(SystemCallError) {
        let file = try FileDescriptor.open(directory + "/brightness", O_WRONLY | O_CLOEXEC)
        let bytes = Array("\(max(0, min(maximum, level)))\n".utf8)
        let pointer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        defer { pointer.deallocate() }
        pointer.copyBytes(from: bytes)
        try file.writeAll(UnsafeRawBufferPointer(pointer))
    }
}
