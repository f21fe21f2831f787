/// The one hand reader of command lines, for the processes that stay up (nookd, nook-mqtt,
/// nook-notify, nook-lcdproc, nook-http): ArgumentParser links FoundationEssentials into them
/// (see the benchmarks document, `flags_*` figures). Each program declares its flags once, as a
/// table of ``Option``s: this reads its words, its `--help` is written from it, and tests list
/// it. Each program words its own messages (nook-notify and nook-lcdproc keep ArgumentParser's,
/// nookd, nook-mqtt and nook-http their own).
public enum FlagReader {
    /// One flag a program accepts.
    public struct Option: Sendable {
        /// Its spellings in the order help shows them (`-h`, `--help`).
        public var names: [String]
        /// The value's placeholder in help (`VALUE`, `<socket>`); nil for a switch.
        public var value: String?
        public var help: String
        /// A check of the value where it is met, returning what is wrong (the whole message).
        public var check: (@Sendable (String) -> String?)?

        public init(_ names: String..., value: String? = nil, help: String, check: (@Sendable (String) -> String?)? = nil) {
            self.init(names: names, value: value, help: help, check: check)
        }

        init(names: [String], value: String?, help: String, check: (@Sendable (String) -> String?)?) {
            (self.names, self.value, self.help, self.check) = (names, value, help, check)
        }

        /// The name a program knows the flag by: its long spelling.
        public var name: String { names.first { $0.hasPrefix("--") } ?? names[0] }
        public var takesValue: Bool { value != nil }
    }

    /// What is wrong with a command line, before any value is judged.
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// `-x` or `--colour`: no such flag.
        case unknownOption(String)
        /// A word that is not a flag nor a flag's value.
        case unexpectedArgument(String)
        /// A valued flag last, followed by another flag, or as `--flag=` when
        /// `emptyInlineIsMissing`.
        case missingValue(flag: String)
        /// `--switch=value`.
        case switchWithValue(flag: String, value: String)
        /// The flag's own ``Option/check`` refused the value: `problem` is its message.
        case badValue(flag: String, problem: String)

        /// nookd's and nook-mqtt's wording (nook-notify words them as ArgumentParser does).
        public var description: String {
            switch self {
            case .unknownOption(let name): "unknown option '\(name)'"
            case .unexpectedArgument(let argument): "unexpected argument '\(argument)'"
            case .missingValue(let name): "missing value for '\(name)'"
            case .switchWithValue(let name, _): "\(name) takes no value"
            case .badValue(_, let problem): problem
            }
        }
    }

    /// One flag as given: `name` is the option's ``Option/name``, `value` nil for a switch.
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
    public static func read(_ arguments: [String], options: [Option], flagPrefix: String = "--",
                            emptyInlineIsMissing: Bool = false, dashDashEndsFlags: Bool = false) throws(Problem) -> [Flag] {
        try scan(arguments, options: options, flagPrefix: flagPrefix, emptyInlineIsMissing: emptyInlineIsMissing,
                 dashDashEndsFlags: dashDashEndsFlags, throwingStrays: true).flags
    }

    /// As `read`, but unknown options and unexpected words are returned (`strays`, in order)
    /// instead of thrown: ArgumentParser reports them only after a missing value, a switch given a
    /// value, and the values' own checks.
    public static func readLeniently(_ arguments: [String], options: [Option], flagPrefix: String = "--",
                                     emptyInlineIsMissing: Bool = false, dashDashEndsFlags: Bool = false) throws(Problem) -> (flags: [Flag], strays: [Problem]) {
        try scan(arguments, options: options, flagPrefix: flagPrefix, emptyInlineIsMissing: emptyInlineIsMissing,
                 dashDashEndsFlags: dashDashEndsFlags, throwingStrays: false)
    }

    /// The option `word` names (any of its spellings).
    public static func option(named word: String, in options: [Option]) -> Option? {
        options.first { $0.names.contains(word) }
    }

    /// The OPTIONS part of a help text: each flag's spellings (with `value` if it takes one) on
    /// a line, its help indented on the next, in the table's order.
    public static func optionsHelp(_ options: [Option]) -> String {
        var text = ""
        for option in options {
            text += "  " + option.names.joined(separator: ", ") + (option.value.map { " " + $0 } ?? "") + "\n        \(option.help)\n"
        }
        return text
    }

    private static func scan(_ arguments: [String], options: [Option], flagPrefix: String,
                             emptyInlineIsMissing: Bool, dashDashEndsFlags: Bool, throwingStrays: Bool) throws(Problem) -> (flags: [Flag], strays: [Problem]) {
        var flags: [Flag] = []
        var strays: [Problem] = []
        func stray(_ problem: Problem) throws(Problem) {
            if throwingStrays { throw problem }
            strays.append(problem)
        }
        func accept(_ option: Option, _ value: String) throws(Problem) {
            if let problem = option.check?(value) { throw .badValue(flag: option.name, problem: problem) }
            flags.append(Flag(name: option.name, value: value))
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
            guard let option = option(named: name, in: options) else {
                try stray(argument.hasPrefix("-") ? .unknownOption(name) : .unexpectedArgument(argument))
                continue
            }
            guard option.takesValue else {
                if let inline { throw .switchWithValue(flag: name, value: inline) }
                flags.append(Flag(name: option.name, value: nil))
                continue
            }
            if let inline {
                if inline.isEmpty, emptyInlineIsMissing { throw .missingValue(flag: name) }
                try accept(option, inline)
                continue
            }
            guard index < arguments.count, !arguments[index].hasPrefix(flagPrefix) else { throw .missingValue(flag: name) }
            try accept(option, arguments[index])
            index += 1
        }
        return (flags, strays)
    }
}
