import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// M1 over MQTT: AWTRIX 3's device topics, with the payloads of AWTRIX's API document, through
/// Debian's mosquitto, nook-mqtt and nookd on the mock display. Each either acts (said in the
/// bridge's log) or is said, in the log and on the error topic, with what Nook does instead.
@Suite("M1 AWTRIX's device topics over MQTT", .serialized, .ownThreads, .enabled(if: MQTTTools.available, MQTTTools.skipReason))
struct AWTRIXDeviceMQTTTests {
    /// Every device topic of AWTRIX's API document, with its document's payload, and whether a
    /// Nook board is then as asked.
    static let sends: [(topic: String, payload: String, done: Bool)] = [
        ("power", #"{"power": true}"#, true),
        ("power", #"{"power": false}"#, true),
        ("sleep", #"{"sleep": 3600}"#, true),
        ("sound", #"{"sound": "alarm"}"#, false),
        ("rtttl", "two short:d=4,o=5,b=100:16e6,16e6", false),
        ("moodlight", #"{"brightness": 170, "kelvin": 2300}"#, true),
        ("moodlight", "", true),
        ("indicator1", #"{"color": [255, 0, 0]}"#, true),
        ("indicator2", #"{"color": "0"}"#, true),
        ("indicator3", ##"{"color": "#32a852", "blink": 500}"##, true),
        ("settings", #"{"TEFF": 1}"#, true),
        ("settings", #"{"BRI": 100, "ATIME": 10}"#, false),
        ("settings", #"{"MATP": "true"}"#, true),
        ("reboot", "", false),
        ("doupdate", "", false),
        ("sendscreen", "", false),
    ]

    @Test func m1_everyDeviceTopicActsOrIsSaidInTheLogAndOnTheErrorTopic() throws {
        let setup = try AWTRIXMQTTTests.Setup()
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error", "nook/b1/stats"])
        for send in Self.sends {
            try setup.broker.publish("nook/b1/\(send.topic)", bytes: Array(send.payload.utf8))
        }
        let notDone = Self.sends.filter { !$0.done }
        try eventually("a notDone for each request not carried out") {
            errors.json("nook/b1/error").filter { $0["code"]?.text == "notDone" }.count == notDone.count
        }
        let said = errors.json("nook/b1/error").filter { $0["code"]?.text == "notDone" }
        for send in notDone {
            #expect(said.contains { $0["topic"]?.text == "nook/b1/\(send.topic)" && $0["payload"]?.text == send.payload }, "\(send) in \(said)")
        }
        func message(_ topic: String) -> String {
            said.compactMap { $0["topic"]?.text == "nook/b1/\(topic)" ? $0["message"]?.text : nil }.joined(separator: "\n")
        }
        #expect(message("power").isEmpty && message("sleep").isEmpty, "switched: \(message("power")) \(message("sleep"))")
        #expect(message("sound").contains("sound: not played: no sound output is configured") && message("rtttl").contains("rtttl: not played: no sound output is configured"))
        #expect(message("reboot").contains("not rebooted over the API") && message("doupdate").contains("not updated over the API"))
        // Without a [brightness] table nookd leaves the brightness alone, and says so.
        #expect(message("settings").contains("brightness: not set: nook.toml has no [brightness] table") && message("settings").contains("ATIME: not changed"),
                "\(message("settings"))")
        #expect(message("sendscreen").contains("/api/v1/frame"))
        // What holds is said in the log; what does not, too.
        try eventually("the log") {
            setup.bridge.log.contains("nook/b1/power: done (the board is as asked)")
                && setup.bridge.log.contains("nook/b1/indicator2: done (the board is as asked)")
                && setup.bridge.log.contains("nook/b1/sleep: done (the board is as asked)")
        }
        // A retained switch would be carried out again at every subscription: refused, nothing switched.
        try setup.broker.publish("nook/b1/power", #"{"power": false}"#, retain: true)
        try eventually("the retained power refused") {
            errors.json("nook/b1/error").contains { $0["topic"]?.text == "nook/b1/power" && $0["field"]?.text == "retain" }
        }
        try setup.broker.publish("nook/b1/power", "", retain: true)
        // The display was off, then asleep, then on again (MATP): the stats said it each time.
        try eventually("the stats following the display") {
            let matrix = errors.json("nook/b1/stats").compactMap { $0["matrix"] }
            return matrix.contains(.bool(false)) && matrix.last == .bool(true)
        }
        #expect(try setup.daemon.request(.status)["display"]?["power"] == .string("on"))
        #expect(try setup.daemon.activities().allSatisfy { $0.current == nil && $0.pending.isEmpty }, "nothing reached the glass")
    }

    /// AWTRIX's stats topics, as a clock publishes them: the stats the `awtrix3` integration
    /// and the blueprints read, the effects and transitions, and the loop when the apps change.
    @Test func m1_theStatsEffectsTransitionsAndLoopArePublished() throws {
        let setup = try AWTRIXMQTTTests.Setup()
        let stats = try Subscriber(broker: setup.broker, topics: ["nook/b1/stats", "nook/b1/stats/effects", "nook/b1/stats/transitions", "nook/b1/stats/loop"])
        try eventually("the stats") { !stats.json("nook/b1/stats").isEmpty && !stats.json("nook/b1/stats/transitions").isEmpty }
        let first = try #require(stats.json("nook/b1/stats").first)
        for key in ["bat", "bat_raw", "type", "lux", "ldr_raw", "ram", "bri", "temp", "hum", "uptime", "wifi_signal", "messages"] {
            #expect(first[key]?.numberValue != nil, "\(key) in \(first)")
        }
        for key in ["version", "app", "uid", "ip_address"] { #expect(first[key]?.text != nil, "\(key) in \(first)") }
        for key in ["indicator1", "indicator2", "indicator3", "matrix"] { #expect(first[key].map { if case .bool = $0 { true } else { false } } == true) }
        #expect(stats.json("nook/b1/stats/effects") == [.array([])] && stats.json("nook/b1/stats/transitions") == [.array([.string("Slide")])])
        // An app set and shown changes the stats' `app` and the loop.
        try setup.broker.publish("nook/b1/custom/weather", #"{"text": "21 °C", "duration": 600}"#)
        try eventually("the loop with weather") { stats.json("nook/b1/stats/loop").contains(.object([("weather", .number(0))])) }
        try setup.broker.publish("nook/b1/switch", #"{"name": "weather"}"#)
        try eventually("weather on the glass, in the stats") { stats.json("nook/b1/stats").contains { $0["app"]?.text == "weather" } }
    }

    /// The indicator topics light the glass as AWTRIX's do: nookd draws the light, and the stats
    /// (retained) say it is lit; an empty payload turns it off, and the stats say so.
    @Test func m1_anIndicatorTopicLightsTheGlassAndTheStatsSayIt() throws {
        let setup = try AWTRIXMQTTTests.Setup()
        let stats = try Subscriber(broker: setup.broker, topics: ["nook/b1/stats"])
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error", "nook/b1/stats"])
        try eventually("the first stats") { !stats.json("nook/b1/stats").isEmpty }
        try setup.broker.publish("nook/b1/indicator2", ##"{"color": "#32a852", "fade": 2000}"##)
        try eventually("indicator2 lit in the stats") { stats.json("nook/b1/stats").last?["indicator2"] == .bool(true) }
        let status = try StatusAnswer(json: setup.daemon.request(.status))
        #expect(status.indicators?[1] == StatusAnswer.Indicator(number: 2, color: "#32a852", blinkMs: 0, fadeMs: 2000), "\(String(describing: status.indicators))")
        try setup.broker.publish("nook/b1/indicator2", bytes: [])
        try eventually("indicator2 off in the stats") { stats.json("nook/b1/stats").last?["indicator2"] == .bool(false) }
        #expect(errors.json("nook/b1/error").isEmpty, "\(errors.json("nook/b1/error"))")
        try eventually("the log") { setup.bridge.log.contains("nook/b1/indicator2: done (the board is as asked): indicator2 #32a852") }
    }

    /// The subscription `custom/+` takes an empty last level: such a message names no app, and
    /// is said on the error topic and in the log, not dropped without a word.
    @Test func m1_aMessageOnAnAppTopicWithoutANameIsSaid() throws {
        let setup = try AWTRIXMQTTTests.Setup()
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error", "nook/b1/stats"])
        try setup.broker.publish("nook/b1/custom/", #"{"text": "x"}"#)
        try eventually("the refusal") { !errors.json("nook/b1/error").isEmpty }
        let said = try #require(errors.json("nook/b1/error").first)
        #expect(said["code"]?.text == "notFound" && said["topic"]?.text == "nook/b1/custom/", "\(said)")
        #expect(said["message"]?.text?.contains("an app's topic ends in its name (nook/b1/custom/NAME)") == true, "\(said)")
        try eventually("the log") { setup.bridge.log.contains("refused a message: nook/b1/custom/: the bridge takes nothing on nook/b1/custom/") }
        #expect(try setup.apps().isEmpty)
    }

    /// A key given twice on a device topic is read as AWTRIX reads it (the last value) and said
    /// on the error topic as a warning, as on an app's topic: the indicator turned off is done.
    @Test func m1_aKeyGivenTwiceOnADeviceTopicIsSaidAsAWarning() throws {
        let setup = try AWTRIXMQTTTests.Setup()
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error", "nook/b1/stats"])
        try setup.broker.publish("nook/b1/indicator1", ##"{"color": "#FF0000", "color": [0, 0, 0]}"##)
        try eventually("the warning") { !errors.json("nook/b1/error").isEmpty }
        let said = try #require(errors.json("nook/b1/error").first)
        #expect(said["code"]?.text == "warning" && said["topic"]?.text == "nook/b1/indicator1", "\(said)")
        #expect(said["message"]?.text?.hasPrefix("given twice") == true && said["message"]?.text?.contains("color") == true, "\(said)")
        try eventually("the log") { setup.bridge.log.contains("nook/b1/indicator1: done (the board is as asked)") }
    }

    /// A device topic holds to the payload bound every other topic keeps: a payload over it is
    /// refused as too long, not read whole into memory.
    @Test func m1_aDeviceTopicsPayloadOverTheBoundIsRefusedAsTooLong() throws {
        let setup = try AWTRIXMQTTTests.Setup()
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error", "nook/b1/stats"])
        let huge = "{\"BRI\": 100, \"pad\": \"" + String(repeating: "x", count: NookProtocol.maximumLineBytes) + "\"}"
        try setup.broker.publish("nook/b1/settings", bytes: Array(huge.utf8))
        try eventually("the refusal") { !errors.json("nook/b1/error").isEmpty }
        let said = try #require(errors.json("nook/b1/error").first)
        #expect(said["code"]?.text == "lineTooLong" && said["field"]?.text == "payload" && said["topic"]?.text == "nook/b1/settings", "\(said)")
    }
}
