import NookLogging
import NookConfig
import NookMQTT
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// nook-mqtt: reads its flags and runs the MQTT bridge (SPEC E4–E7). The flags are read by
/// `BridgeCommandLine`, not ArgumentParser, which would link FoundationEssentials (see docs/benchmarks.md,
/// `mqtt_bridge_idle_rss_mib`).
@main
enum NookMQTTCommand {
    static func main() {
        let line: BridgeCommandLine
        do {
            line = try BridgeCommandLine.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            standardError("nook-mqtt: error: \(error)\nSee 'nook-mqtt --help'.\n")
            exit(64)
        }
        if line.help {
            print(BridgeCommandLine.usage, terminator: "")
            exit(0)
        }
        StandardErrorLogging.bootstrap(level: line.logLevel)
        let logger = Logger(label: "nook-mqtt")
        do {
            let settings: MQTTConfig
            if let config = line.config {
                settings = try MQTTConfig.load(path: config)
            } else if fileExists(MQTTConfig.defaultPath) {
                settings = try MQTTConfig.load(path: MQTTConfig.defaultPath)
            } else {
                settings = MQTTConfig()
            }
            if line.removeDiscovery {
                try MQTTBridge.removeRetained(config: settings, logger: logger)
                exit(0)
            }
            let path = line.socket ?? NookClient.defaultSocketPath
            try MQTTBridge(options: .init(socketPath: path, config: settings), logger: logger).run()
        } catch {
            standardError("nook-mqtt: \(error)\n")
            exit(1)
        }
    }

    static func standardError(_ text: String) {
        writeWhole(text, to: 2)
    }
}
