/// One `struct input_event` as the kernel reads and writes it on an evdev descriptor: the time,
/// then type, code and value. The time is two `long`s (seconds, microseconds) on every ABI the
/// kernel exports, 32-bit ones with a 64-bit `time_t` included, so it is coded from bytes here
/// rather than through the C library's `struct timeval`. Touch reads these; the beeper writes them.
public struct InputEvent: Hashable, Sendable {
    public var time: Duration
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(time: Duration = .zero, type: UInt16, code: UInt16, value: Int32) {
        (self.time, self.type, self.code, self.value) = (time, type, code, value)
    }

    /// Bytes of one event on this machine.
    public static let size = 2 * MemoryLayout<Int>.size + 8

    /// The events in `bytes`, which holds whole events.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> [InputEvent] {
        let word = MemoryLayout<Int>.size
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { offset in
            let seconds = bytes.loadUnaligned(fromByteOffset: offset, as: Int.self)
            let microseconds = bytes.loadUnaligned(fromByteOffset: offset + word, as: Int.self)
            return InputEvent(time: .seconds(seconds) + .microseconds(microseconds),
                              type: bytes.loadUnaligned(fromByteOffset: offset + 2 * word, as: UInt16.self),
                              code: bytes.loadUnaligned(fromByteOffset: offset + 2 * word + 2, as: UInt16.self),
                              value: bytes.loadUnaligned(fromByteOffset: offset + 2 * word + 4, as: Int32.self))
        }
    }

    /// The bytes of this event as the kernel reads and writes them.
    public var bytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.size)
        let word = MemoryLayout<Int>.size
        let microseconds = Int((time / .microseconds(1)).rounded(.down))
        out.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: microseconds / 1_000_000, toByteOffset: 0, as: Int.self)
            raw.storeBytes(of: microseconds % 1_000_000, toByteOffset: word, as: Int.self)
            raw.storeBytes(of: type, toByteOffset: 2 * word, as: UInt16.self)
            raw.storeBytes(of: code, toByteOffset: 2 * word + 2, as: UInt16.self)
            raw.storeBytes(of: value, toByteOffset: 2 * word + 4, as: Int32.self)
        }
        return out
    }
}
