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
    public typealias Problem = CommandLineProblem

    /// Every flag nook-mqtt accepts, in the order `--help` lists them, each with what it sets.
    static let table = FlagTable<BridgeCommandLine>([
        .value("--config", placeholder: "VALUE",
               help: "The bridge's config file (default: \(MQTTConfig.defaultPath) if it exists, else the built-in defaults).") { $0.config = $1 },
        .value("--socket", placeholder: "VALUE", help: "nookd's socket (default: $NOOK_SOCKET, else /run/nook/nookd.sock).") { $0.socket = $1 },
        .logLevel(placeholder: "VALUE") { $0.logLevel = $1 },
        .toggle("--remove-discovery",
                help: "Clear the retained Home Assistant discovery, state and availability messages, then exit (for uninstalling).") { $0.removeDiscovery = true },
        .toggle("-h", "--help", help: "Show this help and exit.") { $0.help = true },
    ])

    public static var options: [FlagReader.Option] { table.options }

    /// Reads `arguments` (without the program name): `--flag value` or `--flag=value`.
    public static func parse(_ arguments: [String]) throws(Problem) -> BridgeCommandLine {
        try table.read(arguments, into: BridgeCommandLine(), rejectingEmpty: true)
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
