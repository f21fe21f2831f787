#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookConfig
import NookProtocol

/// `[quiet]` (Z1): the schedule and what quiet means for each priority.
///
/// ```toml
/// [quiet]
/// schedule = ["daily 22:00-07:00", "sat,sun 07:00-09:00"]
/// minimum_priority = "high"   # at or above this still take the glass
/// suppress = ["low"]          # these end as `suppressed`; the rest below the minimum wait
/// ```
struct QuietConfig: Hashable, Sendable {
    var schedule = NookQuietSchedule()
    var policy = NookQuietHours.Policy()

    static let priorities: [String: NookActivityPriority] = ["low": .low, "normal": .normal, "high": .high]

    init() {}

    init(reading reader: ConfigReader) throws(ConfigError) {
        var ranges: [NookQuietSchedule.Range] = []
        for text in try Service.QuietHours.schedule.read(reader) ?? [] {
            do { ranges.append(try NookQuietSchedule.Range(parsing: text)) } catch { throw reader.error(Service.QuietHours.schedule.key, error.description) }
        }
        schedule = NookQuietSchedule(ranges)
        if let name = try Service.QuietHours.minimumPriority.read(reader) { policy.minimum = Self.priorities[name]! }
        for name in try Service.QuietHours.suppress.read(reader) ?? [] {
            guard let priority = Self.priorities[name] else {
                throw reader.error(Service.QuietHours.suppress.key, "must list priorities (low, normal), got \"\(name)\"")
            }
            guard priority < policy.minimum else {
                throw reader.error(Service.QuietHours.suppress.key, "\"\(name)\" is not below quiet.minimum_priority (\(policy.minimum)), so it is never held back")
            }
            policy.suppressed.insert(priority)
        }
    }

    /// The board's wall clock in its time zone (`localtime_r`'s offset; DST-free arithmetic
    /// on top of it: a schedule reads the offset in force now).
    @Sendable static func systemLocalTime() -> NookLocalTime {
        var seconds = time(nil)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return NookLocalTime(seconds: Int64(seconds) + Int64(parts.tm_gmtoff))
    }

    /// What `quiet until` takes, for its refusals.
    static let untilExpected = "HH:MM (24-hour, such as 07:30) or whole minutes or hours up to a week (such as 45m or 2h)"

    /// `quiet until` argument: `HH:MM` (the next time the wall clock shows it) or `N m`/`N h`,
    /// or what is wrong with it (the caller names the field).
    static func until(_ text: String, now: NookLocalTime) -> Result<NookLocalTime, FieldProblem> {
        guard text.contains(":") else {
            return DurationText.seconds(text, units: "mh", expected: untilExpected, range: 0...(7 * 86_400), fractions: .refused)
                .map { now + Int64($0) }
        }
        let quoted = "'\(DurationText.shown(text))'"
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        func twoDigits(_ part: Substring) -> Int? { part.count == 2 && part.allSatisfy { $0.isASCII && $0.isNumber } ? Int(part) : nil }
        guard parts.count == 2, let hour = twoDigits(parts[0]), let minute = twoDigits(parts[1]) else {
            return .failure(FieldProblem("\(quoted) is not a time of day as HH:MM (two digits each); must be \(untilExpected)"))
        }
        guard (0...23).contains(hour) else { return .failure(FieldProblem("\(quoted) has no such hour (00 to 23); must be \(untilExpected)")) }
        guard (0...59).contains(minute) else { return .failure(FieldProblem("\(quoted) has no such minute (00 to 59); must be \(untilExpected)")) }
        var target = NookLocalTime(day: now.day, hour: hour, minute: minute)
        if target <= now { target = target + 86_400 }
        return .success(target)
    }
}
