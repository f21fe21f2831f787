#if canImport(Glibc)
import Glibc
#endif
import NookActivities

/// An IIO proximity sensor (SPEC I2) driving the `hover` role of ``NookEngagement``: hover
/// starts when `in_proximity_raw` reaches ``Settings/threshold`` and ends when it falls below
/// `threshold - hysteresis`, so a hand at the edge of range does not flicker.
///
/// Reads sysfs on the injected clock every ``Settings/interval``. A missing or vanished sensor
/// is a warning, never a crash (I4): the input reports inactive and is looked for again.
public final class ProximitySensor: Sendable {
    public struct Settings: Hashable, Sendable {
        /// `iio:device0`, or a path; or nil to find the device by ``name``.
        public var device: String?
        /// The IIO device's `name` attribute, e.g. `vcnl4040`.
        public var name: String?
        public var threshold: Int
        public var hysteresis: Int
        public var interval: Duration
        /// Where IIO devices live; tests point this at a fake tree.
        public var sysfsRoot: String

        public init(device: String? = nil, name: String? = nil, threshold: Int = 200, hysteresis: Int = 20,
                    interval: Duration = .milliseconds(50), sysfsRoot: String = "/sys/bus/iio/devices") {
            self.device = device
            self.name = name
            self.threshold = threshold
            self.hysteresis = hysteresis
            self.interval = interval
            self.sysfsRoot = sysfsRoot
        }

        /// What the config calls the sensor, for logs and `nookctl status`.
        public var label: String { "proximity:" + (name ?? device ?? "iio") }
    }

    private let settings: Settings
    private let engagement: NookEngagement
    private let clock: any NookClock
    private let warn: @Sendable (String) -> Void

    public init(settings: Settings, engagement: NookEngagement, clock: any NookClock, warn: @escaping @Sendable (String) -> Void) {
        precondition(settings.hysteresis >= 0 && settings.hysteresis <= settings.threshold, "hysteresis must lie within the threshold")
        self.settings = settings
        self.engagement = engagement
        self.clock = clock
        self.warn = warn
    }

    /// Reads until the task is cancelled.
    public func run() async {
        var hovering = false
        var lastProblem: SensorProblem?
        engagement.set(.hover, active: false, input: settings.label)
        var next = clock.now
        while !Task.isCancelled {
            switch readValue() {
            case .success(let value):
                if lastProblem != nil { warn("\(settings.label): reading again (\(value))") }
                lastProblem = nil
                let now = hovering ? value >= settings.threshold - settings.hysteresis : value >= settings.threshold
                if now != hovering {
                    hovering = now
                    engagement.set(.hover, active: hovering, input: settings.label)
                }
            case .failure(let problem):
                if problem != lastProblem { warn("\(settings.label): \(problem); running without it until it appears") }
                lastProblem = problem
                if hovering {
                    hovering = false
                    engagement.set(.hover, active: false, input: settings.label)
                }
            }
            // A missing sensor is looked for once a second, not at the reading rate.
            next = next + (lastProblem == nil ? settings.interval : .seconds(1))
            do { try await clock.sleep(until: max(next, clock.now)) } catch { return }
        }
    }

    /// The directory of the configured device, by path, by `iio:deviceN`, or by its `name`.
    func deviceDirectory() -> Result<String, SensorProblem> {
        if let device = settings.device {
            return .success(device.hasPrefix("/") ? device : settings.sysfsRoot + "/" + device)
        }
        guard let wanted = settings.name else { return .failure(SensorProblem("neither a device nor a name is configured")) }
        guard let directory = opendir(settings.sysfsRoot) else {
            return .failure(SensorProblem("cannot list \(settings.sysfsRoot): (\(errno)) \(String(cString: strerror(errno)))"))
        }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard entryName.hasPrefix("iio:device") else { continue }
            let path = settings.sysfsRoot + "/" + entryName
            if case .success(let text) = Self.readFile(path + "/name"), text == wanted { return .success(path) }
        }
        return .failure(SensorProblem("no IIO device named '\(wanted)' under \(settings.sysfsRoot)"))
    }

    private func readValue() -> Result<Int, SensorProblem> {
        let directory: String
        switch deviceDirectory() {
        case .success(let path): directory = path
        case .failure(let problem): return .failure(problem)
        }
        switch Self.readFile(directory + "/in_proximity_raw") {
        case .failure(let problem): return .failure(problem)
        case .success(let text):
            guard let value = Int(text) else { return .failure(SensorProblem("\(directory)/in_proximity_raw holds '\(text)', not a number")) }
            return .success(value)
        }
    }

    /// A small sysfs attribute, trimmed; errors name the call and errno.
    static func readFile(_ path: String) -> Result<String, SensorProblem> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(SensorProblem("'open' failed for \(path): (\(errno)) \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        var count: Int
        repeat { count = read(fd, &buffer, buffer.count) } while count < 0 && errno == EINTR
        guard count >= 0 else { return .failure(SensorProblem("'read' failed for \(path): (\(errno)) \(String(cString: strerror(errno)))")) }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        return .success(String(text.filter { !$0.isWhitespace }))
    }
}

/// Why a sensor cannot be read right now, as the log says it.
public struct SensorProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
