import NookSystem

/// nookd's command line, read by ``FlagReader`` (which says why not ArgumentParser).
public struct NookdCommandLine: Sendable {
    public var config: String?
    public var flags = FlagOverrides()
    public var check = false
    public var testDisplay = false
    public var help = false

    public init() {}

    /// A command line nookd cannot run with, as `--flag: what is wrong` (exit 64, as before).
    public typealias Problem = CommandLineProblem

    /// Every flag nookd accepts, in the order `--help` lists them, each with what it sets.
    /// `--rotation` is checked for a number where it is met; every value is then checked by the
    /// rule of the config key it overrides (``FlagOverrides/validate()``).
    static let table = FlagTable<NookdCommandLine>([
        .value("--config", placeholder: "VALUE", help: "Config file (TOML). Without it nookd runs on its defaults.") { $0.config = $1 },
        .value("--socket", placeholder: "VALUE", help: "Socket path (default $XDG_RUNTIME_DIR/nook/nookd.sock, else /run/nook/nookd.sock).") {
            $0.flags.socket = $1
        },
        .value("--display", placeholder: "VALUE", help: "Display backend: auto, drm, fbdev, mock, led-spi, led-i2c or led-mock.") { $0.flags.display = $1 },
        .value("--frames", placeholder: "VALUE", help: "Directory the mock display writes its PNG frames to.") { $0.flags.frames = $1 },
        .value("--size", placeholder: "VALUE", help: "Mock display size, WIDTHxHEIGHT.") { $0.flags.size = $1 },
        .value("--rotation", placeholder: "VALUE", help: "Rotation from drawing to panel: 0, 90, 180 or 270.",
               check: { Int($0) == nil ? "--rotation must be 0, 90, 180 or 270, got \($0)" : nil }) { $0.flags.rotation = Int($1) },
        .value("--theme", placeholder: "VALUE", help: "Theme appearance: dark or light.") { $0.flags.theme = $1 },
        .value("--socket-group", placeholder: "VALUE", help: "Group that may use the socket (mode 0660).") { $0.flags.socketGroup = $1 },
        .value("--log-level", placeholder: "VALUE", help: "Log level: trace, debug, info, notice, warning, error.") { $0.flags.logLevel = $1 },
        .value("--journal", placeholder: "VALUE",
               help: "Journal of unfinished activities, restored after a crash or restart (default $STATE_DIRECTORY/journal under systemd; \"none\" turns it off).") {
            $0.flags.journal = $1
        },
        .value("--journal-sync", placeholder: "VALUE",
               help: "When a journal record is safe enough to answer: ack (synced first; the default) or interval (synced within a second).") {
            $0.flags.journalSync = $1
        },
        .toggle("--check", help: "Validate the config file and flags, print the result and exit.") { $0.check = true },
        .toggle("--test-display", help: "Show a test card on the DRM display for a second, restore the display, report and exit.") { $0.testDisplay = true },
        .toggle("-h", "--help", help: "Show this help and exit.") { $0.help = true },
    ])

    public static var options: [FlagReader.Option] { table.options }

    /// Reads `arguments` (without the program name): `--flag value` or `--flag=value`.
    public static func parse(_ arguments: [String]) throws(Problem) -> NookdCommandLine {
        let line = try table.read(arguments, into: NookdCommandLine())
        guard !line.help else { return line }
        do throws(SettingProblem) { try line.flags.validate() } catch { throw Problem(error.description) }
        return line
    }

    public static var usage: String {
        let text = """
        OVERVIEW: Show transient activities as cards on a small display.

        Flags override the config file. SIGHUP reloads it; SIGTERM/SIGINT quiesce, restore the display and exit 0.

        USAGE: nookd [--config FILE] [--socket PATH] [--display BACKEND] [...] [--check] [--test-display]

        OPTIONS:

        """
        return text + FlagReader.optionsHelp(options)
    }
}
