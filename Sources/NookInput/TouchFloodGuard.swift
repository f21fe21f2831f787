/// Notices a device sending far more than a touch controller does (a stuck or broken one), so
/// the reader stops working for it. Counts events and reports in windows of one second of the
/// events' own time.
///
/// A ten-finger panel at 120 reports a second sends about 4,000 events a second; the panels
/// Nook targets report at 60–240 Hz with at most five fingers.
public struct TouchFloodGuard: Sendable {
    public static let maximumEventsPerSecond = 8_000
    public static let maximumReportsPerSecond = 1_000

    private var windowStart: Duration?
    private var events = 0
    private var reports = 0

    public init() {}

    /// Counts `event`; true when the device is flooding.
    public mutating func count(_ event: EvdevEvent, at time: Duration) -> Bool {
        if windowStart.map({ time < $0 || time >= $0 + .seconds(1) }) ?? true {
            (windowStart, events, reports) = (time, 0, 0)
        }
        events += 1
        if event.type == Evdev.synchronize, event.code == Evdev.report { reports += 1 }
        return events > Self.maximumEventsPerSecond || reports > Self.maximumReportsPerSecond
    }

    /// What was counted in the current window, for the log line.
    public var counted: (events: Int, reports: Int) { (events, reports) }
}
