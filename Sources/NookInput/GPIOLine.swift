#if canImport(Glibc)
import Glibc
#endif
import NookSystem
internal import CGPIOD

/// Where a configured line is on this machine.
struct GPIOLineLocation: Hashable, Sendable, CustomStringConvertible {
    var chipPath: String
    var chipName: String
    var offset: Int
    var lineName: String?

    var description: String { "\(chipName) line \(offset)" + (lineName.map { " (\($0))" } ?? "") }
}

/// One edge of a requested line: the physical level after it and the kernel's monotonic time.
struct GPIOEdge: Hashable, Sendable {
    var isRising: Bool
    var time: Duration
}

/// Finds chips and lines under a devices directory (`/dev`), through libgpiod.
enum GPIOLookup {
    /// The `gpiochipN` character devices, in numeric order.
    static func chipPaths(in devices: String) -> [String] {
        let numbers = ((try? directoryEntries(devices)) ?? []).compactMap { name in
            name.hasPrefix("gpiochip") ? Int(name.dropFirst("gpiochip".count)) : nil
        }
        return numbers.sorted().map { "\(devices)/gpiochip\($0)" }
    }

    static func describe(_ path: String) -> Result<nook_gpio_chip_info, SensorProblem> {
        var info = nook_gpio_chip_info()
        var error = nook_gpio_error()
        guard nook_gpio_chip_describe(path, &info, &error) == 0 else { return .failure(problem(error, path)) }
        return .success(info)
    }

    /// Resolves the settings' chip and line to a device path and offset.
    static func locate(_ settings: GPIOLineSettings, devices: String) -> Result<GPIOLineLocation, SensorProblem> {
        let candidates: [String]
        if let chip = settings.chip {
            switch chipPath(chip, devices: devices) {
            case .success(let path): candidates = [path]
            case .failure(let problem): return .failure(problem)
            }
        } else {
            candidates = chipPaths(in: devices)
            if candidates.isEmpty { return .failure(SensorProblem("no GPIO chip under \(devices)")) }
        }
        for path in candidates {
            let info: nook_gpio_chip_info
            switch describe(path) {
            case .success(let found): info = found
            case .failure(let problem): return .failure(problem)
            }
            let chipName = text(info.name)
            if let offset = settings.offset {
                guard offset < Int(info.lines) else {
                    return .failure(SensorProblem("\(chipName) has \(info.lines) lines; offset \(offset) is not one of them"))
                }
                return .success(GPIOLineLocation(chipPath: path, chipName: chipName, offset: offset))
            }
            guard let name = settings.lineName else { break }
            var error = nook_gpio_error()
            let offset = nook_gpio_chip_find_line(path, name, &error)
            if offset >= 0 { return .success(GPIOLineLocation(chipPath: path, chipName: chipName, offset: Int(offset), lineName: name)) }
            if error.errno != .noSuchFileOrDirectory { return .failure(problem(error, path)) }
        }
        let scope = settings.chip.map { "on \($0)" } ?? "on any GPIO chip under \(devices)"
        return .failure(SensorProblem("no line named \(settings.lineName ?? "?") \(scope)"))
    }

    /// A chip given as a path, as `gpiochipN`, or by its label.
    static func chipPath(_ chip: String, devices: String) -> Result<String, SensorProblem> {
        if chip.hasPrefix("/") { return .success(chip) }
        if chip.hasPrefix("gpiochip"), fileExists(devices + "/" + chip) { return .success(devices + "/" + chip) }
        for path in chipPaths(in: devices) {
            if case .success(let info) = describe(path), text(info.label) == chip || text(info.name) == chip { return .success(path) }
        }
        return .failure(SensorProblem("no GPIO chip called or labelled '\(chip)' under \(devices)"))
    }

    static func problem(_ error: nook_gpio_error, _ path: String) -> SensorProblem {
        let call = error.call.map { String(cString: $0) } ?? "libgpiod"
        var message = SystemCallError(call, errno: error.errno, subject: path).description
        if error.errno == .permissionDenied || error.errno == .notPermitted {
            message += " (nookd's user needs the nook group and udev/70-nook.rules)"
        } else if error.errno == .resourceBusy {
            message += " (another program holds the line: see gpioinfo)"
        }
        return SensorProblem(message)
    }

    static func text<T>(_ field: T) -> String { string(fromCCharacters: field) }
}

/// A line requested for edge events; the only owner of its libgpiod request, released on deinit.
final class GPIORequestedLine {
    private let handle: OpaquePointer
    let location: GPIOLineLocation

    init(_ location: GPIOLineLocation, bias: GPIOLineSettings.Bias, consumer: String) throws(SensorProblem) {
        var error = nook_gpio_error()
        let cBias: nook_gpio_bias = switch bias {
        case .asIs: NOOK_GPIO_BIAS_AS_IS
        case .disabled: NOOK_GPIO_BIAS_DISABLED
        case .pullUp: NOOK_GPIO_BIAS_PULL_UP
        case .pullDown: NOOK_GPIO_BIAS_PULL_DOWN
        }
        guard let handle = nook_gpio_line_request(location.chipPath, UInt32(location.offset), cBias, consumer, &error) else {
            throw GPIOLookup.problem(error, location.chipPath)
        }
        self.handle = handle
        self.location = location
    }

    deinit { nook_gpio_line_release(handle) }

    var fileDescriptor: Int32 { nook_gpio_line_fd(handle) }

    /// The physical level now.
    func read() -> Result<Bool, SensorProblem> {
        var error = nook_gpio_error()
        let value = nook_gpio_line_value(handle, &error)
        return value < 0 ? .failure(GPIOLookup.problem(error, location.chipPath)) : .success(value == 1)
    }

    /// The edges waiting on the request (call when its descriptor polls readable).
    func edges() -> Result<[GPIOEdge], SensorProblem> {
        var events = [nook_gpio_event](repeating: nook_gpio_event(), count: 16)
        var error = nook_gpio_error()
        let count = nook_gpio_line_read_events(handle, &events, Int32(events.count), &error)
        guard count >= 0 else { return .failure(GPIOLookup.problem(error, location.chipPath)) }
        return .success(events[..<Int(count)].map { GPIOEdge(isRising: $0.rising != 0, time: .nanoseconds(Int64($0.timestamp_ns))) })
    }
}

extension nook_gpio_error {
    /// The errno the failed libgpiod or system call set.
    var errno: Errno { Errno(rawValue: code) }
}
