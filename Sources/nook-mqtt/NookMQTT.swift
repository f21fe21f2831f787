import ArgumentParser
import Logging
import NookLogging
import NookConfig
import NookMQTT
import NookProtocol
#if canImport(Glibc)
import Glibc
#endif

/// nook-mqtt: parses flags and runs the MQTT bridge (SPEC E4–E7).
@main
struct NookMQTTCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nook-mqtt",
        abstract: "Bridge an MQTT broker (and Home Assistant) to the Nook display.",
        discussion: "Subscribes to PREFIX/DEVICE/activity, PREFIX/all/activity and PREFIX/DEVICE/command, passes them to nookd and publishes state, event, error and availability. Settings: \(MQTTConfig.defaultPath).")

    @Option(help: "The bridge's config file (default: \(MQTTConfig.defaultPath) if it exists, else the built-in defaults).")
    var config: String?
    @Option(help: "nookd's socket (default: $NOOK_SOCKET, else /run/nook/nookd.sock).")
    var socket: String?
    @Flag(help: "Clear the retained Home Assistant discovery, state and availability messages, then exit (for uninstalling).")
    var removeDiscovery = false
    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String = "info"

    func validate() throws {
        if let problem = StandardErrorLogging.problem(withLevel: logLevel) { throw ValidationError(problem) }
    }

    func run() throws {
        StandardErrorLogging.bootstrap(level: logLevel)
        let logger = Logger(label: "nook-mqtt")
        do {
            let settings: MQTTConfig
            if let config {
                settings = try MQTTConfig.load(path: config)
            } else if access(MQTTConfig.defaultPath, F_OK) == 0 {
                settings = try MQTTConfig.load(path: MQTTConfig.defaultPath)
            } else {
                settings = MQTTConfig()
            }
            if removeDiscovery {
                try MQTTBridge.removeRetained(config: settings, logger: logger)
                return
            }
            let path = socket ?? NookClient.defaultSocketPath
            try MQTTBridge(options: .init(socketPath: path, config: settings), logger: logger).run()
        } catch {
            let line = Array("nook-mqtt: \(error)\n".utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            throw ExitCode(1)
        }
    }
}
