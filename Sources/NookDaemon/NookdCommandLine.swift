/// nookd's command line, read by hand (issue 19): ArgumentParser links FoundationEssentials,
/// about 2.4 MiB of text and a share of nookd's resident memory for a dozen flags. nookctl keeps
/// ArgumentParser (completions, subcommands); nookd has only these flags and `--help`.
public struct NookdCommandLine: Sendable {
    public var config: String?
    public var flags = FlagOverrides()
    public var check = false
    public var testDisplay = false
    public var help = false

    public init() {}

    /// A command line nookd cannot run with, as `--flag: what is wrong` (exit 64, as before).
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// Flags that take a value, with the help line of each.
    static let valued: [(flag: String, help: String)] = [
        ("--config", "Config file (TOML). Without it nookd runs on its defaults."),
        ("--socket", "Socket path (default $XDG_RUNTIME_DIR/nook/nookd.sock, else /run/nook/nookd.sock)."),
        ("--display", "Display backend: auto, drm, fbdev, mock, led-spi, led-i2c or led-mock."),
        ("--frames", "Directory the mock display writes its PNG frames to."),
        ("--size", "Mock display size, WIDTHxHEIGHT."),
        ("--rotation", "Rotation from drawing to panel: 0, 90, 180 or 270."),
        ("--theme", "Theme appearance: dark or light."),
        ("--socket-group", "Group that may use the socket (mode 0660)."),
        ("--log-level", "Log level: trace, debug, info, notice, warning, error."),
        ("--journal", "Journal of unfinished activities, restored after a crash or restart (default $STATE_DIRECTORY/journal under systemd; \"none\" turns it off)."),
        ("--journal-sync", "When a journal record is safe enough to answer: ack (synced first; the default) or interval (synced within a second)."),
    ]

    static let switches: [(flag: String, help: String)] = [
        ("--check", "Validate the config file and flags, print the result and exit."),
        ("--test-display", "Show a test card on the DRM display for a second, restore the display, report and exit."),
        ("-h, --help", "Show this help and exit."),
    ]

    /// Reads `arguments` (without the program name): `--flag value` or `--flag=value`; every
    /// value is checked by the rule of the config key it overrides (``FlagOverrides/validate()``).
    public static func parse(_ arguments: [String]) throws(Problem) -> NookdCommandLine {
        var line = NookdCommandLine()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            switch name {
            case "--check", "--test-display", "--help", "-h":
                guard inline == nil else { throw Problem("\(name) takes no value") }
                switch name {
                case "--check": line.check = true
                case "--test-display": line.testDisplay = true
                default: line.help = true
                }
                continue
            default:
                break
            }
            guard valued.contains(where: { $0.flag == name }) else {
                throw Problem(argument.hasPrefix("-") ? "unknown option '\(name)'" : "unexpected argument '\(argument)'")
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard index < arguments.count, !arguments[index].hasPrefix("--") else { throw Problem("missing value for '\(name)'") }
                value = arguments[index]
                index += 1
            }
            switch name {
            case "--config": line.config = value
            case "--socket": line.flags.socket = value
            case "--display": line.flags.display = value
            case "--frames": line.flags.frames = value
            case "--size": line.flags.size = value
            case "--rotation":
                guard let degrees = Int(value) else { throw Problem("--rotation must be 0, 90, 180 or 270, got \(value)") }
                line.flags.rotation = degrees
            case "--theme": line.flags.theme = value
            case "--socket-group": line.flags.socketGroup = value
            case "--log-level": line.flags.logLevel = value
            case "--journal": line.flags.journal = value
            default: line.flags.journalSync = value
            }
        }
        guard !line.help else { return line }
        do throws(SettingProblem) { try line.flags.validate() } catch { throw Problem(error.description) }
        return line
    }

    public static var usage: String {
        var text = """
        OVERVIEW: Show transient activities as cards on a small display.

        Flags override the config file. SIGHUP reloads it; SIGTERM/SIGINT quiesce, restore the display and exit 0.

        USAGE: nookd [--config FILE] [--socket PATH] [--display BACKEND] [...] [--check] [--test-display]

        OPTIONS:

        """
        for (flag, help) in valued { text += "  \(flag) VALUE\n        \(help)\n" }
        for (flag, help) in switches { text += "  \(flag)\n        \(help)\n" }
        return text
    }
}
