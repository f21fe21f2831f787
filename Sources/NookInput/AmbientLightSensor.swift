#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookSystem

/// An IIO ambient light sensor (Z2): the room's illuminance in lux, for auto-brightness.
///
/// Reads sysfs on the injected clock every ``Settings/interval``: `in_illuminance_input` (lux,
/// as drivers that compute it print it), or else `in_illuminance_raw` turned into lux as the
/// IIO ABI says, `(raw + offset) × scale`, with `in_illuminance_offset` (0 when absent) and
/// `in_illuminance_scale` (1 when absent); the same with the channel index `0`
/// (`in_illuminance0_input`, …) for drivers that number their one channel. Values are parsed as
/// the IIO core prints them (``IIOValue``). A sensor that is missing, unreadable or unusable is
/// a warning naming what is wrong, never a crash (I4): it reports no reading, so the caller
/// falls back to its fixed levels (after a few failed reads in a row when the sensor is there
/// but failing, ``transientFailuresTolerated``), and is looked at again every second. Reads
/// run on the sensor's own thread (a `SerialWorker`), never on the cooperative pool.
public final class AmbientLightSensor: Sendable {
    public struct Settings: Hashable, Sendable {
        /// `iio:device0`, or a path; or nil to find the device by ``name``.
        public var device: String?
        /// The IIO device's `name` attribute, e.g. `vcnl4000` or `tsl2563`.
        public var name: String?
        public var interval: Duration
        /// Where IIO devices live; tests point this at a fake tree.
        public var sysfsRoot: String

        public init(device: String? = nil, name: String? = nil, interval: Duration = .milliseconds(500),
                    sysfsRoot: String = "/sys/bus/iio/devices") {
            self.device = device
            self.name = name
            self.interval = interval
            self.sysfsRoot = sysfsRoot
        }

        /// What the config calls the sensor, for logs.
        public var label: String { "light:" + (name ?? device ?? "iio") }
    }

    private let settings: Settings
    private let clock: any NookClock
    private let warn: @Sendable (String) -> Void
    private let queue = SerialWorker(name: "nook.light")

    public init(settings: Settings, clock: any NookClock, warn: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.clock = clock
        self.warn = warn
    }

    public var label: String { settings.label }

    /// Transient failures (unreadable, unparseable: a bus glitch, a driver error) in a row before
    /// the sensor reports no reading: until then the last reading stands, so one failed read
    /// does not flash a dark room to the fixed level. A failing sensor is retried once a second,
    /// so this is about two seconds. A sensor that is gone or the wrong device reports at once.
    public static let transientFailuresTolerated = 3

    /// Reads until the task is cancelled, handing each reading (lux) to `report`, or nil once
    /// when the sensor stops giving one (at once when it is missing or unusable, after
    /// ``transientFailuresTolerated`` failed reads in a row otherwise); the warning for a
    /// problem is given once, and once more when readings come back.
    public func run(_ report: @Sendable (Double?) async -> Void) async {
        var lastProblem: SensorProblem?
        var failures = 0
        var reportedNone = false
        while !Task.isCancelled {
            switch await readOffPool() {
            case .success(let lux):
                if lastProblem != nil { warn("\(settings.label): reading again (\(lux) lx)") }
                lastProblem = nil
                failures = 0
                reportedNone = false
                await report(lux)
            case .failure(let problem):
                failures += 1
                if problem != lastProblem { warn("\(settings.label): \(problem); \(Self.consequence(problem.kind))") }
                let transient = problem.kind == .unreadable || problem.kind == .unparseable
                if !reportedNone, !transient || failures >= Self.transientFailuresTolerated {
                    reportedNone = true
                    await report(nil)
                }
                lastProblem = problem
            }
            // Scheduled from the clock after the read, not from the last deadline: after a
            // stall, a suspend, or a read slower than the interval the loop still sleeps a whole
            // step instead of reading back to back to catch up (a cooperative thread at 100 %).
            // A sensor that cannot be read is looked at once a second, not at the reading rate.
            let next = clock.now + (lastProblem == nil ? settings.interval : .seconds(1))
            do { try await clock.sleep(until: next) } catch { return }
        }
    }

    /// One reading before ``run(_:)`` starts, off the cooperative pool, or nil if the sensor
    /// cannot give one now (``run(_:)`` warns about that): nookd takes it before it sets the
    /// first brightness, so a dark room does not start bright and then fade down.
    public func firstReading() async -> Double? {
        if case .success(let lux) = await readOffPool() { return lux }
        return nil
    }

    /// Reads sysfs on the sensor's own queue: an IIO read can block for tens of milliseconds
    /// (the vcnl4000 driver polls the chip with msleep) or for seconds (a wedged I2C bus), and
    /// the cooperative pool has as few threads as the machine has cores.
    private func readOffPool() async -> Result<Double, SensorProblem> {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.readLux()) }
        }
    }

    private static func consequence(_ kind: SensorProblem.Kind) -> String {
        switch kind {
        case .missing: "the brightness keeps its fixed levels until it appears"
        case .unreadable, .unparseable: "the brightness keeps its last level, and its fixed levels after \(transientFailuresTolerated) failed reads in a row; trying again every second"
        case .unusable: "the brightness keeps its fixed levels; fix brightness.ambient_sensor in the config"
        }
    }

    /// One reading, in lux.
    public func readLux() -> Result<Double, SensorProblem> {
        let directory: String
        switch IIODevice.directory(device: settings.device, name: settings.name, root: settings.sysfsRoot) {
        case .success(let path): directory = path
        case .failure(let problem): return .failure(problem)
        }
        for channel in ["in_illuminance", "in_illuminance0"] {
            switch value(directory + "/" + channel + "_input") {
            case .success(let lux): return .success(lux)
            case .failure(let problem) where problem.kind != .missing: return .failure(problem)
            case .failure: break
            }
            let raw: Double
            switch value(directory + "/" + channel + "_raw") {
            case .success(let value): raw = value
            case .failure(let problem) where problem.kind != .missing: return .failure(problem)
            case .failure: continue
            }
            // A driver shares scale and offset across channels (`in_illuminance_scale`) or
            // gives the numbered channel its own.
            var factors: [Double] = []
            for (suffix, absent) in [("_offset", 0.0), ("_scale", 1.0)] {
                let files = channel == "in_illuminance" ? [channel + suffix] : [channel + suffix, "in_illuminance" + suffix]
                var found = absent
                for file in files {
                    switch value(directory + "/" + file) {
                    case .success(let number): found = number
                    case .failure(let problem) where problem.kind != .missing: return .failure(problem)
                    case .failure: continue
                    }
                    break
                }
                factors.append(found)
            }
            return .success((raw + factors[0]) * factors[1])
        }
        if fileExists(directory) {
            let name = (try? IIODevice.attribute(directory + "/name").get()).map { " ('\($0)')" } ?? ""
            return .failure(SensorProblem(.unusable, "\(directory)\(name) has no in_illuminance_input or in_illuminance_raw: not a light sensor"))
        }
        return .failure(SensorProblem(.missing, "\(directory) is gone"))
    }

    private func value(_ path: String) -> Result<Double, SensorProblem> {
        switch IIODevice.attribute(path) {
        case .failure(let problem): return .failure(problem)
        case .success(let text):
            guard let value = IIOValue(parsing: text) else {
                return .failure(SensorProblem(.unparseable, "\(path) holds '\(text.prefix(64))', not a value as the IIO core prints one"))
            }
            return .success(Double(value.nanos) / 1_000_000_000)
        }
    }
}
