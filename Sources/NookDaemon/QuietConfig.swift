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
        for text in try reader.strings("quiet.schedule") ?? [] {
            do { ranges.append(try NookQuietSchedule.Range(parsing: text)) } catch { throw reader.error("quiet.schedule", error.description) }
        }
        schedule = NookQuietSchedule(ranges)
        if let name = try reader.choice("quiet.minimum_priority", among: ["low", "normal", "high"]) { policy.minimum = Self.priorities[name]! }
        for name in try reader.strings("quiet.suppress") ?? [] {
            guard let priority = Self.priorities[name] else {
                throw reader.error("quiet.suppress", "must list priorities (low, normal), got \"\(name)\"")
            }
            guard priority < policy.minimum else {
                throw reader.error("quiet.suppress", "\"\(name)\" is not below quiet.minimum_priority (\(policy.minimum)), so it is never held back")
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

    /// `quiet until` argument: `HH:MM` (the next time the wall clock shows it) or `N m`/`N h`.
    static func until(_ text: String, now: NookLocalTime) -> NookLocalTime? {
        if let unit = text.last, unit == "m" || unit == "h" {
            // Whole minutes or hours, up to a week.
            guard case .success(let seconds) = DurationText.seconds(text, units: "mh"), !text.contains("."), seconds <= 7 * 86_400 else { return nil }
            return now + Int64(seconds)
        }
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
              (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        var target = NookLocalTime(day: now.day, hour: hour, minute: minute)
        if target <= now { target = target + 86_400 }
        return target
    }
}
