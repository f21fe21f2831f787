#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import NookInput
import NookSystem
import Testing

/// T1: which input devices are touchscreens, and the evdev ABI the reader speaks.
@Suite("T1 touch devices")
struct TouchDeviceTests {
    /// A capability bitmap with `bits` set.
    func bitmap(_ bits: [Int], count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: (count + 7) / 8)
        for bit in bits { bytes[bit / 8] |= UInt8(1 << (bit % 8)) }
        return bytes
    }

    func classify(abs: [UInt16], keys: [Int] = [], direct: Bool = false, pointer: Bool = false, configured: Bool = false,
                  types: [Int] = [0, 1, 3]) -> TouchCapability {
        TouchCapability.classify(types: bitmap(types, count: 32), absolute: bitmap(abs.map(Int.init), count: Evdev.absoluteCount),
                                 keys: bitmap(keys, count: Evdev.keyCount),
                                 properties: bitmap((pointer ? [0] : []) + (direct ? [Evdev.propertyDirect] : []), count: 32),
                                 slots: 10, configured: configured)
    }

    let multitouch: [UInt16] = [Evdev.x, Evdev.y, Evdev.slot, Evdev.positionX, Evdev.positionY, Evdev.trackingID]

    @Test func t1_touchscreensAreFoundByCapabilityAndOthersPassedOverWithTheReason() {
        // A Goodix or hid-multitouch screen: slots and INPUT_PROP_DIRECT.
        #expect(classify(abs: multitouch, keys: [Int(Evdev.buttonTouch)], direct: true) == .touch(.multitouch(slots: 10), x: Evdev.positionX, y: Evdev.positionY))
        // A resistive single-touch screen (ads7846): ABS_X/ABS_Y and BTN_TOUCH.
        #expect(classify(abs: [Evdev.x, Evdev.y], keys: [Int(Evdev.buttonTouch)]) == .touch(.singleTouch, x: Evdev.x, y: Evdev.y))
        // A touchpad moves a pointer: not a touchscreen unless configured by name or path.
        #expect(classify(abs: multitouch, keys: [Int(Evdev.buttonTouch)], pointer: true) == .unusable("a touchpad (it moves a pointer), not a touchscreen"))
        #expect(classify(abs: multitouch, keys: [Int(Evdev.buttonTouch)], pointer: true, configured: true) == .touch(.multitouch(slots: 10), x: Evdev.positionX, y: Evdev.positionY))
        // A keyboard, a power button: no absolute axes.
        #expect(classify(abs: [], keys: [30, 31], types: [0, 1]) == .unusable("no absolute axes"))
        // A joystick: absolute axes but nothing touches.
        #expect(classify(abs: [Evdev.x, Evdev.y], keys: [0x120]) == .unusable("absolute axes but no touch (no BTN_TOUCH, not a direct-input device)"))
    }

    @Test func t1_theIoctlRequestsAreTheKernelHeadersNumbers() {
        // From linux/input.h on x86-64 and arm64 (the generic _IOC encoding).
        #expect(EvdevControl.request(read: true, number: 0x06, size: 255) == 0x80ff_4506)   // EVIOCGNAME(255)
        #expect(EvdevControl.request(read: true, number: 0x20 + 3, size: 8) == 0x8008_4523)  // EVIOCGBIT(EV_ABS, 8)
        #expect(EvdevControl.request(read: true, number: 0x09, size: 4) == 0x8004_4509)       // EVIOCGPROP(4)
        #expect(EvdevControl.request(read: true, number: 0x18, size: 96) == 0x8060_4518)      // EVIOCGKEY(96)
        #expect(EvdevControl.request(read: true, number: 0x40 + 0x2f, size: 24) == 0x8018_456f) // EVIOCGABS(ABS_MT_SLOT)
        #expect(EvdevControl.request(read: true, number: 0x0a, size: 44) == 0x802c_450a)      // EVIOCGMTSLOTS(44)
        #expect(EvdevControl.request(read: false, write: true, number: 0xa0, size: 4) == 0x4004_45a0) // EVIOCSCLOCKID
        #expect(EvdevEvent.size == (MemoryLayout<Int>.size == 8 ? 24 : 16))
    }

    @Test func t1_eventsDecodeAsTheKernelWritesThem() {
        let events = [EvdevEvent(time: .seconds(12) + .microseconds(345_678), type: Evdev.absolute, code: Evdev.positionX, value: -7),
                      EvdevEvent(time: .seconds(12) + .microseconds(345_679), type: Evdev.synchronize, code: Evdev.report, value: 0)]
        let bytes = events.flatMap(\.bytes)
        #expect(bytes.count == 2 * EvdevEvent.size)
        #expect(bytes.withUnsafeBytes { EvdevEvent.decode($0) } == events)
        // Seconds and microseconds are two longs, then type, code and value, little-endian.
        #expect(bytes[0] == 12 && bytes[MemoryLayout<Int>.size] == UInt8(345_678 & 0xff))
        #expect(bytes[2 * MemoryLayout<Int>.size] == 3 && bytes[2 * MemoryLayout<Int>.size + 2] == 0x35)
        #expect(bytes.dropLast(5).withUnsafeBytes { EvdevEvent.decode($0) } == [events[0]], "a partial event is left for the next read")
    }

    /// A directory standing in for /dev/input with files that are not input devices.
    func strangeDevices() throws -> String {
        let directory = NSTemporaryDirectory() + "nook-touch-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(mkfifo(directory + "/event0", 0o600) == 0)
        try Data("not an input device".utf8).write(to: URL(fileURLWithPath: directory + "/event1"))
        try FileManager.default.createDirectory(atPath: directory + "/event2", withIntermediateDirectories: false)
        try Data().write(to: URL(fileURLWithPath: directory + "/mice"))
        return directory
    }

    @Test func t1_filesThatAreNotInputDevicesArePassedOverNamedOnceAndNeverBlock() throws {
        let directory = try strangeDevices()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = EvdevTouchSource(directory: directory)
        var notes: [String] = []
        for _ in 0..<2 {
            switch source.find(nil, note: { notes.append($0) }) {
            case .success(let device): Issue.record("\(device.path) is no touchscreen")
            case .failure(let problem): #expect(problem.description == "no touchscreen in \(directory)")
            }
        }
        #expect(notes.count == 3, "each passed over once, though looked at twice: \(notes)")
        #expect(notes.allSatisfy { $0.hasPrefix("touch: passing over \(directory)/event") && $0.contains("not an input device") })
    }

    @Test func t1_aConfiguredPathThatIsNoInputDeviceIsAClearProblem() throws {
        let directory = try strangeDevices()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = EvdevTouchSource(directory: directory)
        guard case .failure(let fifo) = source.find(directory + "/event0", note: { _ in }) else { Issue.record("a FIFO is no device"); return }
        #expect(fifo.description.hasPrefix("not a usable touchscreen: \(directory)/event0"), "\(fifo)")
        #expect(fifo.description.contains("not an input device"), "\(fifo)")
        // /dev/null is a character device, but not one of the input subsystem's: never opened.
        guard case .failure(let null) = source.find("/dev/null", note: { _ in }) else { Issue.record("/dev/null is no touchscreen"); return }
        #expect(null.description.contains("not an input device"), "\(null)")
        guard case .failure(let missing) = source.find(directory + "/event9", note: { _ in }) else { Issue.record("missing"); return }
        #expect(missing.description.contains("'open' failed for \(directory)/event9") && missing.description.contains("No such file"))
        guard case .failure(let named) = source.find("Goodix Capacitive TouchScreen", note: { _ in }) else { Issue.record("no such name"); return }
        #expect(named.description == "no input device named \"Goodix Capacitive TouchScreen\" in \(directory)")
    }
}
