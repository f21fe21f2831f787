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

    /// A command line the bridge cannot run with (exit 64), as ArgumentParser worded it, with
    /// the flag's help line printed under a missing value.
    public typealias Problem = CommandLineProblem

    /// Every flag nook-notify accepts, in the order `--help` lists them, each with what it sets
    /// (``usage`` is written out in ArgumentParser's layout; a test checks it lists each of these).
    static let table = FlagTable<NotifyCommandLine>([
        .value("--socket", placeholder: "<socket>",
               help: "nookd's socket (default: $NOOK_SOCKET, else $XDG_RUNTIME_DIR/nook/nookd.sock if it exists, else /run/nook/nookd.sock).") {
            $0.socket = $1
        },
        .toggle("--system", help: "Serve on the system bus instead of the session bus.") { $0.system = true },
        .toggle("--replace", help: "Take the name from a running notification server that allows replacement.") { $0.replace = true },
        .value("--module", placeholder: "<module>", help: "nookd queue module the cards go to (default: the foreground one).") { $0.module = $1 },
        .value("--log-level", placeholder: "<log-level>", help: "Log level: trace, debug, info, notice, warning, error.") { $0.logLevel = $1 },
        .value("--timeout", placeholder: "<seconds>",
               help: "How long a notification waits for nookd before its sender is told it failed (default: 10).") { (line, value) throws(Problem) in
            guard let seconds = Double(value), timeoutRange.contains(seconds) else {
                throw Problem("--timeout must be a number of seconds from \(timeoutRange.lowerBound) to \(Int(timeoutRange.upperBound)); got '\(value)'")
            }
            line.timeout = seconds
        },
        .toggle("-h", "--help", help: "Show help information.") { $0.help = true },
    ])

    public static var options: [FlagReader.Option] { table.options }

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
        let strays = try table.readAsArgumentParser(words, into: &line, emptyInlineIsMissing: true, suggesting: false)
        if let problem = logLevelProblem(line.logLevel) { throw Problem(problem) }
        if let module = line.module, module.isEmpty { throw Problem("--module must not be empty") }
        let unknown = strays.first { if case .unknownOption = $0 { true } else { false } }
        if let first = unknown ?? strays.first { throw table.argumentParserProblem(first, suggesting: false) }
        return line
    }

    static let usageLine = "nook-notify [--socket <socket>] [--system] [--replace] [--module <module>] [--log-level <log-level>] [--timeout <seconds>]"

    /// What goes to standard error for `problem` before exit 64.
    public static func errorText(_ problem: Problem) -> String { problem.argumentParserText(usage: usageLine, program: "nook-notify") }

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
