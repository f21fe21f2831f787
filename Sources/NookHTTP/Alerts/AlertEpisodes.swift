import NookSystem

/// A time as Alertmanager and Grafana write an alert's `startsAt` and `endsAt` (RFC 3339:
/// `2026-11-26T01:00:00Z`, `…:00.123456789Z`, `…:00+01:00`), comparable whatever the digits of
/// its fraction or its offset; text comparison is not (`…:07Z` sorts after `…:07.5Z`).
public struct AlertTime: Sendable, Comparable, CustomStringConvertible {
    /// Seconds since 1970-01-01 UTC and the nanoseconds past them.
    public var seconds: Int64
    public var nanoseconds: Int32

    public init(seconds: Int64, nanoseconds: Int32 = 0) { (self.seconds, self.nanoseconds) = (seconds, nanoseconds) }

    /// nil for text that is no such time, and for Go's zero time (`0001-01-01T00:00:00Z`),
    /// which Alertmanager writes for "no time" (a firing alert's end).
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        func byte(_ index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }
        guard let year = number(0..<4), byte(4) == 0x2D, let month = number(5..<7), byte(7) == 0x2D, let day = number(8..<10),
              let separator = byte(10), separator == 0x54 || separator == 0x74 || separator == 0x20,
              let hour = number(11..<13), byte(13) == 0x3A, let minute = number(14..<16), byte(16) == 0x3A, let second = number(17..<19),
              year > 1, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60 else { return nil }
        var index = 19
        var nanoseconds: Int64 = 0
        if byte(index) == 0x2E {
            index += 1
            var digits = 0
            while let digit = byte(index), digit >= 0x30, digit <= 0x39 {
                // Past nanoseconds, digits say nothing Alertmanager keeps.
                if digits < 9 { nanoseconds = nanoseconds * 10 + Int64(digit - 0x30) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 9) { nanoseconds *= 10 }
        }
        var offset: Int64 = 0
        switch byte(index) {
        case 0x5A?, 0x7A?:
            index += 1
        case let sign? where sign == 0x2B || sign == 0x2D:
            guard let hours = number(index + 1..<index + 3), byte(index + 3) == 0x3A, let minutes = number(index + 4..<index + 6),
                  hours < 24, minutes < 60 else { return nil }
            offset = (hours * 3600 + minutes * 60) * (sign == 0x2B ? 1 : -1)
            index += 6
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        // Days from 1970-01-01 of a date in the proleptic Gregorian calendar.
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let days = era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
        self.init(seconds: days * 86_400 + hour * 3600 + minute * 60 + second - offset, nanoseconds: Int32(nanoseconds))
    }

    public static func < (lhs: AlertTime, rhs: AlertTime) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    public var description: String { "\(seconds).\(nanoseconds)" }
}

/// What nook-http knows of each alert of each group, so a notification delivered out of order
/// (Alertmanager retries, and a retry may arrive after the group's later notifications) never
/// makes or revives a card its group's resolve ended, and a late resolve never ends a card of
/// a later firing (H3).
///
/// The notifications carry no time of their own; the alerts do. An alert is one episode from
/// its `startsAt` to its `endsAt` (shown only once it has ended). So, per alert of a group:
/// - a firing alert that started no later than a resolve of it already taken, or than any firing
///   of it seen before that resolve, belongs to an episode that is over: stale, but only within
///   ``retryWindow`` of when nook-http took that resolve. A firing that started later is a new
///   episode (the alert fired again) and shows;
/// - a resolve of it no later than one already taken, once a newer episode has fired since,
///   is stale: it ended the earlier episode, not this one.
/// The firings seen before a resolve count as resolved with it, not only its `endsAt`: a
/// resolve sent with an end in the past (`amtool alert add --end=…`) may end before the alert
/// started, and the firing's retry that comes after it must still be stale.
///
/// Why a window: Alertmanager retries a notification only until its flush's time is up
/// (`max(group_interval, 10s)`), so an old retry arrives within about a group interval of its
/// first attempt. A firing with the same `startsAt` that arrives later is no retry: Alertmanager
/// resolved the alert (its source fell silent past `resolve_timeout`) and then heard it fire
/// again, unchanged. Past the window it is a new episode of the alert, whose state starts anew.
///
/// Judged per alert: a notification's stale firings are left out and the rest of it is carried
/// out as it says (``Admission/partlyStale(_:leftOut:)``): nothing firing left, the group
/// resolved. A notification all of whose alerts are stale changes nothing, nor does one with a
/// stale resolve: its alert fires anew since, so the notification is older than the one that
/// said so and cannot say what the group's card is now. An alert with no readable time is never
/// judged stale.
///
/// Bounded: at most ``capacity`` groups, the one least recently heard of forgotten first, and at
/// most ``alertsPerGroup`` alerts a group, the one least recently heard of forgotten first. What
/// is forgotten, or lost when nook-http restarts, cannot be judged: a stale firing of it then
/// shows as it did before this was kept.
public final class AlertEpisodes {
    public let capacity: Int
    public let alertsPerGroup: Int

    private struct Known {
        /// The latest start of a firing taken (not stale).
        var firingSince: AlertTime?
        /// Every firing that started no later than this is over.
        var resolvedThrough: AlertTime?
        /// The latest resolve taken (its `endsAt`, or its `startsAt` when later).
        var lastResolved: AlertTime?
        /// When (the monotonic clock) nook-http took the resolve that last raised `resolvedThrough`.
        var resolvedTaken: Duration?
        var heard: UInt64
    }

    private var groups: [String: [String: Known]] = [:]
    private var heard: [String: UInt64] = [:]
    private var heardCount: UInt64 = 0
    /// The monotonic clock's reading (injected by tests).
    private let clock: @Sendable () -> Duration

    /// How long after nook-http took a resolve a firing it ended is judged an old retry.
    public let retryWindow: Duration

    /// Alertmanager flushes a group's notifications one after another (a flush, its retries
    /// included, ends before the next begins), so an old one reaches nook-http late only in
    /// flight, or from another peer of a cluster (each waits its place times `peer_timeout`,
    /// 15 s). A firing sent again for real comes at a later flush, at least `group_interval`
    /// after the resolve (5 minutes unless configured): the window stays well inside it.
    public static let defaultRetryWindow: Duration = .seconds(60)

    public init(capacity: Int = 1024, alertsPerGroup: Int = 512, retryWindow: Duration = AlertEpisodes.defaultRetryWindow,
                clock: @escaping @Sendable () -> Duration = { MonotonicClock.now }) {
        self.capacity = max(1, capacity)
        self.alertsPerGroup = max(1, alertsPerGroup)
        self.retryWindow = max(.zero, retryWindow)
        self.clock = clock
    }

    /// Groups remembered.
    public var count: Int { groups.count }

    /// What to do with a notification.
    public enum Admission: Sendable, Equatable {
        /// Carry it out.
        case admitted
        /// Some of its alerts are stale: carry out `notification`, which is it without them
        /// (`leftOut`: their fingerprints, in the order sent).
        case partlyStale(AlertNotification, leftOut: [String])
        /// It is older than what is known of every one of its alerts (this many): it changes nothing.
        case stale(Int)
    }

    /// Bytes of the group keys and fingerprints kept (each at most ``longestKept`` and a digest's).
    public var keptBytes: Int {
        groups.reduce(0) { total, group in total + group.key.utf8.count + group.value.keys.reduce(0) { $0 + $1.utf8.count } }
    }

    /// A group key or fingerprint longer than this is kept as its SHA-256 (a sender may write
    /// either at any length, and a group keeps hundreds of fingerprints: kept whole, a few of
    /// 64 KiB bodies each would make the bound on groups and alerts no bound on memory).
    /// Alertmanager's and Grafana's fingerprints are 16 hex digits.
    public static let longestKept = 128

    /// `text` as kept: itself, or when longer than ``longestKept`` its SHA-256, marked by a NUL
    /// no JSON string of a real sender starts with (a collision of two could make one
    /// group's or alert's resolve silence another).
    static func kept(_ text: String) -> String {
        guard text.utf8.count > longestKept else { return text }
        return "\u{0}sha256:" + SHA256.hex(SHA256.hash(text.utf8))
    }

    /// Judges `notification` of the group `key` and remembers what it says that is new; a stale
    /// alert teaches nothing.
    public func admit(_ notification: AlertNotification, key fullKey: String) -> Admission {
        heardCount += 1
        let now = clock()
        let key = Self.kept(fullKey)
        let before = groups[key] ?? [:]
        var known = before
        var staleAt: [Int] = []
        var staleResolve = false
        for (index, alert) in notification.alerts.enumerated() {
            let fingerprint = Self.kept(alert.fingerprint)
            var state = known[fingerprint] ?? Known(heard: heardCount)
            state.heard = heardCount
            // Heard of now, even when stale: what is heard of is kept longest.
            known[fingerprint]?.heard = heardCount
            let start = AlertTime(alert.startsAt)
            if alert.firing {
                if let start, let through = state.resolvedThrough, start <= through {
                    if let taken = state.resolvedTaken, now - taken >= retryWindow {
                        // Too late for a retry: the alert fired again, unchanged. A new episode.
                        state = Known(firingSince: start, heard: heardCount)
                        known[fingerprint] = state
                        continue
                    }
                    staleAt.append(index)
                    continue
                }
                if let start { state.firingSince = max(state.firingSince ?? start, start) }
            } else {
                let end = AlertTime(alert.endsAt)
                let resolvedAt = [start, end].compactMap { $0 }.max()
                if let resolvedAt, let last = state.lastResolved, resolvedAt <= last,
                   let since = state.firingSince, let through = state.resolvedThrough, since > through {
                    staleAt.append(index)
                    staleResolve = true
                    continue
                }
                if let resolvedAt { state.lastResolved = max(state.lastResolved ?? resolvedAt, resolvedAt) }
                let through = [state.resolvedThrough, resolvedAt, state.firingSince].compactMap { $0 }.max()
                if let through, state.resolvedThrough.map({ through > $0 }) ?? true { state.resolvedTaken = now }
                state.resolvedThrough = through
            }
            known[fingerprint] = state
        }
        // A stale resolve means its alert fires anew since: the notification is older than the one
        // that said so, and cannot say what the group's card is now. It teaches nothing.
        if staleResolve {
            known = before
            for alert in notification.alerts {
                let fingerprint = Self.kept(alert.fingerprint)
                if known[fingerprint] != nil { known[fingerprint]!.heard = heardCount }
            }
        }
        if known.count > alertsPerGroup {
            for (fingerprint, _) in known.sorted(by: { $0.value.heard < $1.value.heard }).prefix(known.count - alertsPerGroup) {
                known[fingerprint] = nil
            }
        }
        groups[key] = known
        heard[key] = heardCount
        if groups.count > capacity, let oldest = heard.min(by: { $0.value < $1.value })?.key {
            groups[oldest] = nil
            heard[oldest] = nil
        }
        guard !staleAt.isEmpty else { return .admitted }
        guard staleAt.count < notification.alerts.count, !staleResolve else { return .stale(staleAt.count) }
        var rest = notification
        let left = Set(staleAt)
        rest.alerts = notification.alerts.enumerated().filter { !left.contains($0.offset) }.map(\.element)
        // The group's status follows the alerts it is carried out with: nothing firing among them, it resolved.
        rest.firing = notification.firing && rest.alerts.contains(where: \.firing)
        return .partlyStale(rest, leftOut: staleAt.map { notification.alerts[$0].fingerprint })
    }
}
