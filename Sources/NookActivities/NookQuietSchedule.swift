/// A moment on the board's wall clock: seconds since 1970-01-01 00:00 in its local time zone
/// (UTC seconds plus the zone's offset). Quiet hours (Z1) are written in local time; the daemon
/// reads it from the system, tests make it from a manual clock.
public struct NookLocalTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var seconds: Int64

    public init(seconds: Int64) { self.seconds = seconds }

    /// `day` days after 1970-01-01 (a Thursday), at `hour:minute`.
    public init(day: Int64, hour: Int, minute: Int, second: Int = 0) {
        seconds = day * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    public var day: Int64 { seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400 }
    /// 0 = Sunday … 6 = Saturday.
    public var weekday: Int { Int(((day % 7) + 7 + 4) % 7) }
    public var secondOfDay: Int { Int(seconds - day * 86_400) }
    public var hour: Int { secondOfDay / 3600 }
    public var minute: Int { secondOfDay / 60 % 60 }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.seconds < rhs.seconds }
    public static func + (lhs: Self, rhs: Int64) -> Self { Self(seconds: lhs.seconds + rhs) }

    private static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
    public var description: String {
        let two = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
        return "\(Self.dayNames[weekday]) \(two(hour)):\(two(minute))"
    }
}

/// When the board is quiet by itself (Z1): ranges such as `"mon-fri 22:00-07:00"`. A range
/// whose end is not after its start runs across midnight into the next day; its days are the
/// days it starts on. Ranges that touch or overlap make one quiet period.
public struct NookQuietSchedule: Hashable, Sendable {
    public struct Range: Hashable, Sendable, CustomStringConvertible {
        /// Weekdays (0 = Sunday) the range starts on.
        public var days: Set<Int>
        /// Minutes after midnight.
        public var from: Int
        public var to: Int
        let text: String

        /// Reads `"DAYS HH:MM-HH:MM"`: DAYS is `daily`, or days and day spans separated by
        /// commas (`mon-fri`, `sat,sun`, `mon,wed-fri`); `24:00` may end a range.
        public init(parsing text: String) throws(NookQuietScheduleError) {
            let parts = text.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2 else { throw NookQuietScheduleError(text, "must be DAYS FROM-TO such as \"mon-fri 22:00-07:00\"") }
            days = try Self.days(String(parts[0]), in: text)
            let times = parts[1].split(separator: "-")
            guard times.count == 2, let from = Self.minutes(times[0]), let to = Self.minutes(times[1]) else {
                throw NookQuietScheduleError(text, "the times must be HH:MM-HH:MM (24-hour), got \"\(parts[1])\"")
            }
            guard from < 1440 else { throw NookQuietScheduleError(text, "a range cannot start at 24:00") }
            guard from != to else {
                throw NookQuietScheduleError(text, "starts and ends at the same time; write 00:00-24:00 for a whole day")
            }
            (self.from, self.to, self.text) = (from, to, text)
        }

        public var description: String { text }

        /// Length in seconds; across midnight when the end is not after the start.
        var length: Int64 { Int64((to > from ? to - from : to + 1440 - from) * 60) }

        private static let names = ["sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6]

        private static func days(_ text: String, in whole: String) throws(NookQuietScheduleError) -> Set<Int> {
            if text == "daily" { return Set(0...6) }
            var days = Set<Int>()
            for item in text.lowercased().split(separator: ",") {
                let ends = item.split(separator: "-")
                guard (1...2).contains(ends.count), let first = names[String(ends[0])], let last = names[String(ends[ends.count - 1])] else {
                    throw NookQuietScheduleError(whole, "unknown days \"\(item)\"; use daily, mon, tue, wed, thu, fri, sat, sun, spans such as mon-fri, and commas")
                }
                var day = first
                while true {
                    days.insert(day)
                    if day == last { break }
                    day = (day + 1) % 7
                }
            }
            return days
        }

        private static func minutes(_ text: Substring) -> Int? {
            let parts = text.split(separator: ":")
            // Digits only: Int(_:) would take "+7" as an hour.
            func twoDigits(_ part: Substring) -> Int? { part.count == 2 && part.allSatisfy { $0.isASCII && $0.isNumber } ? Int(part) : nil }
            guard parts.count == 2, let hour = twoDigits(parts[0]), let minute = twoDigits(parts[1]),
                  (0...24).contains(hour), (0...59).contains(minute), hour < 24 || minute == 0 else { return nil }
            return hour * 60 + minute
        }
    }

    public var ranges: [Range]

    public init(_ ranges: [Range] = []) { self.ranges = ranges }

    /// Every occurrence of every range that starts from 8 days before `time` to 8 after it.
    private func occurrences(around time: NookLocalTime) -> [(start: NookLocalTime, end: NookLocalTime)] {
        var result: [(NookLocalTime, NookLocalTime)] = []
        for offset in -8...8 {
            let day = time.day + Int64(offset)
            let weekday = NookLocalTime(day: day, hour: 0, minute: 0).weekday
            for range in ranges where range.days.contains(weekday) {
                let start = NookLocalTime(day: day, hour: 0, minute: range.from)
                result.append((start, start + range.length))
            }
        }
        return result
    }

    /// The quiet period `time` is in, if any: when it started and when it ends (ranges that
    /// touch or overlap joined, at most a week ahead).
    public func period(containing time: NookLocalTime) -> (start: NookLocalTime, end: NookLocalTime)? {
        let all = occurrences(around: time)
        guard var period = all.filter({ $0.start <= time && time < $0.end }).min(by: { $0.start < $1.start }) else { return nil }
        var extended = true
        while extended {
            extended = false
            for occurrence in all where occurrence.start <= period.end && occurrence.end > period.end {
                period.end = occurrence.end
                extended = true
            }
        }
        return period
    }

    /// The next time after `time` that a quiet period begins (within a week).
    public func nextStart(after time: NookLocalTime) -> NookLocalTime? {
        occurrences(around: time).map(\.start).filter { $0 > time && period(containing: $0 + -1) == nil }.min()
    }
}

/// A schedule range that cannot be read, with what is wrong.
public struct NookQuietScheduleError: Error, Hashable, Sendable, CustomStringConvertible {
    public var range: String
    public var problem: String
    init(_ range: String, _ problem: String) { (self.range, self.problem) = (range, problem) }
    public var description: String { "\"\(range)\": \(problem)" }
}
