import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// What a sender asked for that the glass will not show is said (R3, L3, E4): over MQTT on the
/// error topic (mosquitto_sub) and in the bridge's log, by nook-notify in its log (notify-send),
/// by nookctl on standard error. The messages are still taken: the cards are read from nookd.
@Suite("R3, L3 what the glass will not show is said", .serialized, .ownThreads)
struct SaidNotDroppedTests {
    @Test(.enabled(if: MQTTTools.available, MQTTTools.skipReason))
    func e4_r3_mqttSaysAnIconTheBoardLacksOnTheErrorTopicAsAWarning() throws {
        let setup = try AWTRIXMQTTTests.Setup()
        try setup.daemon.request(.suspend(module: nil))
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        func warnings() -> [JSONValue] { errors.json("nook/b1/error").filter { $0["code"]?.text == "warning" } }
        // A known icon: taken, nothing said. The next message's warning is the first on the topic.
        try setup.broker.publish("nook/b1/activity", #"{"title": "Fine", "icon": "cloud"}"#)
        try setup.broker.publish("nook/b1/activity", #"{"title": "Weather", "icon": "cloud.sun"}"#)
        try eventually("the warning") { !warnings().isEmpty }
        let first = try #require(warnings().first)
        #expect(first["topic"]?.text == "nook/b1/activity" && first["field"] == nil, "\(first.serialized)")
        #expect(first["message"]?.text?.hasPrefix("unknown icon 'cloud.sun'") == true, "\(first.serialized)")
        #expect(first["payload"]?.text?.contains("Weather") == true, "\(first.serialized)")
        #expect(try setup.daemon.activities().flatMap(\.pending).map(\.title) == ["Fine", "Weather"], "both taken")

        // AWTRIX's notification: the bell, said; a custom app's icon nookd lacks and a field
        // Nook does not draw, said; an array's apps named.
        try setup.broker.publish("nook/b1/notify", #"{"text": "Hot", "icon": "heat"}"#)
        try setup.broker.publish("nook/b1/custom/charge", #"{"text": "50 %", "icon": "battery", "rainbow": true}"#)
        try setup.broker.publish("nook/b1/custom/pair", #"[{"text": "a", "icon": "door"}, {"text": "b"}]"#)
        try eventually("four warnings more") { warnings().count == 5 }
        let said = warnings().map { "\($0["topic"]?.text ?? "") \($0["message"]?.text ?? "")" }
        #expect(said.contains { $0.hasPrefix("nook/b1/notify icon 'heat' is not a built-in icon (did you mean 'heart'?) and no heat.png, heat.gif in ")
                && $0.hasSuffix(": the card shows 'bell'") }, "\(said)")
        #expect(said.contains("nook/b1/custom/charge app charge: ignored (Nook does not draw them): rainbow"), "\(said)")
        #expect(said.contains { $0.hasPrefix("nook/b1/custom/charge unknown icon 'battery'") && $0.contains("the app shows the generic glyph") }, "\(said)")
        #expect(said.contains { $0.hasPrefix("nook/b1/custom/pair pair0: unknown icon 'door'") }, "\(said)")
        #expect(try setup.daemon.activities().flatMap(\.pending).first { $0.title == "Hot" }?.systemImage == "bell")
        #expect(try setup.app("charge")?.icon == "battery" && setup.app("pair1") != nil)
        #expect(setup.bridge.log.contains("took a message with a warning: nook/b1/activity: unknown icon 'cloud.sun'"), "\(setup.bridge.log)")
    }

    @Test(.enabled(if: NotifyTools.available, NotifyTools.skipReason))
    func e2_r3_notifySaysAnIconItDoesNotHaveAndUsesTheBellAsDocumented() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[led]\ngeometry = \"32x8\"\n")
        let setup = try NotifyBridgeTests.Setup(daemonArguments: ["--config", config, "--display", "led-mock"])
        _ = try setup.send(["-t", "0", "-i", "heat", "日本"])
        try eventually("the card") { try setup.allActivities().contains { $0.title == "日本" } }
        let card = try #require(try setup.allActivities().first { $0.title == "日本" })
        #expect(card.systemImage == "bell", "the documented bell, not the generic glyph under the sender's name")
        try eventually("the notes in the bridge's log") {
            setup.bridge.log.contains("icon 'heat' is not a built-in icon (did you mean 'heart'?) and no heat.png, heat.gif in ")
                && setup.bridge.log.contains("(daemon.icon_directories): the card shows 'bell'")
                && setup.bridge.log.contains("the LED font cannot draw '日本' in the title; they show as '?'")
        }
        // A name of the table: nothing said of it.
        _ = try setup.send(["-t", "0", "-i", "battery-low", "Battery"])
        try eventually("the second card") { try setup.allActivities().contains { $0.title == "Battery" } }
        #expect(!setup.bridge.log.contains("'battery-low'"), "\(setup.bridge.log)")
    }

    @Test func r3_nookctlAppSetSaysAnIconNookdLacksOnStandardError() throws {
        let daemon = try DaemonProcess()
        let set = try nookctlWithin(10, ["app", "set", "weather", "--text", "21 °C", "--icon", "cloud.sun"], socket: daemon.socket)
        #expect(set.status == 0, "\(set)")
        #expect(set.error == "nookctl: warning: unknown icon 'cloud.sun': the app shows the generic glyph; "
                + "'nookctl icons' lists the known names\n", "\(set)")
        let fine = try nookctlWithin(10, ["app", "set", "weather", "--text", "21 °C", "--icon", "cloud"], socket: daemon.socket)
        #expect(fine.status == 0 && fine.error.isEmpty, "\(fine)")
    }
}
