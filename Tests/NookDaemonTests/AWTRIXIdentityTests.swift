import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// M6 through Debian's mosquitto: with `homeassistant.identity = "awtrix"` the board is in Home
/// Assistant's device registry as an AWTRIX 3 clock, and a blueprint that reads its "Device
/// topic" sensor (Jinja2, the engine of Home Assistant's templates) addresses the board's apps;
/// the apps every MQTT publisher sets count in nook-mqtt's user's share, which nook.toml sets.
@Suite("M6 the AWTRIX identity and the apps' share over MQTT", .serialized, .ownThreads, .enabled(if: MQTTTools.available, MQTTTools.skipReason))
struct AWTRIXIdentityTests {
    @Test(.enabled(if: MQTTTools.path("python3") != nil && (try? MQTTTools.run(["python3", "-c", "import jinja2"]).status) == 0,
                   "needs python3-jinja2: run Hardware/dev/install-deps"))
    func m6_aBlueprintFindsTheBoardAsAnAWTRIXClockAndSetsAnAppAtItsDeviceTopic() throws {
        let scratch = Scratch()
        let daemon = try DaemonProcess(scratch: scratch)
        let broker = try Broker(scratch: scratch)
        let bridge = try MQTTBridgeProcess(broker: broker, socket: daemon.socket, scratch: scratch,
                                           extraConfig: "awtrix_prefix = \"awtrix_664dc4\"\n[homeassistant]\nidentity = \"awtrix\"\n")
        var configs: [String: String] = [:]
        try eventually("the discovery configs retained") {
            configs = try broker.retained("homeassistant/#")
            return configs["homeassistant/sensor/nook_b1/device_topic/config"] != nil && configs.count >= 7
        }
        for (topic, text) in configs {
            let device = try #require(try? JSONValue.parse(Array(text.utf8)))["device"]
            // What blueprints filter their device selector by.
            #expect(device?["manufacturer"]?.text == "Blueforcer" && device?["model"]?.text == "AWTRIX 3", "\(topic)")
        }
        let sensor = try #require(configs["homeassistant/sensor/nook_b1/device_topic/config"].flatMap { try? JSONValue.parse(Array($0.utf8)) })
        let stateTopic = try #require(sensor["state_topic"]?.text)
        var state: String?
        try eventually("the state the sensor follows") {
            state = try broker.retained(stateTopic)[stateTopic]
            return state != nil
        }
        let template = try #require(sensor["value_template"]?.text)
        let script = """
            import sys, jinja2.sandbox
            print(jinja2.sandbox.ImmutableSandboxedEnvironment().from_string(sys.argv[1]).render(value=sys.argv[2]), end="")
            """
        let rendered = try MQTTTools.run(["python3", "-c", script, template, try #require(state)])
        #expect(rendered.status == 0, "\(rendered.error)")
        #expect(rendered.output == "awtrix_664dc4")
        // The blueprint's publish: `{{ states(device_topic) }}/custom/{{ app }}`.
        try broker.publish(rendered.output + "/custom/weather", #"{"text": "21.5°C", "duration": 10}"#)
        try eventually("the app set") { try AppListAnswer(json: daemon.request(.appList)).apps.contains { $0.app.name == "weather" } }
        #expect(bridge.process.isRunning)
    }

    /// Every publisher of the broker is nook-mqtt's one user to nookd: a house gives that user a
    /// share of its own (`[apps.shares]`), and a refusal says which setting holds it, on the
    /// error topic and in nook-mqtt's log. (The tests run as root, nook-mqtt's user here.)
    @Test func m6_theAppsOfEveryMQTTPublisherCountInTheBridgeUsersShareWhichNookTomlSets() throws {
        for (config, kept, key, more) in [("[apps]\nper_sender = 2\n", 2, "apps.per_sender", true),
                                          ("[apps]\nper_sender = 2\n[apps.shares]\nroot = 5\n", 5, "apps.shares.root", false)] {
            let scratch = Scratch()
            let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", scratch.file("nook.toml", config)])
            let broker = try Broker(scratch: scratch)
            let bridge = try MQTTBridgeProcess(broker: broker, socket: daemon.socket, scratch: scratch)
            let errors = try Subscriber(broker: broker, topics: ["nook/b1/error"])
            // Home Assistant's automations and a Node-RED flow: different clients, one user.
            for index in 0...kept { try broker.publish("nook/b1/custom/app\(index)", #"{"text": "\#(index)"}"#) }
            try eventually("the refusal") { !errors.json("nook/b1/error").isEmpty }
            let refusal = try #require(errors.json("nook/b1/error").first)
            let message = refusal["message"]?.text ?? ""
            #expect(refusal["code"]?.text == "queueFull", "\(refusal)")
            #expect(message.contains("the most \(key) allows (\(kept))"), "\(message)")
            #expect(message.contains("apps.shares.root in nook.toml gives that user's programs a share of their own") == more, "\(message)")
            try eventually("the refusal in nook-mqtt's log") { bridge.log.contains("the most \(key) allows (\(kept))") }
            #expect(try AppListAnswer(json: daemon.request(.appList)).apps.count == kept)
        }
    }

    /// A user `[apps.shares]` names that the system does not have stops a start and `--check`,
    /// naming the key, as `daemon.relay_users` does.
    @Test func m6_aShareForAUserThatDoesNotExistIsRefusedNamingItsKey() throws {
        let scratch = Scratch()
        let path = scratch.file("nook.toml", "[apps.shares]\nnook-no-such-user = 4\n")
        let check = try MQTTTools.run([Built.nookd, "--config", path, "--display", "mock", "--socket", scratch.path + "/nook.sock", "--check"])
        #expect(check.status == 2 && check.error.contains("apps.shares.nook-no-such-user: no user named 'nook-no-such-user'"), "\(check)")
        let uid = try MQTTTools.run([Built.nookd, "--config", scratch.file("uid.toml", "[apps.shares]\n4242 = 4\n"), "--display", "mock",
                                     "--socket", scratch.path + "/nook.sock", "--check"])
        #expect(uid.status == 0, "a uid as a number: \(uid)")
        // One user twice, by name and by uid: which share would hold is not for nookd to guess.
        let twice = try MQTTTools.run([Built.nookd, "--config", scratch.file("twice.toml", "[apps.shares]\nroot = 3\n0 = 5\n"), "--display", "mock",
                                       "--socket", scratch.path + "/nook.sock", "--check"])
        #expect(twice.status == 2 && twice.error.contains("apps.shares.root: uid 0 has a share already, apps.shares.0"), "\(twice)")
    }
}
