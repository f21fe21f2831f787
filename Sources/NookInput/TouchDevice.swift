#if canImport(Glibc)
import Glibc
#endif
import NookSystem

/// An open touch device: its descriptor, what it is, and how to read its whole state back
/// after the kernel dropped events.
final class TouchDevice: Sendable {
    let descriptor: FileDescriptor
    let path: String
    let name: String
    let kind: TouchContacts.Kind
    let x: TouchAxisRange
    let y: TouchAxisRange
    /// The device's udev `LIBINPUT_CALIBRATION_MATRIX`, if it has one.
    let calibration: [Double]?
    /// Event times are on CLOCK_MONOTONIC; if not (`EVIOCSCLOCKID` refused), the reader times
    /// events by when it reads them.
    let monotonicTimes: Bool
    private let readState: @Sendable (FileDescriptor) -> Result<TouchContacts.DeviceState, SystemCallError>

    init(descriptor: FileDescriptor, path: String, name: String, kind: TouchContacts.Kind, x: TouchAxisRange, y: TouchAxisRange,
         calibration: [Double]?, monotonicTimes: Bool = true, readState: @escaping @Sendable (FileDescriptor) -> Result<TouchContacts.DeviceState, SystemCallError>) {
        (self.descriptor, self.path, self.name, self.kind, self.x, self.y, self.calibration, self.monotonicTimes, self.readState) =
            (descriptor, path, name, kind, x, y, calibration, monotonicTimes, readState)
    }

    func state() -> Result<TouchContacts.DeviceState, SystemCallError> { readState(descriptor) }

    /// Opens `path` and reads its capabilities: the device, or why it cannot be used.
    static func open(_ path: String, configured: Bool) -> Result<TouchDevice, TouchOpenProblem> {
        // Looked at before it is opened: opening some devices does something (a watchdog
        // arms), and a FIFO or a huge file is no panel either.
        if let problem = notAnInputDevice(path) { return .failure(problem) }
        let fd: FileDescriptor
        do throws(SystemCallError) {
            fd = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK)
        } catch {
            return .failure(error.errno == .permissionDenied || error.errno == .notPermitted ? .notPermitted(error.description)
                            : error.errno == .noSuchFileOrDirectory || error.errno == .noSuchDevice ? .missing(error.description)
                            : .unusable(error.description))
        }
        do throws(SystemCallError) {
            let name = try EvdevControl.name(fd)
            let types = try EvdevControl.bits(fd, type: 0, count: 0x20)
            let absolute = try EvdevControl.bits(fd, type: Evdev.absolute, count: Evdev.absoluteCount)
            let keys = try EvdevControl.bits(fd, type: Evdev.key, count: Evdev.keyCount)
            let properties = (try? EvdevControl.bits(fd, type: 0, count: 0x20, properties: true)) ?? []
            var slots = 0
            if EvdevControl.has(absolute, Int(Evdev.slot)) {
                // A device may claim any number of slots; the first few are all a hand needs.
                let last = try EvdevControl.axis(fd, Evdev.slot).range.maximum
                slots = Int(max(0, min(last, Int32(TouchContacts.maximumSlots - 1)))) + 1
            }
            switch TouchCapability.classify(types: types, absolute: absolute, keys: keys, properties: properties, slots: slots, configured: configured) {
            case .unusable(let why):
                return .failure(.notTouch(path: path, name: name, why: why))
            case .touch(let kind, let xCode, let yCode):
                let x = try EvdevControl.axis(fd, xCode).range
                let y = try EvdevControl.axis(fd, yCode).range
                guard x.maximum > x.minimum, y.maximum > y.minimum else {
                    return .failure(.notTouch(path: path, name: name, why: "empty axis range (\(x.minimum)...\(x.maximum), \(y.minimum)...\(y.maximum))"))
                }
                // Without it event times are on the wall clock, which jumps.
                let monotonic = (try? EvdevControl.useMonotonicClock(fd)) != nil
                return .success(TouchDevice(descriptor: fd, path: path, name: name, kind: kind, x: x, y: y,
                                            calibration: udevCalibration(fd), monotonicTimes: monotonic, readState: { readEvdevState($0, kind: kind) }))
            }
        } catch {
            return .failure(error.errno == .noSuchDevice ? .missing(error.description) : .notTouch(path: path, name: nil, why: error.description))
        }
    }

    /// The fingers now, read through ioctls (after `SYN_DROPPED`).
    static func readEvdevState(_ fd: FileDescriptor, kind: TouchContacts.Kind) -> Result<TouchContacts.DeviceState, SystemCallError> {
        do throws(SystemCallError) {
            switch kind {
            case .multitouch(let count):
                let ids = try EvdevControl.slotValues(fd, Evdev.trackingID, slots: count)
                let xs = try EvdevControl.slotValues(fd, Evdev.positionX, slots: count)
                let ys = try EvdevControl.slotValues(fd, Evdev.positionY, slots: count)
                let current = try EvdevControl.axis(fd, Evdev.slot).value
                let slots = ids.indices.map { TouchContacts.Slot(id: ids[$0], x: xs[$0], y: ys[$0]) }
                return .success(TouchContacts.DeviceState(slots: slots, currentSlot: current))
            case .singleTouch:
                let touching = EvdevControl.has(try EvdevControl.keys(fd), Int(Evdev.buttonTouch))
                let x = try EvdevControl.axis(fd, Evdev.x).value
                let y = try EvdevControl.axis(fd, Evdev.y).value
                return .success(TouchContacts.DeviceState(touching: touching, x: x, y: y))
            }
        } catch {
            return .failure(error)
        }
    }

    /// udev's database entry for the device (`/run/udev/data/c<major>:<minor>`): its
    /// `LIBINPUT_CALIBRATION_MATRIX`, set by a hwdb entry or a rule for libinput.
    static func udevCalibration(_ fd: FileDescriptor, udevData: String = "/run/udev/data") -> [Double]? {
        guard let info = try? fd.status() else { return nil }
        let device = UInt64(info.st_rdev)
        let major = (device >> 8) & 0xfff | (device >> 32) & ~0xfff
        let minor = device & 0xff | (device >> 12) & ~0xff
        guard let bytes = try? readRegularFile("\(udevData)/c\(major):\(minor)", limit: 65_536) else { return nil }
        return calibration(udevEntry: String(decoding: bytes, as: UTF8.self))
    }

    /// The matrix in a udev database entry's `E:LIBINPUT_CALIBRATION_MATRIX=a b c d e f` line.
    static func calibration(udevEntry: String) -> [Double]? {
        let prefix = "E:LIBINPUT_CALIBRATION_MATRIX="
        guard let line = udevEntry.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
        return parseCalibration(String(line.dropFirst(prefix.count)))
    }

    /// Six finite numbers separated by spaces, as udev and libinput write the matrix.
    static func parseCalibration(_ text: String) -> [Double]? {
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) }
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).count
        guard fields == 6, numbers.count == 6, numbers.allSatisfy(\.isFinite) else { return nil }
        return numbers
    }
}

/// Why a device could not be opened as a touchscreen.
enum TouchOpenProblem: Error, Equatable, Sendable {
    case missing(String)
    case notPermitted(String)
    case notTouch(path: String, name: String?, why: String)
    case unusable(String)
}

extension TouchDevice {
    /// The kernel's input devices are character devices of major number 13.
    static let inputMajor: UInt64 = 13

    /// Why `path` is not an input device, or nil when it is one (or cannot be looked at: the
    /// open that follows says why).
    static func notAnInputDevice(_ path: String) -> TouchOpenProblem? {
        guard let info = try? fileStatus(path) else { return nil }
        let device = UInt64(info.st_rdev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff))
        guard info.st_mode & S_IFMT == S_IFCHR, major == inputMajor else {
            return .notTouch(path: path, name: nil, why: "not an input device (a character device of the kernel's input subsystem, as /dev/input/event* are)")
        }
        return nil
    }
}
