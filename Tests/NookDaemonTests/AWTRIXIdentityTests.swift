import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// M6 through Debian's mosquitto: with `homeassistant.identity = "awtrix"` the board is in Home
/// Assistant's device registry as an AWTRIX 3 clock, and a blueprint that reads its "Device
/// topic" sensor (Jinja2, the engine of Home Assistant's templates) addresses the board's apps.
@Suite("M6 the AWTRIX identity over MQTT", .serialized, .ownThreads, .enabled(if: MQTTTools.available, MQTTTools.skipReason))
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
}
