import Logging
import NookSystem

/// nook-mqtt's command line, read by hand as nookd's is (issue 16): ArgumentParser links
/// FoundationEssentials, about 6 MiB of text and 1 MiB of relocated data, for four flags, and
/// the bridge's idle resident set is a goal (`mqtt_bridge_idle_rss_mib` ≤ 8).
public struct BridgeCommandLine: Sendable, Equatable {
    public var config: String?
    public var socket: String?
    public var removeDiscovery = false
    public var logLevel = "info"
    public var help = false

    public init() {}

    /// A command line the bridge cannot run with, as `what is wrong` (exit 64).
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    static let valued: [(flag: String, help: String)] = [
        ("--config", "The bridge's config file (default: \(MQTTConfig.defaultPath) if it exists, else the built-in defaults)."),
        ("--socket", "nookd's socket (default: $NOOK_SOCKET, else /run/nook/nookd.sock)."),
        ("--log-level", "Log level: trace, debug, info, notice, warning, error."),
    ]

    static let switches: [(flag: String, help: String)] = [
        ("--remove-discovery", "Clear the retained Home Assistant discovery, state and availability messages, then exit (for uninstalling)."),
        ("-h, --help", "Show this help and exit."),
    ]

    /// Reads `arguments` (without the program name): `--flag value` or `--flag=value`.
    public static func parse(_ arguments: [String]) throws(Problem) -> BridgeCommandLine {
        var line = BridgeCommandLine()
        let flags: [FlagReader.Flag]
        do throws(FlagReader.Problem) {
            flags = try FlagReader.read(arguments, valued: Set(valued.map(\.flag)), switches: ["--remove-discovery", "--help", "-h"])
        } catch {
            switch error {
            case .unknownOption(let name): throw Problem("unknown option '\(name)'")
            case .unexpectedArgument(let argument): throw Problem("unexpected argument '\(argument)'")
            case .missingValue(let name): throw Problem("missing value for '\(name)'")
            case .switchWithValue(let name, _): throw Problem("\(name) takes no value")
            }
        }
        for flag in flags {
            guard let value = flag.value else {
                if flag.name == "--remove-discovery" { line.removeDiscovery = true } else { line.help = true }
                continue
            }
            guard !value.isEmpty else { throw Problem("\(flag.name) needs a value, got an empty one") }
            switch flag.name {
            case "--config": line.config = value
            case "--socket": line.socket = value
            default:
                guard Logger.Level(rawValue: value) != nil else {
                    throw Problem("--log-level must be trace, debug, info, notice, warning, error or critical; got '\(value)'")
                }
                line.logLevel = value
            }
        }
        return line
    }

    public static var usage: String {
        var text = """
        OVERVIEW: Bridge an MQTT broker (and Home Assistant) to the Nook display.

        Subscribes to PREFIX/DEVICE/activity, PREFIX/all/activity and PREFIX/DEVICE/command, passes them to nookd and publishes state, event, error and availability. Settings: \(MQTTConfig.defaultPath).

        USAGE: nook-mqtt [--config FILE] [--socket PATH] [--remove-discovery] [--log-level LEVEL]

        OPTIONS:

        """
        for (flag, help) in valued { text += "  \(flag) VALUE\n        \(help)\n" }
        for (flag, help) in switches { text += "  \(flag)\n        \(help)\n" }
        return text
    }
}
