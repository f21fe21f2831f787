import Foundation
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// M1's display as Home Assistant's MQTT light, through Debian's mosquitto, nook-mqtt and nookd
/// with a `[brightness]` table dimming the mock's frames: the light's own templates, rendered with
/// Jinja2 (the engine of Home Assistant's templates), make the payloads its `turn_on` and
/// `turn_off` publish; they switch the display and set its brightness, the retained state follows,
/// and what is not done or not read as sent is said on the error topic.
@Suite("M1 Home Assistant's light for the display", .serialized, .ownThreads, .enabled(if: MQTTTools.available, MQTTTools.skipReason))
struct HomeAssistantLightEndToEndTests {
    static let jinja = MQTTTools.path("python3") != nil && (try? MQTTTools.run(["python3", "-c", "import jinja2"]).status) == 0

    /// `template` rendered as Home Assistant renders it, with `variables` (JSON) as its variables.
    func render(_ template: String, _ variables: String) throws -> String {
        let script = "import json, sys, jinja2.sandbox\nenv = jinja2.sandbox.ImmutableSandboxedEnvironment()\n"
            + "variables = json.loads(sys.argv[2])\nif 'value' in variables: variables['value_json'] = json.loads(variables['value'])\n"
            + "print(env.from_string(sys.argv[1]).render(**variables))"
        let result = try MQTTTools.run(["python3", "-c", script, template, variables])
        guard result.status == 0 else { throw DaemonFailure("rendering \(template) failed: \(result.error)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func state(_ setup: AWTRIXMQTTTests.Setup) throws -> String? { try setup.broker.retained("nook/b1/state")["nook/b1/state"] }

    @Test(.enabled(if: jinja, "needs python3-jinja2: run Hardware/dev/install-deps"))
    func m1_e7_theLightsTemplatesSwitchTheDisplayAndSetItsBrightnessAndReadThemBack() throws {
        let setup = try AWTRIXMQTTTests.Setup(nookdConfig: "[brightness]\nactive = 100\nidle = 50\n")
        let subscriber = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        var found: JSONValue?
        try eventually("the light's config") {
            found = try setup.broker.retained("homeassistant/light/nook_b1/display/config").values.first.flatMap { try? JSONValue.parse(Array($0.utf8)) }
            return found != nil
        }
        let config = try #require(found)
        #expect(config["command_topic"]?.text == "nook/b1/display" && config["schema"]?.text == "template", "\(config)")
        #expect(try setup.broker.retained("homeassistant/siren/#").isEmpty, "no sound output: no siren announced")
        let on = try #require(config["command_on_template"]?.text), off = try #require(config["command_off_template"]?.text)
        let shown = try #require(config["state_template"]?.text), level = try #require(config["brightness_template"]?.text)
        func read() throws -> (String, String)? {
            guard let state = try state(setup) else { return nil }
            let variables = String(decoding: JSONValue.object([("value", .string(state))]).serializedBytes, as: UTF8.self)
            return (try render(shown, variables), try render(level, variables))
        }
        try eventually("on, at 255: nothing set yet, and the mock's level is the idle 50 %") { try read()?.0 == "on" }

        // light.turn_off, then light.turn_on with a brightness of 64, as Home Assistant renders them.
        try setup.broker.publish("nook/b1/display", try render(off, "{}"))
        try eventually("the display off, and the state says so") { try read()?.0 == "off" }
        #expect(try setup.daemon.request(.status)["display"]?["power"] == .string("off"))
        try setup.broker.publish("nook/b1/display", try render(on, #"{"brightness": 64}"#))
        try eventually("on at 64 of 255") { try read().map { $0 == ("on", "64") } == true }
        #expect(try setup.daemon.request(.status)["brightness"]?["set"] == .number(25))
        // turn_on without a brightness keeps the one set.
        try setup.broker.publish("nook/b1/display", try render(off, "{}"))
        try eventually("off again") { try read()?.0 == "off" }
        try setup.broker.publish("nook/b1/display", try render(on, "{}"))
        try eventually("on, at the 64 set") { try read().map { $0 == ("on", "64") } == true }
        try eventually("the bridge's log") { setup.bridge.log.contains("nook/b1/display: done (the board is as asked): display: on, brightness 25 %") }

        // Refused, naming the field; a retained command is not carried out; extras are said.
        try setup.broker.publish("nook/b1/display", #"{"state": "on", "brightness": 300}"#)
        try setup.broker.publish("nook/b1/display", #"{"state": "dim"}"#)
        try setup.broker.publish("nook/b1/display", "OFF", retain: true)
        try setup.broker.publish("nook/b1/display", #"{"state": "on", "color": {"r": 255}}"#)
        try eventually("three refusals and a warning") {
            let said = subscriber.json("nook/b1/error").filter { $0["topic"]?.text == "nook/b1/display" }
            let fields = said.compactMap { $0["field"]?.text }
            return fields.contains("brightness") && fields.contains("state") && fields.contains("retain")
                && said.contains { $0["code"]?.text == "warning" && $0["message"]?.text?.contains("not the display's, ignored: color") == true }
        }
        try setup.broker.publish("nook/b1/display", "", retain: true)
        #expect(try setup.daemon.request(.status)["display"]?["power"] == .string("on"), "the retained OFF switched nothing")
    }

    /// Without a `[brightness]` table nookd leaves the brightness alone: a brightness from the
    /// light is not done and said, and the switch with it is still made.
    @Test func m1_aBrightnessFromTheLightWithoutABrightnessTableIsSaid() throws {
        let setup = try AWTRIXMQTTTests.Setup()
        let subscriber = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        // Announced as a light that only switches: Home Assistant offers no slider to refuse.
        var config: JSONValue?
        try eventually("the light's config") {
            config = try setup.broker.retained("homeassistant/light/nook_b1/display/config").values.first.flatMap { try? JSONValue.parse(Array($0.utf8)) }
            return config != nil
        }
        #expect(config?["brightness_template"] == nil, "\(String(describing: config))")
        // A sender's own mosquitto_pub may still send one: said.
        try setup.broker.publish("nook/b1/display", #"{"state": "off"}"#)
        try setup.broker.publish("nook/b1/display", #"{"state": "on", "brightness": 128}"#)
        try eventually("not done, said") {
            subscriber.json("nook/b1/error").contains {
                $0["topic"]?.text == "nook/b1/display" && $0["code"]?.text == "notDone"
                    && $0["message"]?.text?.contains("brightness: not set: nook.toml has no [brightness] table") == true
            }
        }
        #expect(try setup.daemon.request(.status)["display"]?["power"] == .string("on"))
    }
}
