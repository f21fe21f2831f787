import NookSystem

/// nook-notify's command line, read by ``FlagReader`` (which says why not ArgumentParser).
/// The help, the messages and exit 64 are ArgumentParser's, word for word, as before.
public struct NotifyCommandLine: Sendable, Equatable {
    public var socket: String?
    public var system = false
    public var replace = false
    public var module: String?
    public var logLevel = "info"
    /// Seconds a Notify waits for nookd (``NotificationBridge/Options/timeout``).
    public var timeout = NotifyCommandLine.defaultTimeout
    public var help = false

    public static let defaultTimeout = 10.0
    /// D-Bus clients give up after 25 s by default: the bridge answers well before.
    public static let timeoutRange = 0.1...20.0

    public init() {}

    /// A command line the bridge cannot run with (exit 64), as ArgumentParser worded it.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var description: String
        /// The flag's help line, printed under a missing value as ArgumentParser did.
        public var help: String?
        public init(_ description: String, help: String? = nil) { (self.description, self.help) = (description, help) }
    }

    /// Every flag nook-notify accepts, in the order `--help` lists them (``usage`` is written
    /// out in ArgumentParser's layout; a test checks it lists each of these).
    public static let options: [FlagReader.Option] = [
        .init("--socket", value: "<socket>", help: "nookd's socket (default: $NOOK_SOCKET, else $XDG_RUNTIME_DIR/nook/nookd.sock if it exists, else /run/nook/nookd.sock)."),
        .init("--system", help: "Serve on the system bus instead of the session bus."),
        .init("--replace", help: "Take the name from a running notification server that allows replacement."),
        .init("--module", value: "<module>", help: "nookd queue module the cards go to (default: the foreground one)."),
        .init("--log-level", value: "<log-level>", help: "Log level: trace, debug, info, notice, warning, error."),
        .init("--timeout", value: "<seconds>", help: "How long a notification waits for nookd before its sender is told it failed (default: 10)."),
        .init("-h", "--help", help: "Show help information."),
    ]

    /// Reads `arguments` (without the program name) in ArgumentParser's order: `-h`/`--help`
    /// anywhere wins; then a missing value or a switch given one, where it is met; then the
    /// values' checks (`logLevelProblem`, the log level judged by `StandardErrorLogging`); then
    /// an unknown option; then an unexpected word.
    public static func parse(_ arguments: [String], logLevelProblem: (String) -> String?) throws(Problem) -> NotifyCommandLine {
        var line = NotifyCommandLine()
        let helpNames = ["-h", "--help"]
        if arguments.contains(where: { helpNames.contains(String($0.prefix { $0 != "=" })) }) {
            line.help = true
            return line
        }
        // ArgumentParser took `--system=` as `--system`.
        let switches = options.filter { !$0.takesValue }.map(\.name)
        let words = arguments.map { $0.hasSuffix("=") && switches.contains(String($0.dropLast())) ? String($0.dropLast()) : $0 }
        let read: (flags: [FlagReader.Flag], strays: [FlagReader.Problem])
        do throws(FlagReader.Problem) {
            read = try FlagReader.readLeniently(words, options: options, flagPrefix: "-",
                                                emptyInlineIsMissing: true, dashDashEndsFlags: true)
        } catch {
            throw problem(error)
        }
        for flag in read.flags {
            switch (flag.name, flag.value) {
            case ("--system", _): line.system = true
            case ("--replace", _): line.replace = true
            case ("--socket", let value?): line.socket = value
            case ("--module", let value?): line.module = value
            case ("--timeout", let value?):
                guard let seconds = Double(value), timeoutRange.contains(seconds) else {
                    throw Problem("--timeout must be a number of seconds from \(timeoutRange.lowerBound) to \(Int(timeoutRange.upperBound)); got '\(value)'")
                }
                line.timeout = seconds
            case (_, let value?): line.logLevel = value
            default: break
            }
        }
        if let problem = logLevelProblem(line.logLevel) { throw Problem(problem) }
        if let module = line.module, module.isEmpty { throw Problem("--module must not be empty") }
        let unknown = read.strays.first { if case .unknownOption = $0 { true } else { false } }
        if let first = unknown ?? read.strays.first { throw problem(first) }
        return line
    }

    static func problem(_ problem: FlagReader.Problem) -> Problem {
        switch problem {
        case .unknownOption(let name): return Problem("Unknown option '\(name)'")
        case .unexpectedArgument(let argument): return Problem("Unexpected argument '\(argument)'")
        case .missingValue(let name):
            let flag = FlagReader.option(named: name, in: options)
            let spelled = "\(name) \(flag?.value ?? "<value>")"
            return Problem("Missing value for '\(spelled)'", help: flag.map { "\(spelled)  \($0.help)" })
        case .switchWithValue(let name, let value): return Problem("The option '\(name)' does not take any value, but '\(value)' was specified.")
        case .badValue(_, let problem): return Problem(problem)
        }
    }

    static let usageLine = "nook-notify [--socket <socket>] [--system] [--replace] [--module <module>] [--log-level <log-level>] [--timeout <seconds>]"

    /// What goes to standard error for `problem` before exit 64.
    public static func errorText(_ problem: Problem) -> String {
        var text = "Error: \(problem.description)\n"
        if let help = problem.help { text += "Help:  \(help)\n" }
        return text + "Usage: \(usageLine)\n  See 'nook-notify --help' for more information.\n"
    }

    /// `--help`, on standard output.
    public static let usage = """
        OVERVIEW: Show freedesktop notifications (notify-send) on the Nook display.

        Owns org.freedesktop.Notifications on the session bus (or the system bus with
        --system) and forwards each notification to nookd.

        USAGE: \(usageLine)

        OPTIONS:
          --socket <socket>       nookd's socket (default: $NOOK_SOCKET, else
                                  $XDG_RUNTIME_DIR/nook/nookd.sock if it exists, else
                                  /run/nook/nookd.sock).
          --system                Serve on the system bus instead of the session bus.
          --replace               Take the name from a running notification server that
                                  allows replacement.
          --module <module>       nookd queue module the cards go to (default: the
                                  foreground one).
          --log-level <log-level> Log level: trace, debug, info, notice, warning,
                                  error. (default: info)
          --timeout <seconds>     How long a notification waits for nookd before its
                                  sender is told it failed (default: 10).
          -h, --help              Show help information.


        """
}
