import Foundation
import NookActivities
import NookConfig
import NookMQTT
import NookProtocol
import NookSystem
import Testing

@Suite("E4 payloads through the socket protocol's decoding")
struct InboundMessageTests {
    let topics = Topics(prefix: "nook", device: "b1")

    func decode(_ kind: Topics.Inbound, _ text: String, retained: Bool = false) -> Result<NookOperation?, Rejection> {
        InboundMessage.decode(kind, topic: kind == .activity ? topics.activity : topics.command, payload: Array(text.utf8), retained: retained, module: "default")
    }

    @Test func e4_plainTextIsATitleAndJSONIsTheProtocolsActivity() throws {
        guard case .success(.enqueue(let plain, let module, false, nil)) = decode(.activity, " Dinner is ready\n") else { Issue.record("plain"); return }
        #expect(plain.title == "Dinner is ready" && module == "default")
        guard case .success(.enqueue(let json, _, _, _)) = decode(.activity, #"{"title":"Build","tint":"red","blocker":true,"timeout":30}"#) else { Issue.record("json"); return }
        #expect(json.title == "Build" && json.presentation == .blocker(timeout: .seconds(30)))
    }

    /// An empty retained message is how a retained message is cleared: it asks for nothing and
    /// is no error. An empty message that is not retained is; with MQTT 3.1.1 (no Retain As
    /// Published) the two cannot be told apart and both are taken as clearing.
    @Test func e4_anEmptyRetainedMessageClearsAndAnEmptyMessageIsAnError() throws {
        let topic = topics.activity
        #expect(try InboundMessage.decode(.activity, topic: topic, payload: [], retained: true, module: nil).get() == nil)
        #expect(try InboundMessage.decode(.command, topic: topics.command, payload: [], retained: true, module: nil).get() == nil)
        guard case .failure(let empty) = InboundMessage.decode(.activity, topic: topic, payload: [], retained: false, module: nil) else {
            Issue.record("an empty message taken"); return
        }
        #expect(empty.field == "activity.title")
        #expect(try InboundMessage.decode(.activity, topic: topic, payload: [], retained: false, module: nil, retainFlagKept: false).get() == nil)
    }

    @Test func e4_anActivityWithoutAnIdGetsTheIdItIsGivenAndOneWithAnIdKeepsIt() throws {
        let given = NookActivityID()
        let own = NookActivityID()
        guard case .enqueue(let plain, _, _, _)? = try InboundMessage.decode(.activity, topic: topics.activity, payload: Array("Hi".utf8), retained: false,
                                                                        module: nil, activityID: given).get(),
              case .enqueue(let json, _, _, _)? = try InboundMessage.decode(.activity, topic: topics.activity, payload: Array(#"{"title":"Hi"}"#.utf8),
                                                                       retained: false, module: nil, activityID: given).get(),
              case .enqueue(let identified, _, _, _)? = try InboundMessage.decode(.activity, topic: topics.activity,
                                                                             payload: Array(#"{"title":"Hi","id":"\#(own)"}"#.utf8),
                                                                             retained: false, module: nil, activityID: given).get()
        else { Issue.record("not enqueued"); return }
        #expect(plain.id == given && json.id == given && identified.id == own)
    }

    /// `"id": null` is how JSON says "no id" (nookd reads it so): the activity gets the derived
    /// id like one without the member, or a redelivery of it would be shown again.
    @Test func e5_anActivityWhoseIdIsNullGetsTheIdItIsGiven() throws {
        let given = NookActivityID()
        guard case .enqueue(let activity, _, _, _)? = try InboundMessage.decode(.activity, topic: topics.activity,
                                                                           payload: Array(#"{"title":"Hi","id":null}"#.utf8),
                                                                           retained: false, module: nil, activityID: given).get()
        else { Issue.record("not enqueued"); return }
        #expect(activity.id == given)
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

    /// The client id is in the libmosquitto log line the bridge reads each message's DUP flag
    /// from, which libmosquitto cuts short: a longer id would show redeliveries again.
    @Test func e5_aClientIDTooLongToReadRedeliveriesIsRefusedNamingTheKey() throws {
        let longest = String(repeating: "é", count: MQTTConfig.longestClientID / 2)
        #expect(try config("[mqtt]\ndevice = \"b1\"\nclient_id = \"\(longest)\"\n").effectiveClientID == longest)
        for (text, key) in [("[mqtt]\ndevice = \"b1\"\nclient_id = \"\(longest)x\"\n", "mqtt.client_id"),
                            ("[mqtt]\ndevice = \"\(String(repeating: "k", count: 300))\"\n", "mqtt.device")] {
            do { _ = try config(text); Issue.record("taken: \(key)") } catch { #expect(error.key == key && "\(error)".contains("at most 256"), "\(error)") }
        }
        // A long device name is fine with a client id of its own.
        #expect(try config("[mqtt]\ndevice = \"\(String(repeating: "k", count: 300))\"\nclient_id = \"board\"\n").device.count == 300)
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
            ("[homeassistant]\nidentity = \"lametric\"\n", "homeassistant.identity"),
            // The bridge's own error topic would be an AWTRIX app's: it would read back its own messages.
            ("[mqtt]\nprefix = \"nook\"\ndevice = \"custom\"\nawtrix_prefix = \"nook\"\n", "mqtt.awtrix_prefix"),
        ]
        for (text, key) in cases {
            #expect(throws: ConfigError.self) { try config(text) }
            do { _ = try config(text) } catch { #expect(error.key == key, "\(text): \(error)") }
        }
    }

    /// A table nook-mqtt does not know is refused by name even with no key under it, as a
    /// key in it is.
    @Test func e4_anUnknownTableIsRefusedByNameEvenEmpty() {
        do {
            _ = try config("[mqtt]\ndevice = \"kitchen\"\n[mqtt.tsl]\n")
            Issue.record("an empty [mqtt.tsl] must be refused")
        } catch {
            #expect(error.line == 3 && error.key == "mqtt.tsl" && error.message.hasPrefix("is not a known table (known: [mqtt]"), "\(error)")
        }
    }

    /// MQTT 5 (the bridge sets its own Receive Maximum) unless the file asks for
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
        #expect(discovery.nodeID.hasPrefix("nook_K_che_1_"))
        #expect(discovery.nodeID.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
        #expect(Set(discovery.entities.map(\.component)) == ["notify", "sensor", "binary_sensor", "button", "switch", "siren", "light"])
        // E7, B1, M1: what the board lacks is not announced: no siren without a sound output, a
        // light without a brightness slider where nookd sets no brightness.
        let bare = discovery.entities(offering: Discovery.Offers(sound: false, brightness: false))
        #expect(!bare.contains { $0.component == "siren" } && bare.count == discovery.entities.count - 1)
        #expect(bare.first { $0.component == "light" }?.config["brightness_template"] == nil)
        #expect(discovery.entities.first { $0.component == "light" }?.config["brightness_template"]?.text == "{{ value_json.display.brightness }}")
        for entity in discovery.entities {
            #expect(entity.config["unique_id"]?.text?.hasPrefix(discovery.nodeID + "_") == true)
            #expect(discovery.topic(entity).hasSuffix("/config"))
        }
        // A name Home Assistant allows is kept as it is.
        #expect(Discovery(topics: Topics(prefix: "nook", device: "kitchen_1"), prefix: "homeassistant").nodeID == "nook_kitchen_1")
    }

    /// Two boards whose names differ only in what Home Assistant does not allow in an id.
    @Test func e7_devicesWhoseNamesDifferOnlyInRewrittenCharactersStayTwoDevices() {
        let names = ["kitchen.1", "kitchen_1", "kitchen 1", "kitchen-1", "kitchen:1", "Küche", "K_che"]
        let boards = names.map { Discovery(topics: Topics(prefix: "nook", device: $0), prefix: "homeassistant") }
        #expect(Set(boards.map(\.nodeID)).count == names.count, "\(boards.map(\.nodeID))")
        let uniqueIDs = boards.flatMap { $0.entities.compactMap { $0.config["unique_id"]?.text } }
        #expect(Set(uniqueIDs).count == uniqueIDs.count)
        let topics = boards.flatMap { board in board.entities.map(board.topic) }
        #expect(Set(topics).count == topics.count)
        let identifiers = boards.map { $0.entities[0].config["device"]?["identifiers"] }
        #expect(Set(identifiers.map { $0?.serialized ?? "" }).count == names.count)
    }

    /// What Home Assistant's MQTT discovery schema asks of these payloads (its source: the
    /// discovery topic pattern, each platform's required keys, the device block, and the
    /// attribute names it drops).
    @Test func e7_discoveryPayloadsFollowHomeAssistantsSchema() {
        let discovery = Discovery(topics: Topics(prefix: "nook", device: "kitchen.1"), prefix: "homeassistant")
        let idCharacters: (Character) -> Bool = { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
        let required: [String: [String]] = ["notify": ["command_topic"], "sensor": ["state_topic"], "binary_sensor": ["state_topic"],
                                            "button": ["command_topic"], "switch": ["command_topic"]]
        for entity in discovery.entities {
            // homeassistant/COMPONENT/NODE_ID/OBJECT_ID/config, ids of [a-zA-Z0-9_-].
            let levels = discovery.topic(entity).split(separator: "/", omittingEmptySubsequences: false)
            #expect(levels.count == 5 && levels[0] == "homeassistant" && levels[1] == Substring(entity.component) && levels[4] == "config")
            #expect(levels[2].allSatisfy(idCharacters) && levels[3].allSatisfy(idCharacters), "\(levels)")
            for key in required[entity.component] ?? [] { #expect(entity.config[key]?.text?.isEmpty == false, "\(entity.component) \(key)") }
            #expect(entity.config["unique_id"]?.text?.isEmpty == false)
            let device = entity.config["device"]
            #expect(device?["identifiers"]?.items.isEmpty == false)
            #expect(device?["sw_version"]?.text == Discovery.softwareVersion)
            #expect(device?["name"]?.text == "Nook kitchen.1")
        }
        // The card sensor's templates: the title as state only through the template that cuts
        // it to 255 characters; the icon under a name HA keeps.
        let card = discovery.entities.first { $0.object == "card" }?.config
        #expect(card?["value_template"]?.text?.contains("255") == true)
        #expect(card?["json_attributes_template"]?.text?.contains("'card_icon'") == true)
        #expect(card?["json_attributes_template"]?.text?.contains("'icon':") == false)
    }
}

/// nook-mqtt's flags, read without ArgumentParser (FoundationEssentials out of the
/// bridge's resident set).
@Suite("E4 nook-mqtt's command line")
struct BridgeCommandLineTests {
    @Test func e4_flagsInBothSpellingsAndTheirDefaults() throws {
        #expect(try BridgeCommandLine.parse([]) == BridgeCommandLine())
        let line = try BridgeCommandLine.parse(["--config", "/etc/m.toml", "--socket=/run/n.sock", "--log-level", "debug", "--remove-discovery"])
        #expect(line.config == "/etc/m.toml" && line.socket == "/run/n.sock" && line.logLevel == "debug" && line.removeDiscovery && !line.help)
        #expect(try BridgeCommandLine.parse(["-h"]).help && BridgeCommandLine.usage.contains("--remove-discovery"))
    }

    /// A value for every flag in nook-mqtt's table: a flag added without one fails here.
    static let sampleValues = ["--config": "/etc/m.toml", "--socket": "/run/n.sock", "--log-level": "debug"]

    @Test func e4_everyFlagInTheTableIsReadRefusedWithoutItsValueAndInTheHelp() throws {
        for option in BridgeCommandLine.options {
            let spelled = "\n  " + option.names.joined(separator: ", ") + (option.value.map { " " + $0 } ?? "") + "\n"
            #expect(BridgeCommandLine.usage.contains(spelled), "\(option.name) is not in --help as \(spelled)")
            guard option.takesValue else {
                #expect(try BridgeCommandLine.parse([option.name]) != BridgeCommandLine(), "\(option.name) changes nothing")
                #expect(throws: BridgeCommandLine.Problem("\(option.name) takes no value")) { try BridgeCommandLine.parse(["\(option.name)=1"]) }
                continue
            }
            let value = try #require(Self.sampleValues[option.name], "no sample value for \(option.name)")
            #expect(try BridgeCommandLine.parse([option.name, value]) != BridgeCommandLine(), "\(option.name) changes nothing")
            #expect(throws: BridgeCommandLine.Problem("missing value for '\(option.name)'")) { try BridgeCommandLine.parse([option.name]) }
        }
        #expect(Set(Self.sampleValues.keys) == Set(BridgeCommandLine.options.filter(\.takesValue).map(\.name)))
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

@Suite("A3 AWTRIX's custom-app topics")
struct AWTRIXTopicTests {
    @Test func a3_awtrixsTopicsAreUnderPrefixAndDeviceUnlessAnAWTRIXPrefixIsSet() throws {
        let topics = Topics(prefix: "nook", device: "b1")
        #expect(topics.kind(of: "nook/b1/custom/weather") == .customApp("weather"))
        #expect(topics.kind(of: "nook/b1/switch") == .switchApp && topics.kind(of: "nook/b1/nextapp") == .nextApp
                && topics.kind(of: "nook/b1/previousapp") == .previousApp)
        #expect(topics.kind(of: "nook/b1/custom/") == nil && topics.kind(of: "nook/b1/custom/a/b") == nil)
        #expect(topics.inbound.contains("nook/b1/custom/+"))
        let own = Topics(prefix: "nook", device: "b1", awtrixPrefix: "awtrix_abc123")
        #expect(own.kind(of: "awtrix_abc123/custom/weather") == .customApp("weather") && own.kind(of: "nook/b1/custom/weather") == nil)
        let config = try MQTTConfig(ConfigDocument(parsing: "[mqtt]\ndevice = \"b1\"\nawtrix_prefix = \"awtrix_abc123\"\n"))
        #expect(config.awtrixPrefix == "awtrix_abc123")
        #expect(throws: ConfigError.self) { try MQTTConfig(ConfigDocument(parsing: "[mqtt]\nawtrix_prefix = \"awtrix/#\"\n")) }
    }

    /// AWTRIX's `[PREFIX]/notify` makes the card nook-http's `/api/notify` makes of the same
    /// JSON, with the id the bridge derives for a redelivery; refusals name the notification's field.
    @Test func e4_h2_anAWTRIXNotificationOnItsNotifyTopicIsTheCardAPINotifyMakes() throws {
        let topics = Topics(prefix: "nook", device: "b1", awtrixPrefix: "awtrix_abc123")
        #expect(topics.kind(of: "awtrix_abc123/notify") == .notify && topics.inbound.contains("awtrix_abc123/notify"))
        #expect(Topics(prefix: "nook", device: "b1").kind(of: "nook/b1/notify") == .notify)
        #expect(topics.kind(of: "awtrix_abc123/notify/dismiss") == .notifyDismiss && topics.inbound.contains("awtrix_abc123/notify/dismiss"))
        #expect(topics.kind(of: "awtrix_abc123/notify/other") == nil && topics.kind(of: "awtrix_abc123/custom/notify") == .customApp("notify"))
        let id = NookActivityID()
        var notes: [String] = []
        let body = ##"{"text": "Hello, AWTRIX 3!", "rainbow": true, "duration": 10, "hold": true, "color": "#FF0000", "icon": "2355", "progress": 40}"##
        let decoded = InboundMessage.decode(.notify, topic: "awtrix_abc123/notify", payload: Array(body.utf8), retained: false, module: "porch",
                                            activityID: id, notes: &notes)
        guard case .success(.enqueue(let activity, let module, let wait, _)?) = decoded else { Issue.record("\(decoded)"); return }
        #expect(activity.id == id && module == "porch" && !wait)
        #expect(activity.title == "Hello, AWTRIX 3!" && activity.dwell == .seconds(10) && activity.presentation == .blocker(timeout: nil))
        // The id goes to nookd with the bell as its fallback: nookd draws 2355's file or says the bell (M3).
        #expect(activity.tint == .rgb(red: 255, green: 0, blue: 0) && activity.systemImage == "2355" && activity.iconFallback == "bell" && activity.progress == 0.4)
        #expect(notes.contains { $0.contains("rainbow") } && !notes.contains { $0.contains("icon '2355'") }, "\(notes)")

        /// The refusal's code and field, as the error topic carries them.
        func refusal(_ payload: String, retained: Bool = false) -> String? {
            if case .failure(let rejection) = InboundMessage.decode(.notify, topic: "nook/b1/notify", payload: Array(payload.utf8), retained: retained,
                                                                    module: nil) { return "\(rejection.code) \(rejection.field ?? "-")" }
            return nil
        }
        #expect(refusal(#"{"text": "x"}"#, retained: true) == "invalid retain")
        #expect(refusal(#"{"text": "x", "progress": 150}"#) == "invalid progress")
        #expect(refusal(#"{"text": 5}"#) == "wrongType text")
        #expect(refusal(#"{"color": "FF0000"}"#) == "missingField text")
        #expect(refusal("Hello") == "badJSON body")
        // A NUL, which no card carries, is refused by the JSON reader already.
        #expect(refusal(#"{"text": "a\u0000b"}"#) == "badJSON body")
        // An icon name that is not the board's is shown in the note on one line.
        notes = []
        _ = InboundMessage.decode(.notify, topic: "nook/b1/notify", payload: Array(#"{"text": "x", "icon": "a\nb"}"#.utf8), retained: false,
                                  module: nil, notes: &notes)
        #expect(notes == ["icon 'a\\u{a}b' is not one of the board's symbols; using bell"])
        // Bounded in what it costs, not in characters: 40 scalars, whatever marks a character
        // carries; a bidirectional override and a C1 control written out.
        notes = []
        let marks = String(repeating: "a" + String(repeating: "\u{0301}", count: 450), count: 64)
        let icon = "\u{202E}\u{009B}" + marks
        let payload = JSONValue.object([("text", .string("x")), ("icon", .string(icon))]).serializedBytes
        _ = InboundMessage.decode(.notify, topic: "nook/b1/notify", payload: payload, retained: false, module: nil, notes: &notes)
        #expect(notes.count == 1 && notes[0].utf8.count < 400 && notes[0].utf8.starts(with: "icon '\\u{202e}\\u{9b}a\u{0301}".utf8) && notes[0].contains("…'"), "\(notes.first?.utf8.count ?? 0) bytes")
    }

    /// A held notification's key (how the bridge knows its own after a restart) is a valid key
    /// for every client id the config takes, and differs between two bridges.
    @Test func e4_aHeldNotificationsKeyIsValidForEveryClientID() throws {
        let id = NookActivityID()
        for clientID in ["nook-mqtt-b1", String(repeating: "é", count: 128), String(repeating: "x", count: MQTTConfig.longestClientID)] {
            var card = NookActivity(id: id, title: "Washer done", presentation: .blocker(timeout: nil))
            card.coalescingKey = MQTTBridge.heldKey(clientID: clientID, id: id)
            try card.validate()
            #expect(card.coalescingKey?.hasPrefix(MQTTBridge.heldKeyPrefix(clientID: clientID)) == true)
        }
        #expect(MQTTBridge.heldKey(clientID: "nook-mqtt-b1", id: id) == "mqtt-hold/nook-mqtt-b1/\(id)")
        let (long1, long2) = (String(repeating: "a", count: 200), String(repeating: "a", count: 199) + "b")
        #expect(MQTTBridge.heldKeyPrefix(clientID: long1) != MQTTBridge.heldKeyPrefix(clientID: long2))
    }

    /// `notify/dismiss` ends only a held notification of this bridge's: not one of a bridge whose
    /// client id begins with this one's and a slash, nor a card keyed with another card's id.
    @Test func e4_notifyDismissKnowsOnlyItsOwnHeldNotification() throws {
        var card = NookActivity(title: "Washer done", presentation: .blocker(timeout: nil))
        card.coalescingKey = MQTTBridge.heldKey(clientID: "a/b", id: card.id)
        #expect(MQTTBridge.isHeld(card, clientID: "a/b"))
        #expect(!MQTTBridge.isHeld(card, clientID: "a"), "a bridge 'a' took bridge 'a/b''s held notification for its own")
        card.coalescingKey = MQTTBridge.heldKey(clientID: "a", id: NookActivityID())
        #expect(!MQTTBridge.isHeld(card, clientID: "a"), "a key naming another card")
        card.coalescingKey = MQTTBridge.heldKey(clientID: "a", id: card.id)
        card.presentation = .timed
        #expect(!MQTTBridge.isHeld(card, clientID: "a"), "a card that is not held")
    }

    @Test func a3_aRetainedAppIsTakenAndARetainedTurnIsNot() throws {
        let topic = "nook/b1/custom/weather"
        let set = AWTRIXInbound.decode(.customApp("weather"), topic: topic, payload: Array(#"{"text": "21 °C"}"#.utf8), retained: true)
        guard case .success(.set(let apps)) = set else { Issue.record("\(set)"); return }
        #expect(apps.first?.app.name == "weather")
        #expect(try AWTRIXInbound.decode(.customApp("weather"), topic: topic, payload: [], retained: true).get() == .remove("weather"))
        #expect(try AWTRIXInbound.decode(.customApp("weather"), topic: topic, payload: [], retained: false).get() == .remove("weather"))
        #expect(try AWTRIXInbound.decode(.nextApp, topic: "nook/b1/nextapp", payload: [], retained: false).get() == .operation(.appNext))
        guard case .success(.nothing) = AWTRIXInbound.decode(.nextApp, topic: "nook/b1/nextapp", payload: [], retained: true) else {
            Issue.record("a retained turn taken"); return
        }
        #expect(try AWTRIXInbound.decode(.switchApp, topic: "nook/b1/switch", payload: Array(#"{"name": "weather"}"#.utf8), retained: false).get()
                == .operation(.appSwitch("weather")))
        guard case .failure(let refusal) = AWTRIXInbound.decode(.customApp("bad"), topic: "nook/b1/custom/bad", payload: Array(#"{"text": "x", "pos": "first"}"#.utf8),
                                                                retained: false) else { Issue.record("taken"); return }
        #expect(refusal.field == "pos" && refusal.topic == "nook/b1/custom/bad")
    }
}
