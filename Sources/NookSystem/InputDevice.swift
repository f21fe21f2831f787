import Glibc

/// The evdev ioctls (`linux/input.h`), made by hand: the requests are `_IOC` numbers of a
/// stable ABI, and the few calls are simpler than a library whose reader cannot be fed from a
/// pipe in tests. Touch (NookInput) and the beeper (NookAudio) both ask through these.
public enum InputControl {
    /// `_IOC(dir, 'E', number, size)` as the generic (x86, Arm) ioctl encoding has it.
    public static func request(read: Bool, write: Bool = false, number: UInt, size: Int) -> UInt {
        let direction: UInt = (read ? 2 : 0) | (write ? 1 : 0)
        return direction << 30 | UInt(size) << 16 | UInt(UInt8(ascii: "E")) << 8 | number
    }

    /// The ioctl `request` with `buffer`'s storage as its argument.
    public static func control<Element>(_ fd: FileDescriptor, _ call: String, _ request: UInt, _ buffer: inout [Element]) throws(SystemCallError) {
        _ = try buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(SystemCallError) in try System.ioctl(fd.rawValue, request, bytes.baseAddress!, name: call, subject: fd.name) }
        }.get()
    }

    /// `EVIOCGNAME`: the name the driver gives the device.
    public static func name(_ fd: FileDescriptor) throws(SystemCallError) -> String {
        var bytes = [UInt8](repeating: 0, count: 256)
        let request = request(read: true, number: 0x06, size: bytes.count - 1)
        try control(fd, "EVIOCGNAME", request, &bytes)
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// `EVIOCGBIT(type, …)` (type 0: the event types), or `EVIOCGPROP` with `properties`.
    public static func bits(_ fd: FileDescriptor, type: UInt16, count: Int, properties: Bool = false) throws(SystemCallError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: (count + 7) / 8)
        let request = request(read: true, number: properties ? 0x09 : 0x20 + UInt(type), size: bytes.count)
        try control(fd, properties ? "EVIOCGPROP" : "EVIOCGBIT", request, &bytes)
        return bytes
    }

    public static func has(_ bits: [UInt8], _ index: Int) -> Bool {
        index / 8 < bits.count && bits[index / 8] & UInt8(1 << (index % 8)) != 0
    }
}

/// An input device opened for writing events to it: the one owner of its descriptor. The
/// kernel's beeper (`pwm-beeper`, `gpio-beeper`, the PC speaker) is an input device that
/// sounds the tone written to it as `EV_SND` / `SND_TONE`.
public final class InputDevice: Sendable {
    public let descriptor: FileDescriptor

    /// Takes `descriptor` (a device node, or in tests a file or pipe standing in for one).
    public init(_ descriptor: FileDescriptor) {
        self.descriptor = descriptor
    }

    /// `open(2)`s `path` for writing events.
    public static func openForWriting(_ path: String) throws(SystemCallError) -> InputDevice {
        InputDevice(try FileDescriptor.open(path, O_WRONLY | O_NONBLOCK))
    }

    public var path: String { descriptor.name }

    /// `EVIOCGNAME`.
    public func name() throws(SystemCallError) -> String { try InputControl.name(descriptor) }

    /// `EVIOCGBIT(type, count)`: which codes of `type` (0: which event types) the device has.
    public func bits(type: UInt16, count: Int) throws(SystemCallError) -> [UInt8] {
        try InputControl.bits(descriptor, type: type, count: count)
    }

    /// Writes `events` in one `write(2)`, as the kernel reads a batch ending in `SYN_REPORT`.
    public func write(_ events: [InputEvent]) throws(SystemCallError) {
        let bytes = events.flatMap(\.bytes)
        try bytes.withUnsafeBytes { raw in
            Result { () throws(SystemCallError) in try descriptor.writeAll(raw) }
        }.get()
    }
}
