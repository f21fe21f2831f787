/// When a bridge (nook-mqtt, nook-notify, nook-http) returns the pages only start-up or a burst
/// needed to the page cache (`FaultAround`): once after start-up, then a second after a burst, at
/// most once a minute after that (reading smaps and dropping costs more than a message, so a
/// message every second or so must not run it each time; steady traffic trims once a minute),
/// never on a timer while nothing happens. The next message takes its code back as minor
/// faults. Times are `MonotonicClock.seconds`, passed in.
public struct IdleTrim: Sendable {
    public static let delay = 1.0
    public static let minimumInterval = 60.0

    /// When the pages are dropped next; nil: not scheduled.
    public private(set) var due: Double?
    /// When pages were last dropped after a burst. The start-up's drop does not count: a first
    /// burst soon after start is trimmed a second after it ends (the idle figures are read 2 s
    /// after the benchmark's bursts).
    private var last: Double?

    public init() {}

    /// When to drop pages after a message at `now`: a second after the burst ends, and no
    /// sooner than a minute after the last drop that followed a burst.
    public static func time(afterActivityAt now: Double, lastTrim: Double?) -> Double {
        max(now + delay, lastTrim.map { $0 + minimumInterval } ?? now)
    }

    /// A message was handled at `now`.
    public mutating func activity(at now: Double) {
        due = Self.time(afterActivityAt: now, lastTrim: last)
    }

    /// Whether the pages are due at `now`; if so, the drop counts as done at `now`.
    public mutating func takeDue(now: Double) -> Bool {
        guard let due, now >= due else { return false }
        self.due = nil
        last = now
        return true
    }

    /// Drops this process's clean read-only data, then its executable pages (`FaultAround`),
    /// both from one reading of smaps, made before any page is dropped so that its parsing does
    /// not fault the text straight back in.
    public static func dropPages() {
        guard let mappings = FaultAround.currentMappings() else { return }
        FaultAround.dropCleanReadOnlyData(mappings)
        FaultAround.disableForReadOnlyFileMappings(mappings)
    }
}
