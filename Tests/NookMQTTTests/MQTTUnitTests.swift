import Foundation
import NookActivities
import NookConfig
import NookMQTT
import NookProtocol
import Testing

@Suite("E4 payloads through the socket protocol's decoding")
struct InboundMessageTests {
    let topics = Topics(prefix: "nook", device: "b1")

    func decode(_ kind: Topics.Inbound, _ text: String, retained: Bool = false) -> Result<NookOperation, Rejection> {
        InboundMessage.decode(kind, topic: kind == .activity ? topics.activity : topics.command, payload: Array(text.utf8), retained: retained, module: "default")
    }

    @Test func e4_plainTextIsATitleAndJSONIsTheProtocolsActivity() throws {
        guard case .success(.enqueue(let plain, let module, false)) = decode(.activity, " Dinner is ready\n") else { Issue.record("plain"); return }
        #expect(plain.title == "Dinner is ready" && module == "default")
        guard case .success(.enqueue(let json, _, _)) = decode(.activity, #"{"title":"Build","tint":"red","blocker":true,"timeout":30}"#) else { Issue.record("json"); return }
        #expect(json.title == "Build" && json.presentation == .blocker(timeout: .seconds(30)))
    }

    @Test func e4_retainedMessagesAreRefusedNamingTheFlag() {
        guard case .failure(let rejection) = decode(.activity, "Hello", retained: true) else { Issue.record("taken"); return }
        #expect(rejection.field == "retain" && rejection.topic == "nook/b1/activity")
        guard case .failure(let command) = decode(.command, "suspend", retained: true) else { Issue.record("taken"); return }
        #expect(command.field == "retain")
    }

    @Test func e4_commandsInWordsAndAsJSON() throws {
        let id = NookActivityID()
        #expect(try decode(.command, "dismiss").get() == .dismiss(nil))
        #expect(try decode(.command, "dismiss \(id)").get() == .dismiss(id))
        #expect(try decode(.command, "cancel \(id)").get() == .cancel(id))
        #expect(try decode(.command, "cancel-all build status").get() == .cancelAll(key: "build status", module: "default"))
        #expect(try decode(.command, "suspend").get() == .suspend(module: nil))
        #expect(try decode(.command, "resume").get() == .resume(module: nil))
        #expect(try decode(.command, "home text Back at six").get() == .home(.text("Back at six")))
        #expect(try decode(.command, "home blank").get() == .home(.blank))
        #expect(try decode(.command, #"{"op":"cancel","activity":"\#(id)"}"#).get() == .cancel(id))
    }

    @Test func e4_iconPathsAreRefusedFromTheNetwork() {
        guard case .failure(let rejection) = decode(.activity, #"{"title":"x","icon":"/home/user/.ssh/id_rsa"}"#) else { Issue.record("taken"); return }
        #expect(rejection.field == "activity.icon")
    }

    @Test func e4_errorPayloadNamesTopicFieldAndEchoesTheStart() throws {
        let rejection = Rejection(topic: "nook/b1/activity", code: "invalid", field: "activity.tint", "must be a colour")
        let json = rejection.json(payload: Array(String(repeating: "y", count: 500).utf8))
        #expect(json["field"]?.text == "activity.tint" && json["topic"]?.text == "nook/b1/activity")
        #expect(json["payload"]?.text?.hasSuffix("…") == true)
    }
}

@Suite("E6 config and credentials")
struct MQTTConfigTests {
    func config(_ text: String) throws(ConfigError) -> MQTTConfig { try MQTTConfig(ConfigDocument(parsing: text, source: "mqtt.toml")) }

    @Test func e6_defaultsAndTLSPort() throws {
        let plain = try config("[mqtt]\ndevice = \"kitchen\"\n")
        #expect(plain.effectivePort == 1883 && plain.effectiveClientID == "nook-mqtt-kitchen" && plain.prefix == "nook")
        let tls = try config("[mqtt]\ndevice = \"kitchen\"\n[mqtt.tls]\nca_file = \"/etc/ca.pem\"\n")
        #expect(tls.effectivePort == 8883 && tls.tls?.caFile == "/etc/ca.pem")
    }

    @Test func e6_errorsNameTheKey() {
        let cases: [(String, String)] = [
            ("[mqtt]\ndevice = \"a/b\"\n", "mqtt.device"),
            ("[mqtt]\ndevice = \"all\"\n", "mqtt.device"),
            ("[mqtt]\nprefix = \"nook/#\"\n", "mqtt.prefix"),
            ("[mqtt]\nport = 70000\n", "mqtt.port"),
            ("[mqtt]\nhots = \"x\"\n", "mqtt.hots"),
            ("[mqtt.tls]\ncert_file = \"/c.pem\"\n", "mqtt.tls.cert_file"),
            ("[mqtt.tls]\nca_file = \"/ca.pem\"\ncert_file = \"/c.pem\"\n", "mqtt.tls.key_file"),
            ("[homeassistant]\ndiscovery = \"yes\"\n", "homeassistant.discovery"),
            ("[mqtt]\nprotocol = \"3\"\n", "mqtt.protocol"),
            ("[mqtt]\nstate_poll_ms = 50\n", "mqtt.state_poll_ms"),
        ]
        for (text, key) in cases {
            #expect(throws: ConfigError.self) { try config(text) }
            do { _ = try config(text) } catch { #expect(error.key == key, "\(text): \(error)") }
        }
    }

    /// Issue 16: MQTT 5 (the bridge sets its own Receive Maximum) unless the file asks for
    /// 3.1.1; `state` is read on nookd's events only unless a poll is asked for.
    @Test func e5_protocolAndStatePollDefaults() throws {
        let defaults = try config("[mqtt]\ndevice = \"kitchen\"\n")
        #expect(defaults.protocolVersion == .v5 && defaults.statePollMilliseconds == 0)
        let old = try config("[mqtt]\ndevice = \"kitchen\"\nprotocol = \"3.1.1\"\nstate_poll_ms = 1000\n")
        #expect(old.protocolVersion == .v311 && old.statePollMilliseconds == 1000)
    }

    @Test func e6_credentialsReadableByOthersAreRefused() throws {
        let path = "/tmp/nook-mqtt-credentials-\(getpid())"
        defer { unlink(path) }
        _ = FileManager.default.createFile(atPath: path, contents: Data("username = \"nook\"\npassword = \"secret\"\n".utf8))
        chmod(path, 0o640)
        #expect(throws: ConfigError.self) { try Credentials.load(path: path) }
        do { _ = try Credentials.load(path: path) } catch { #expect(error.description.contains("chmod 600"), "\(error)") }
        chmod(path, 0o600)
        #expect(try Credentials.load(path: path) == Credentials(username: "nook", password: "secret"))
        #expect(throws: ConfigError.self) { try Credentials.load(path: path, ownerUID: getuid() + 1) }
    }
}

@Suite("E7 Home Assistant discovery")
struct DiscoveryTests {
    @Test func e7_nodeIDsHoldOnlyWhatHomeAssistantAllows() {
        let discovery = Discovery(topics: Topics(prefix: "nook", device: "Küche.1"), prefix: "homeassistant")
        #expect(discovery.nodeID == "nook_K_che_1")
        #expect(Set(discovery.entities.map(\.component)) == ["notify", "sensor", "binary_sensor", "button", "switch"])
        for entity in discovery.entities {
            #expect(entity.config["unique_id"]?.text?.hasPrefix("nook_K_che_1_") == true)
            #expect(discovery.topic(entity).hasSuffix("/config"))
        }
    }
}

/// nook-mqtt's flags, read without ArgumentParser (issue 16: FoundationEssentials out of the
/// bridge's resident set).
@Suite("E4 nook-mqtt's command line")
struct BridgeCommandLineTests {
    @Test func e4_flagsInBothSpellingsAndTheirDefaults() throws {
        #expect(try BridgeCommandLine.parse([]) == BridgeCommandLine())
        let line = try BridgeCommandLine.parse(["--config", "/etc/m.toml", "--socket=/run/n.sock", "--log-level", "debug", "--remove-discovery"])
        #expect(line.config == "/etc/m.toml" && line.socket == "/run/n.sock" && line.logLevel == "debug" && line.removeDiscovery && !line.help)
        #expect(try BridgeCommandLine.parse(["-h"]).help && BridgeCommandLine.usage.contains("--remove-discovery"))
    }

    @Test func e4_badCommandLinesNameWhatIsWrong() {
        let cases: [([String], String)] = [
            (["--colour", "red"], "unknown option '--colour'"),
            (["stray"], "unexpected argument 'stray'"),
            (["--config"], "missing value for '--config'"),
            (["--config", "--socket", "x"], "missing value for '--config'"),
            (["--socket="], "--socket needs a value"),
            (["--log-level", "loud"], "--log-level must be"),
            (["--remove-discovery=yes"], "--remove-discovery takes no value"),
        ]
        for (arguments, message) in cases {
            do {
                _ = try BridgeCommandLine.parse(arguments)
                Issue.record("\(arguments) accepted")
            } catch {
                #expect(error.description.contains(message), "\(arguments): \(error)")
            }
        }
    }
}
