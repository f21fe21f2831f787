/// One `struct input_event` as the kernel writes it to an evdev descriptor: the time, then
/// type, code and value. The time is two `long`s (seconds, microseconds) on every ABI the
/// kernel exports, 32-bit ones with a 64-bit `time_t` included, so it is decoded from bytes
/// here rather than through the C library's `struct timeval`.
public struct EvdevEvent: Hashable, Sendable {
    public var time: Duration
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(time: Duration, type: UInt16, code: UInt16, value: Int32) {
        (self.time, self.type, self.code, self.value) = (time, type, code, value)
    }

    /// Bytes of one event on this machine.
    public static let size = 2 * MemoryLayout<Int>.size + 8

    /// The events in `bytes`, which holds whole events.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> [EvdevEvent] {
        let word = MemoryLayout<Int>.size
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { offset in
            let seconds = bytes.loadUnaligned(fromByteOffset: offset, as: Int.self)
            let microseconds = bytes.loadUnaligned(fromByteOffset: offset + word, as: Int.self)
            return EvdevEvent(time: .seconds(seconds) + .microseconds(microseconds),
                              type: bytes.loadUnaligned(fromByteOffset: offset + 2 * word, as: UInt16.self),
                              code: bytes.loadUnaligned(fromByteOffset: offset + 2 * word + 2, as: UInt16.self),
                              value: bytes.loadUnaligned(fromByteOffset: offset + 2 * word + 4, as: Int32.self))
        }
    }

    /// The bytes the kernel would write for this event (tests stand a pipe in for a device).
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

/// The event types and codes of `linux/input-event-codes.h` that touch uses (a stable ABI).
public enum Evdev {
    public static let synchronize: UInt16 = 0x00    // EV_SYN
    public static let key: UInt16 = 0x01            // EV_KEY
    public static let absolute: UInt16 = 0x03       // EV_ABS

    public static let report: UInt16 = 0            // SYN_REPORT
    public static let dropped: UInt16 = 3           // SYN_DROPPED

    public static let buttonTouch: UInt16 = 0x14a   // BTN_TOUCH

    public static let x: UInt16 = 0x00              // ABS_X
    public static let y: UInt16 = 0x01              // ABS_Y
    public static let slot: UInt16 = 0x2f           // ABS_MT_SLOT
    public static let positionX: UInt16 = 0x35      // ABS_MT_POSITION_X
    public static let positionY: UInt16 = 0x36      // ABS_MT_POSITION_Y
    public static let trackingID: UInt16 = 0x39     // ABS_MT_TRACKING_ID
    public static let absoluteCount = 0x40          // ABS_CNT
    public static let keyCount = 0x300              // KEY_CNT

    public static let propertyDirect = 0x01         // INPUT_PROP_DIRECT
}
