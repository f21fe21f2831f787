/// How the bridges read their few flags without ArgumentParser, which links FoundationEssentials
/// (about 6 MiB of text and 1 MiB of relocated data) into a process whose idle resident set is
/// a goal (`mqtt_bridge_idle_rss_mib`, `notify_bridge_idle_rss_mib` ≤ 8). This splits the words;
/// each bridge words its own messages (nook-notify keeps ArgumentParser's, nook-mqtt its own).
public enum FlagReader {
    /// What is wrong with a command line, before any value is judged.
    public enum Problem: Error, Equatable, Sendable {
        /// `-x` or `--colour`: no such flag.
        case unknownOption(String)
        /// A word that is not a flag nor a flag's value.
        case unexpectedArgument(String)
        /// A valued flag last, followed by another flag, or as `--flag=` when
        /// `emptyInlineIsMissing`.
        case missingValue(flag: String)
        /// `--switch=value`.
        case switchWithValue(flag: String, value: String)
    }

    /// One flag as given: `value` is nil for a switch.
    public struct Flag: Equatable, Sendable {
        public var name: String
        public var value: String?
        public init(name: String, value: String?) { (self.name, self.value) = (name, value) }
    }

    /// Reads `arguments` (without the program name) as `--flag value`, `--flag=value` and
    /// switches, in order; the first problem is thrown where it is met. A valued flag's value is
    /// the next word unless that word starts with `flagPrefix` (`--` lets `-x` be a value; `-`
    /// does not, as ArgumentParser). After a lone `--` when `dashDashEndsFlags`, every word is
    /// unexpected.
    public static func read(_ arguments: [String], valued: Set<String>, switches: Set<String>, flagPrefix: String = "--",
                            emptyInlineIsMissing: Bool = false, dashDashEndsFlags: Bool = false) throws(Problem) -> [Flag] {
        try scan(arguments, valued: valued, switches: switches, flagPrefix: flagPrefix, emptyInlineIsMissing: emptyInlineIsMissing,
                 dashDashEndsFlags: dashDashEndsFlags, throwingStrays: true).flags
    }

    /// As `read`, but unknown options and unexpected words are returned (`strays`, in order)
    /// instead of thrown: ArgumentParser reports them only after a missing value, a switch given a
    /// value, and the values' own checks.
    public static func readLeniently(_ arguments: [String], valued: Set<String>, switches: Set<String>, flagPrefix: String = "--",
                                     emptyInlineIsMissing: Bool = false, dashDashEndsFlags: Bool = false) throws(Problem) -> (flags: [Flag], strays: [Problem]) {
        try scan(arguments, valued: valued, switches: switches, flagPrefix: flagPrefix, emptyInlineIsMissing: emptyInlineIsMissing,
                 dashDashEndsFlags: dashDashEndsFlags, throwingStrays: false)
    }

    private static func scan(_ arguments: [String], valued: Set<String>, switches: Set<String>, flagPrefix: String,
                             emptyInlineIsMissing: Bool, dashDashEndsFlags: Bool, throwingStrays: Bool) throws(Problem) -> (flags: [Flag], strays: [Problem]) {
        var flags: [Flag] = []
        var strays: [Problem] = []
        func stray(_ problem: Problem) throws(Problem) {
            if throwingStrays { throw problem }
            strays.append(problem)
        }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if dashDashEndsFlags, argument == "--" {
                for word in arguments[index...] { try stray(.unexpectedArgument(word)) }
                break
            }
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            if switches.contains(name) {
                if let inline { throw .switchWithValue(flag: name, value: inline) }
                flags.append(Flag(name: name, value: nil))
                continue
            }
            guard valued.contains(name) else {
                try stray(argument.hasPrefix("-") ? .unknownOption(name) : .unexpectedArgument(argument))
                continue
            }
            if let inline {
                if inline.isEmpty, emptyInlineIsMissing { throw .missingValue(flag: name) }
                flags.append(Flag(name: name, value: inline))
                continue
            }
            guard index < arguments.count, !arguments[index].hasPrefix(flagPrefix) else { throw .missingValue(flag: name) }
            flags.append(Flag(name: name, value: arguments[index]))
            index += 1
        }
        return (flags, strays)
    }
}
