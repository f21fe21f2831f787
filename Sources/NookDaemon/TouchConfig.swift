import NookConfig
import NookProtocol

/// `[touch]` (T1–T3): whether nookd reads a touch panel, which one, and what its fingers mean.
///
///     [touch]
///     device = "/dev/input/by-path/platform-fe205000.i2c-event"   # or the device's name
///     swipe_fraction = 0.10
///     long_press_ms = 600
///     snooze = "10m"
struct TouchConfig: Equatable, Sendable {
    /// True: read the touchscreen, and wait for one while there is none (a USB panel plugged in
    /// later). False: no thread, no descriptor, nothing looked for. Nil (unset): read one found
    /// at start, else stop looking, so a board without touch costs nothing once started.
    var enabled: Bool?
    /// A path under /dev/input or a device name as the kernel gives it; nil: the first
    /// touchscreen found by its capabilities.
    var device: String?
    /// A horizontal movement of this fraction of the picture's width is a swipe.
    var swipeFraction = 0.10
    var longPress: Duration = .milliseconds(600)
    /// libinput's calibration matrix (six numbers, `LIBINPUT_CALIBRATION_MATRIX`'s order); nil:
    /// the one udev gives the device, else none.
    var calibration: [Double]?
    var swapAxes = false
    var invertX = false
    var invertY = false
    /// How long a long-pressed card stays away before it comes back.
    var snooze: Duration = .seconds(600)

    /// A minute at least (shorter is no snooze), a day at most (longer is dismissing).
    static let snoozeRange: ClosedRange<Double> = 60...86_400

    init() {}

    init(reading reader: ConfigReader) throws(ConfigError) {
        typealias Keys = Service.Touch
        enabled = try Keys.enabled.read(reader)
        if let device = try Keys.device.read(reader) {
            guard !device.isEmpty else { throw reader.error(Keys.device.key, "must name a device: a path such as \"/dev/input/event2\" or the device's name") }
            self.device = device
        }
        swipeFraction = try Keys.swipeFraction.read(reader) ?? swipeFraction
        if let milliseconds = try Keys.longPressMs.read(reader) { longPress = .milliseconds(milliseconds) }
        if let matrix = try Keys.calibration.read(reader) {
            guard matrix.count == 6 else {
                throw reader.error(Keys.calibration.key, "must be six numbers (a b c d e f, as LIBINPUT_CALIBRATION_MATRIX), got \(matrix.count)")
            }
            // The 2x2 part must turn the panel's square into a surface, not a line or a point.
            guard abs(matrix[0] * matrix[4] - matrix[1] * matrix[3]) > 1e-9 else {
                throw reader.error(Keys.calibration.key, "maps every touch onto one line (a*e - b*d is 0): check the numbers")
            }
            calibration = matrix
        }
        swapAxes = try Keys.swapAxes.read(reader) ?? swapAxes
        invertX = try Keys.invertX.read(reader) ?? invertX
        invertY = try Keys.invertY.read(reader) ?? invertY
        if let text = try Keys.snooze.read(reader) {
            let expected = "a duration of whole seconds from 1m to 24h, such as 10m, 90s or 1.5h"
            let seconds: Double
            switch DurationText.seconds(text, units: "smh", expected: expected, range: Self.snoozeRange, fractions: .wholeSeconds) {
            case .success(let value): seconds = value
            case .failure(let problem): throw reader.error(Keys.snooze.key, problem.description)
            }
            snooze = .seconds(seconds)
        }
    }
}
