#if canImport(Glibc)
import Glibc
#endif
import NookSystem

/// The evdev ioctls: NookSystem's, with the ones only touch asks below.
typealias EvdevControl = InputControl

extension InputControl {
    /// `EVIOCGKEY`: which keys (buttons) are down now.
    static func keys(_ fd: FileDescriptor) throws(SystemCallError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Evdev.keyCount / 8)
        let request = request(read: true, number: 0x18, size: bytes.count)
        try control(fd, "EVIOCGKEY", request, &bytes)
        return bytes
    }

    /// `EVIOCGABS(code)`: the axis's value now and its range (`struct input_absinfo`).
    static func axis(_ fd: FileDescriptor, _ code: UInt16) throws(SystemCallError) -> (value: Int32, range: TouchAxisRange) {
        var info = [Int32](repeating: 0, count: 6)
        let request = request(read: true, number: 0x40 + UInt(code), size: 24)
        try control(fd, "EVIOCGABS", request, &info)
        return (info[0], TouchAxisRange(minimum: info[1], maximum: info[2]))
    }

    /// `EVIOCGMTSLOTS`: one multitouch axis's value in each slot.
    static func slotValues(_ fd: FileDescriptor, _ code: UInt16, slots: Int) throws(SystemCallError) -> [Int32] {
        var values = [Int32](repeating: 0, count: slots + 1)
        values[0] = Int32(code)
        let request = request(read: true, number: 0x0a, size: values.count * 4)
        try control(fd, "EVIOCGMTSLOTS", request, &values)
        return Array(values.dropFirst())
    }

    /// `EVIOCSCLOCKID`: event times on CLOCK_MONOTONIC, the clock deadlines are computed on.
    static func useMonotonicClock(_ fd: FileDescriptor) throws(SystemCallError) {
        var clock = [Int32(CLOCK_MONOTONIC)]
        let request = request(read: false, write: true, number: 0xa0, size: 4)
        try control(fd, "EVIOCSCLOCKID", request, &clock)
    }
}

/// What an input device's capabilities say it is, for touch.
enum TouchCapability: Equatable, Sendable {
    case touch(TouchContacts.Kind, x: UInt16, y: UInt16)
    /// Not usable, and why (for the log line naming it).
    case unusable(String)

    /// - Parameter configured: the device was named in the config, so anything with absolute
    ///   axes and a touch button is taken; found by itself, it must say it is a touchscreen.
    static func classify(types: [UInt8], absolute: [UInt8], keys: [UInt8], properties: [UInt8], slots: Int, configured: Bool) -> TouchCapability {
        let has = EvdevControl.has
        let multitouch = has(absolute, Int(Evdev.positionX)) && has(absolute, Int(Evdev.positionY))
        let slotted = multitouch && has(absolute, Int(Evdev.slot)) && has(absolute, Int(Evdev.trackingID))
        let single = has(absolute, Int(Evdev.x)) && has(absolute, Int(Evdev.y))
        let touchButton = has(keys, Int(Evdev.buttonTouch))
        let direct = has(properties, Evdev.propertyDirect)
        let pointer = has(properties, 0)   // INPUT_PROP_POINTER: a touchpad moves a pointer
        guard has(types, Int(Evdev.absolute)), multitouch || single else { return .unusable("no absolute axes") }
        if slotted, direct || configured {
            return .touch(.multitouch(slots: slots), x: Evdev.positionX, y: Evdev.positionY)
        }
        if single, touchButton, !pointer || configured, direct || configured || !multitouch {
            return .touch(.singleTouch, x: Evdev.x, y: Evdev.y)
        }
        if pointer { return .unusable("a touchpad (it moves a pointer), not a touchscreen") }
        if multitouch, !slotted, !single { return .unusable("multitouch without slots (protocol A) and no single-touch axes") }
        return .unusable("absolute axes but no touch (no BTN_TOUCH, not a direct-input device)")
    }
}
