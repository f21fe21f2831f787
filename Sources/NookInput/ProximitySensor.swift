#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookSystem

/// An IIO proximity sensor (SPEC I2) driving the `hover` role of ``NookEngagement``: hover
/// starts when `in_proximity_raw` reaches ``Settings/threshold`` and ends when it falls below
/// `threshold - hysteresis`, so a hand at the edge of range does not flicker.
///
/// Reads sysfs on the injected clock every ``Settings/interval``. Values are parsed as the IIO
/// core prints them (``IIOValue``), and the thresholds are in those units: `in_proximity_scale`
/// and `_offset` are not applied. A sensor that is missing, unreadable or unusable is a warning
/// naming what is wrong, never a crash (I4): the input reports inactive, with the problem, and
/// is looked at again every second.
public final class ProximitySensor: Sendable {
    public struct Settings: Hashable, Sendable {
        /// `iio:device0`, or a path; or nil to find the device by ``name``.
        public var device: String?
        /// The IIO device's `name` attribute, e.g. `vcnl4000` (every chip of that driver) or `ltr559`.
        public var name: String?
        public var threshold: Int
        public var hysteresis: Int
        /// Z3: a second, lower threshold (someone farther away, in the room) reported in the
        /// `presence` role under ``presenceLabel``, with the same hysteresis; nil reports none.
        public var presenceThreshold: Int?
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

        /// The presence input's name (Z3): the same sensor read against its second threshold.
        public var presenceLabel: String { label + ":presence" }
    }

    /// What the sensor last said, for `nookctl status`.
    public struct Observation: Hashable, Sendable {
        /// The last value read, in the units `in_proximity_raw` prints; nil until one is read.
        public var reading: IIOValue?
        /// Why the sensor cannot be used right now; nil while it reads.
        public var problem: SensorProblem?
    }

    private let settings: Settings
    private let engagement: NookEngagement
    private let clock: any NookClock
    private let warn: @Sendable (String) -> Void
    private let observed = Locked(Observation())
    private let queue = SerialWorker(name: "nook.proximity")

    public init(settings: Settings, engagement: NookEngagement, clock: any NookClock, warn: @escaping @Sendable (String) -> Void) {
        precondition(settings.hysteresis >= 0 && settings.hysteresis <= settings.threshold, "hysteresis must lie within the threshold")
        precondition(settings.presenceThreshold.map { settings.hysteresis <= $0 && $0 <= settings.threshold } ?? true,
                     "the presence threshold must lie between the hysteresis and the threshold")
        self.settings = settings
        self.engagement = engagement
        self.clock = clock
        self.warn = warn
    }

    public var observation: Observation { observed.withLock { $0 } }

    /// The input's name in ``NookEngagement`` and `nookctl status`.
    public var label: String { settings.label }

    /// The presence input's name, when the sensor reports presence (Z3).
    public var presenceLabel: String? { settings.presenceThreshold == nil ? nil : settings.presenceLabel }

    /// Reads until the task is cancelled.
    public func run() async {
        var hovering = false
        var present = false
        var lastProblem: SensorProblem?
        // Thresholds are in the units in_proximity_raw prints (see docs/inputs.md): no scale or offset.
        let near = IIOValue(settings.threshold)
        let far = IIOValue(settings.threshold - settings.hysteresis)
        let presenceNear = settings.presenceThreshold.map { IIOValue($0) }
        let presenceFar = settings.presenceThreshold.map { IIOValue($0 - settings.hysteresis) }
        engagement.set(.hover, active: false, input: settings.label)
        if presenceNear != nil { engagement.set(.presence, active: false, input: settings.presenceLabel) }
        while !Task.isCancelled {
            // Off the cooperative pool: an IIO read can block for tens of milliseconds or, on a
            // wedged I2C bus, for seconds.
            let result = await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: self.readValue()) }
            }
            switch result {
            case .success(let value):
                if lastProblem != nil { warn("\(settings.label): reading again (\(value))") }
                let now = hovering ? value >= far : value >= near
                if now != hovering || lastProblem != nil {
                    hovering = now
                    engagement.set(.hover, active: hovering, input: settings.label)
                }
                if let presenceNear, let presenceFar {
                    let there = present ? value >= presenceFar : value >= presenceNear
                    if there != present || lastProblem != nil {
                        present = there
                        engagement.set(.presence, active: present, input: settings.presenceLabel)
                    }
                }
                lastProblem = nil
                observed.withLock { $0 = Observation(reading: value, problem: nil) }
            case .failure(let problem):
                if problem != lastProblem { warn("\(settings.label): \(problem); \(problem.kind.consequence)") }
                if problem != lastProblem || hovering {
                    hovering = false
                    engagement.set(.hover, active: false, input: settings.label, problem: problem.description)
                }
                if presenceNear != nil, problem != lastProblem || present {
                    present = false
                    engagement.set(.presence, active: false, input: settings.presenceLabel, problem: problem.description)
                }
                lastProblem = problem
                // No reading is shown beside a problem: the last one may be from another device.
                observed.withLock { $0 = Observation(reading: nil, problem: problem) }
            }
            // Scheduled from the clock after the read, not from the last deadline: after a
            // stall, a suspend, or a read slower than the interval the loop still sleeps a whole
            // step instead of reading back to back to catch up (a cooperative thread at 100 %).
            // A sensor that cannot be read is looked at once a second, not at the reading rate.
            let next = clock.now + (lastProblem == nil ? settings.interval : .seconds(1))
            do { try await clock.sleep(until: next) } catch { return }
        }
    }

    /// The directory of the configured device, by path, by `iio:deviceN`, or by its `name`.
    /// With both, the device must carry the name: numbers follow the order devices appeared in,
    /// so after a re-probe `iio:device0` may be another sensor.
    func deviceDirectory() -> Result<String, SensorProblem> {
        IIODevice.directory(device: settings.device, name: settings.name, root: settings.sysfsRoot, refusal: Self.refusal)
    }

    func readValue() -> Result<IIOValue, SensorProblem> {
        let directory: String
        switch deviceDirectory() {
        case .success(let path): directory = path
        case .failure(let problem): return .failure(problem)
        }
        if let refusal = Self.refusal(directory) { return .failure(refusal) }
        let file = directory + "/in_proximity_raw"
        switch Self.readFile(file) {
        case .failure(let problem):
            guard problem.errno == .noSuchFileOrDirectory else { return .failure(problem) }
            // The device is there but has no proximity channel (a light-only sensor, or the
            // wrong device): waiting for the file would wait forever.
            if fileExists(directory) {
                let name = (try? Self.readFile(directory + "/name").get()).map { " ('\($0)')" } ?? ""
                return .failure(SensorProblem(.unusable, "\(directory)\(name) has no in_proximity_raw: not a proximity sensor"))
            }
            return .failure(SensorProblem(.missing, problem.description))
        case .success(let text):
            guard let value = IIOValue(parsing: text) else {
                return .failure(SensorProblem(.unparseable, "\(file) holds '\(text.prefix(64))', not a value as the IIO core prints one"))
            }
            return .success(value)
        }
    }

    /// Devices nookd will not read because reading them harms the machine.
    static func refusal(_ directory: String) -> SensorProblem? {
        // Linux 6.12's vcnl4000 driver reports a VCNL4000/4010/4020's proximity as a fraction
        // over a zero denominator (its ps_scale is only set for VCNL4040/4200): each read of
        // in_proximity_raw is a divide-error oops that kills the reader. Only the VCNL4040/4200
        // publish in_proximity_integration_time, so its absence tells the old chips apart.
        guard case .success("vcnl4000") = readFile(directory + "/name"),
              !fileExists(directory + "/in_proximity_integration_time") else { return nil }
        return SensorProblem(.unusable, "\(directory) is a VCNL4000/4010/4020 (IIO name 'vcnl4000' without in_proximity_integration_time); Linux 6.12's driver divides by zero when its in_proximity_raw is read (a kernel oops), so nookd does not read it")
    }

    /// A small sysfs attribute without its surrounding whitespace (``IIODevice/attribute(_:)``).
    static func readFile(_ path: String) -> Result<String, SensorProblem> { IIODevice.attribute(path) }
}

/// Why a sensor cannot be used right now, as the log and `nookctl status` say it.
public struct SensorProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// Not there (yet): no such device or file.
        case missing
        /// There, but reading it fails (the driver returned an error).
        case unreadable
        /// There and readable, but not a value the IIO core prints.
        case unparseable
        /// There, but not usable as configured: not a proximity sensor, another device under
        /// the configured number, or a driver nookd will not read.
        case unusable

        /// What nookd does about it, for the warning.
        var consequence: String {
            switch self {
            case .missing: "running without it until it appears"
            case .unreadable: "the sensor is there but cannot be read; running without it, trying again every second"
            case .unparseable: "the sensor is there but its reading is not understood; running without it, trying again every second"
            case .unusable: "running without it; fix [proximity] in the config"
            }
        }
    }

    public let kind: Kind
    public let description: String
    /// The errno of the failed call, if one failed.
    public let errno: Errno?

    /// A problem the GPIO inputs report; they say themselves what they do about it.
    init(_ description: String) { self.init(.unreadable, description) }

    init(_ kind: Kind, _ description: String, errno: Errno? = nil) {
        self.kind = kind
        self.description = description
        self.errno = errno
    }
}
