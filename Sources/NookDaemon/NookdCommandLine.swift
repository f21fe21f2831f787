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
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// Every flag nookd accepts, in the order `--help` lists them. `--rotation` is checked for a
    /// number where it is met; every value is then checked by the rule of the config key it
    /// overrides (``FlagOverrides/validate()``).
    public static let options: [FlagReader.Option] = [
        .init("--config", value: "VALUE", help: "Config file (TOML). Without it nookd runs on its defaults."),
        .init("--socket", value: "VALUE", help: "Socket path (default $XDG_RUNTIME_DIR/nook/nookd.sock, else /run/nook/nookd.sock)."),
        .init("--display", value: "VALUE", help: "Display backend: auto, drm, fbdev, mock, led-spi, led-i2c or led-mock."),
        .init("--frames", value: "VALUE", help: "Directory the mock display writes its PNG frames to."),
        .init("--size", value: "VALUE", help: "Mock display size, WIDTHxHEIGHT."),
        .init("--rotation", value: "VALUE", help: "Rotation from drawing to panel: 0, 90, 180 or 270.",
              check: { Int($0) == nil ? "--rotation must be 0, 90, 180 or 270, got \($0)" : nil }),
        .init("--theme", value: "VALUE", help: "Theme appearance: dark or light."),
        .init("--socket-group", value: "VALUE", help: "Group that may use the socket (mode 0660)."),
        .init("--log-level", value: "VALUE", help: "Log level: trace, debug, info, notice, warning, error."),
        .init("--journal", value: "VALUE", help: "Journal of unfinished activities, restored after a crash or restart (default $STATE_DIRECTORY/journal under systemd; \"none\" turns it off)."),
        .init("--journal-sync", value: "VALUE", help: "When a journal record is safe enough to answer: ack (synced first; the default) or interval (synced within a second)."),
        .init("--check", help: "Validate the config file and flags, print the result and exit."),
        .init("--test-display", help: "Show a test card on the DRM display for a second, restore the display, report and exit."),
        .init("-h", "--help", help: "Show this help and exit."),
    ]

    /// Reads `arguments` (without the program name): `--flag value` or `--flag=value`.
    public static func parse(_ arguments: [String]) throws(Problem) -> NookdCommandLine {
        var line = NookdCommandLine()
        let flags: [FlagReader.Flag]
        do throws(FlagReader.Problem) {
            flags = try FlagReader.read(arguments, options: options)
        } catch {
            throw Problem(error.description)
        }
        for flag in flags {
            guard let value = flag.value else {
                switch flag.name {
                case "--check": line.check = true
                case "--test-display": line.testDisplay = true
                default: line.help = true
                }
                continue
            }
            switch flag.name {
            case "--config": line.config = value
            case "--socket": line.flags.socket = value
            case "--display": line.flags.display = value
            case "--frames": line.flags.frames = value
            case "--size": line.flags.size = value
            case "--rotation": line.flags.rotation = Int(value)
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
        let text = """
        OVERVIEW: Show transient activities as cards on a small display.

        Flags override the config file. SIGHUP reloads it; SIGTERM/SIGINT quiesce, restore the display and exit 0.

        USAGE: nookd [--config FILE] [--socket PATH] [--display BACKEND] [...] [--check] [--test-display]

        OPTIONS:

        """
        return text + FlagReader.optionsHelp(options)
    }
}
