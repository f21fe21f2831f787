import NookLogging
import NookSystem

/// nook-mqtt's command line, read by ``FlagReader`` as nookd's and nook-notify's are (the reader
/// says why not ArgumentParser).
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

    /// Every flag nook-mqtt accepts, in the order `--help` lists them.
    public static let options: [FlagReader.Option] = [
        .init("--config", value: "VALUE", help: "The bridge's config file (default: \(MQTTConfig.defaultPath) if it exists, else the built-in defaults)."),
        .init("--socket", value: "VALUE", help: "nookd's socket (default: $NOOK_SOCKET, else /run/nook/nookd.sock)."),
        .init("--log-level", value: "VALUE", help: "Log level: trace, debug, info, notice, warning, error."),
        .init("--remove-discovery", help: "Clear the retained Home Assistant discovery, state and availability messages, then exit (for uninstalling)."),
        .init("-h", "--help", help: "Show this help and exit."),
    ]

    /// Reads `arguments` (without the program name): `--flag value` or `--flag=value`.
    public static func parse(_ arguments: [String]) throws(Problem) -> BridgeCommandLine {
        var line = BridgeCommandLine()
        let flags: [FlagReader.Flag]
        do throws(FlagReader.Problem) {
            flags = try FlagReader.read(arguments, options: options)
        } catch {
            throw Problem(error.description)
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
        let text = """
        OVERVIEW: Bridge an MQTT broker (and Home Assistant) to the Nook display.

        Subscribes to PREFIX/DEVICE/activity, PREFIX/all/activity and PREFIX/DEVICE/command, passes them to nookd and publishes state, event, error and availability. Settings: \(MQTTConfig.defaultPath).

        USAGE: nook-mqtt [--config FILE] [--socket PATH] [--remove-discovery] [--log-level LEVEL]

        OPTIONS:

        """
        return text + FlagReader.optionsHelp(options)
    }
}
