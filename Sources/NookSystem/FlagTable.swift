/// A command line a program cannot run with (exit 64): what is wrong, and, in ArgumentParser's
/// wording, the flag's help line printed under it.
public struct CommandLineProblem: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public var help: String?
    public init(_ description: String, help: String? = nil) { (self.description, self.help) = (description, help) }

    /// What goes to standard error before exit 64, as ArgumentParser wrote it: the problem, the
    /// flag's help, the usage line and where to read more.
    public func argumentParserText(usage: String, program: String) -> String {
        var text = "Error: \(description)\n"
        if let help { text += "Help:  \(help)\n" }
        return text + "Usage: \(usage)\n  See '\(program) --help' for more information.\n"
    }
}

/// One flag of a program: how it is spelled and helped (``FlagReader/Option``) and what it
/// sets in the program's command line. A program's flags are a ``FlagTable`` of these rows.
public struct FlagRow<Line>: Sendable {
    public let option: FlagReader.Option
    let set: @Sendable (inout Line, String?) throws(CommandLineProblem) -> Void

    /// A flag without a value.
    public static func toggle(_ names: String..., help: String, _ set: @escaping @Sendable (inout Line) -> Void) -> FlagRow {
        FlagRow(option: .init(names: names, value: nil, help: help, check: nil)) { line, _ in set(&line) }
    }

    /// A flag with a value (`placeholder` in help); `check` judges it where it is met.
    public static func value(_ names: String..., placeholder: String, help: String, check: (@Sendable (String) -> String?)? = nil,
                             _ set: @escaping @Sendable (inout Line, String) throws(CommandLineProblem) -> Void) -> FlagRow {
        FlagRow(option: .init(names: names, value: placeholder, help: help, check: check)) { (line, value) throws(CommandLineProblem) in
            try set(&line, value ?? "")
        }
    }
}

/// A program's flags, one row each, and the one way every long-running program reads them
/// (nookd and the bridges; ``FlagReader`` says why not ArgumentParser). nookd, nook-mqtt and
/// nook-http word problems their own way (``read(_:into:rejectingEmpty:)``); nook-notify and
/// nook-lcdproc keep ArgumentParser's words and order (``readAsArgumentParser(_:into:emptyInlineIsMissing:suggesting:)``).
public struct FlagTable<Line>: Sendable {
    public let rows: [FlagRow<Line>]

    public init(_ rows: [FlagRow<Line>]) { self.rows = rows }

    /// Every flag, in the order `--help` lists them.
    public var options: [FlagReader.Option] { rows.map(\.option) }

    /// Reads `arguments` (without the program name) onto `line`: `--flag value` or
    /// `--flag=value`, the first problem thrown where it is met. `rejectingEmpty`: a valued flag
    /// given an empty value is refused.
    public func read(_ arguments: [String], into line: Line, rejectingEmpty: Bool = false) throws(CommandLineProblem) -> Line {
        let flags: [FlagReader.Flag]
        do throws(FlagReader.Problem) { flags = try FlagReader.read(arguments, options: options) } catch { throw CommandLineProblem(error.description) }
        var line = line
        for flag in flags {
            if rejectingEmpty, flag.value?.isEmpty == true { throw CommandLineProblem("\(flag.name) needs a value, got an empty one") }
            try set(flag, on: &line)
        }
        return line
    }

    /// Reads `words` onto `line` as ArgumentParser did: `-x` is never a value, a lone `--` ends
    /// the flags, a missing value or a switch given one is thrown where it is met, then each
    /// row's setting in order; unknown options and unexpected words are returned, for the
    /// program to report in its own order.
    public func readAsArgumentParser(_ words: [String], into line: inout Line, emptyInlineIsMissing: Bool,
                                     suggesting: Bool) throws(CommandLineProblem) -> [FlagReader.Problem] {
        let read: (flags: [FlagReader.Flag], strays: [FlagReader.Problem])
        do throws(FlagReader.Problem) {
            read = try FlagReader.readLeniently(words, options: options, flagPrefix: "-", emptyInlineIsMissing: emptyInlineIsMissing,
                                                dashDashEndsFlags: true)
        } catch {
            throw argumentParserProblem(error, suggesting: suggesting)
        }
        for flag in read.flags { try set(flag, on: &line) }
        return read.strays
    }

    private func set(_ flag: FlagReader.Flag, on line: inout Line) throws(CommandLineProblem) {
        guard let row = rows.first(where: { $0.option.name == flag.name }) else { return }
        try row.set(&line, flag.value)
    }

    // MARK: ArgumentParser's words

    /// `problem` as ArgumentParser worded it, with the flag's help line under a missing or bad
    /// value; `suggesting`: an unknown option names the nearest flag.
    public func argumentParserProblem(_ problem: FlagReader.Problem, suggesting: Bool) -> CommandLineProblem {
        switch problem {
        case .unknownOption(let name):
            guard suggesting, let suggestion = suggestion(for: name) else { return CommandLineProblem("Unknown option '\(name)'") }
            return CommandLineProblem("Unknown option '\(name)'. Did you mean '\(suggestion)'?")
        case .unexpectedArgument(let argument): return CommandLineProblem("Unexpected argument '\(argument)'")
        case .missingValue(let name):
            let flag = FlagReader.option(named: name, in: options)
            let spelled = "\(name) \(flag?.value ?? "<value>")"
            return CommandLineProblem("Missing value for '\(spelled)'", help: flag.map { "\(spelled)  \($0.help)" })
        case .switchWithValue(let name, let value):
            return CommandLineProblem("The option '\(name)' does not take any value, but '\(value)' was specified.")
        case .badValue(let name, let problem):
            let flag = FlagReader.option(named: name, in: options)
            return CommandLineProblem(problem, help: flag.map { "\(name) \($0.value ?? "<value>")  \($0.help)" })
        }
    }

    /// ArgumentParser's refusal of `value` for the flag `name`, with the flag's help line.
    public func invalidValue(_ value: String, for name: String) -> CommandLineProblem {
        let flag = FlagReader.option(named: name, in: options)
        let spelled = "\(name) \(flag?.value ?? "<value>")"
        return CommandLineProblem("The value '\(value)' is invalid for '\(spelled)'", help: flag.map { "\(spelled)  \($0.help)" })
    }

    /// A whole number's check, where the flag is met, as ArgumentParser converted each value in
    /// turn (`--port=x --config` names the port, not the missing file).
    public static func wholeNumber(_ name: String) -> @Sendable (String) -> String? {
        let spelled = "\(name) <\(name.dropFirst(2))>"
        return { value in Int(value) == nil ? "The value '\(value)' is invalid for '\(spelled)'" : nil }
    }

    /// The long flag nearest to a mistyped one, as ArgumentParser suggested it: fewer than 4
    /// edits away, the first of the nearest in the table's order, never `--help`; none for a
    /// one-letter `-x`.
    public func suggestion(for name: String) -> String? {
        guard name.hasPrefix("--") || name.count > 2 else { return nil }
        let candidates = options.flatMap(\.names).filter { $0.hasPrefix("--") && $0 != "--help" }
        let near = candidates.map { ($0, Self.editDistance(Array($0), Array(name))) }.filter { $0.1 < 4 }
        return near.min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein distance: insertions, deletions and substitutions of one character.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
