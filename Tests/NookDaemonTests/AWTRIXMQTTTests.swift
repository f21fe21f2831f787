import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// A3, A6 over MQTT: AWTRIX 3's custom-app topics through Debian's mosquitto on a loopback port
/// of the test's own, nook-mqtt and nookd on the mock display, with mosquitto_pub sending the
/// payloads of AWTRIX's API documentation. What reached nookd is read from nookd (`app-list`).
@Suite("A3 AWTRIX's custom apps over MQTT", .serialized, .ownThreads, .enabled(if: MQTTTools.available, MQTTTools.skipReason))
struct AWTRIXMQTTTests {
    struct Setup {
        let scratch = Scratch()
        let daemon: DaemonProcess
        let broker: Broker
        var bridge: MQTTBridgeProcess
        let extraConfig: String

        init(extraConfig: String = "", nookdConfig: String? = nil) throws {
            self.extraConfig = extraConfig
            var arguments: [String] = []
            if let nookdConfig { arguments = ["--config", scratch.file("nook.toml", nookdConfig)] }
            daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
            broker = try Broker(scratch: scratch)
            bridge = try MQTTBridgeProcess(broker: broker, socket: daemon.socket, scratch: scratch, extraConfig: extraConfig)
        }

        func apps() throws -> [AppState] { try AppListAnswer(json: daemon.request(.appList)).apps }
        func app(_ name: String) throws -> NookApp? { try apps().first { $0.app.name == name }?.app }
        func showing() throws -> String? { try apps().first(where: \.showing)?.app.name }
    }

    @Test func a3_mosquittoPubWithAWTRIXsDocumentedPayloadsSetsTurnsAndRemovesApps() throws {
        // colours and test0 keep `[apps] duration_ms` (their payloads give none): at the default
        // 7 s, a loaded machine let colours turn to test0 before previousapp was sent.
        let setup = try Setup(nookdConfig: "[apps]\nduration_ms = 3600000\n")
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        // AWTRIX's own examples, on `[PREFIX]/custom/[app]` (PREFIX is nook/b1 unless set).
        try setup.broker.publish("nook/b1/custom/hello", #"{"text": "Hello, AWTRIX 3!", "rainbow": true, "duration": 600}"#)
        try setup.broker.publish("nook/b1/custom/colours", #"{"text": [{"t": "Hello, ", "c": "FF0000"}, {"t": "world!", "c": "00FF00"}], "repeat": 2}"#)
        try setup.broker.publish("nook/b1/custom/test", #"[{"text": "1"}, {"text": "2"}]"#)
        try eventually("four apps") { try setup.apps().count == 4 }
        #expect(try setup.app("hello")?.content == .text("Hello, AWTRIX 3!") && setup.app("hello")?.duration == .seconds(600))
        #expect(try setup.app("colours")?.content == .fragments([NookApp.Fragment("Hello, ", tint: .rgb(red: 255, green: 0, blue: 0)),
                                                                 NookApp.Fragment("world!", tint: .rgb(red: 0, green: 255, blue: 0))]))
        #expect(try setup.app("test0")?.content == .text("1") && setup.app("test1")?.content == .text("2"))
        #expect(try setup.app("hello")?.sender?.name == "nook-mqtt")
        // What Nook does not draw is named in the bridge's log.
        try eventually("the ignored fields logged") {
            setup.bridge.log.contains("nook/b1/custom/hello: app hello: ignored (Nook does not draw them): rainbow")
                && setup.bridge.log.contains("app colours: ignored (Nook does not draw them): repeat")
        }

        // Every field Nook draws.
        try setup.broker.publish("nook/b1/custom/power", """
            {"text": "1.2 kW", "icon": "bolt", "color": "#FF8800", "progress": 40, "line": [3, 4, 9], "duration": 600,
             "pos": 0, "lifetime": 120, "lifetimeMode": 1, "effect": "Fade"}
            """)
        try eventually("power set") { try setup.app("power") != nil }
        let power = try #require(try setup.app("power"))
        #expect(power.icon == "bolt" && power.tint == .rgb(red: 255, green: 136, blue: 0) && power.progress == 0.4 && power.position == 0)
        #expect(power.chart == NookApp.Chart(.line, [3, 4, 9]) && power.lifetime == .seconds(120) && power.lifetimeMode == .stale)

        // A wrong type is refused on the error topic, naming the field; nothing is set.
        try setup.broker.publish("nook/b1/custom/bad", #"{"text": "x", "bar": "tall"}"#)
        // What was left out of a message taken is on the error topic too, as a warning.
        func refusals() -> [JSONValue] { errors.json("nook/b1/error").filter { $0["code"]?.text != "warning" } }
        try eventually("the warning") {
            errors.json("nook/b1/error").contains { $0["code"]?.text == "warning" && $0["message"]?.text == "app hello: ignored (Nook does not draw them): rainbow" }
        }
        try eventually("the refusal") { !refusals().isEmpty }
        let refusal = try #require(refusals().first)
        #expect(refusal["topic"]?.text == "nook/b1/custom/bad" && refusal["field"]?.text == "bar" && refusal["code"]?.text == "wrongType", "\(refusal)")
        #expect(try setup.app("bad") == nil)

        // switch, nextapp and previousapp, with AWTRIX's payloads (nextapp's is empty).
        try setup.broker.publish("nook/b1/switch", #"{"name": "hello"}"#)
        try eventually("hello on the glass") { try setup.showing() == "hello" }
        try setup.broker.publish("nook/b1/nextapp", bytes: [])
        // The rotation's order: power (pos 0), then the others as they came; home after the last.
        let names = try setup.apps().map(\.app.name)
        #expect(names == ["power", "hello", "colours", "test0", "test1"])
        try eventually("colours, the next app, on the glass") { try setup.showing() == "colours" }
        try setup.broker.publish("nook/b1/previousapp", bytes: [])
        try eventually("hello again") { try setup.showing() == "hello" }

        // An empty payload removes the app, and an array's APP0, APP1 by their common name.
        try setup.broker.publish("nook/b1/custom/test", bytes: [])
        try eventually("test0 and test1 removed") { try setup.apps().map(\.app.name).allSatisfy { !$0.hasPrefix("test") } }
        try setup.broker.publish("nook/b1/custom/colours", bytes: [])
        try eventually("colours removed") { try setup.app("colours") == nil }
        #expect(try Set(setup.apps().map(\.app.name)) == ["power", "hello"])
    }

    /// AWTRIX's notifications over MQTT (`[PREFIX]/notify`, H2 as `/api/notify` takes them): the
    /// documented payload becomes a card, a card goes before the apps, a refusal names the field.
    @Test func e4_h2_mosquittoPubOnTheNotifyTopicPutsTheNotificationOnTheGlass() throws {
        let setup = try Setup(extraConfig: "awtrix_prefix = \"awtrix_abc123\"\n")
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        func cards() throws -> [NookActivity] { try setup.daemon.activities().flatMap { ($0.current.map { [$0] } ?? []) + $0.pending } }
        try setup.broker.publish("awtrix_abc123/custom/weather", #"{"text": "21 °C"}"#)
        try eventually("the app set") { try setup.app("weather") != nil }
        // AWTRIX's own example, held until dismissed, with a colour and a progress bar.
        try setup.broker.publish("awtrix_abc123/notify", ##"{"text": "Washer done", "rainbow": true, "hold": true, "color": "#00FF00", "progress": 100}"##)
        try eventually("the notification's card") { try cards().contains { $0.title == "Washer done" } }
        let card = try #require(try cards().first { $0.title == "Washer done" })
        #expect(card.presentation == .blocker(timeout: nil) && card.tint == .rgb(red: 0, green: 255, blue: 0) && card.progress == 1)
        try eventually("the card on the glass, in front of the app") { try setup.daemon.activities().first?.current?.title == "Washer done" }
        try eventually("the ignored field logged") {
            setup.bridge.log.contains("awtrix_abc123/notify: ignored (a card has no place for them): rainbow")
        }
        // A wrong type is refused on the error topic, naming the field; no card is made.
        try setup.broker.publish("awtrix_abc123/notify", #"{"text": "x", "hold": "yes"}"#)
        func refusals() -> [JSONValue] { errors.json("nook/b1/error").filter { $0["code"]?.text != "warning" } }
        try eventually("the refusal") { !refusals().isEmpty }
        let refusal = try #require(refusals().first)
        #expect(refusal["topic"]?.text == "awtrix_abc123/notify" && refusal["field"]?.text == "hold" && refusal["code"]?.text == "wrongType", "\(refusal)")
        #expect(try cards().map(\.title) == ["Washer done"])

        // notify/dismiss: the held notification on the glass goes.
        try setup.broker.publish("awtrix_abc123/notify/dismiss", bytes: [])
        try eventually("the washer's card dismissed") { try cards().isEmpty }
        // One still waiting behind another card is not the one on the glass: nothing goes.
        try setup.broker.publish("nook/b1/activity", #"{"title": "Build finished", "dwell": 600}"#)
        try eventually("the build's card on the glass") { try setup.daemon.activities().first?.current?.title == "Build finished" }
        try setup.broker.publish("awtrix_abc123/notify", #"{"text": "Dryer done", "hold": true}"#)
        try eventually("the dryer's card waiting") { try cards().map(\.title) == ["Build finished", "Dryer done"] }
        try setup.broker.publish("awtrix_abc123/notify/dismiss", bytes: [])
        try eventually("nothing of the bridge's on the glass to dismiss") {
            setup.bridge.log.contains("awtrix_abc123/notify/dismiss: no held notification of this bridge's on the glass to dismiss")
        }
        #expect(try cards().map(\.title) == ["Build finished", "Dryer done"])
        try setup.broker.publish("nook/b1/command", "dismiss")
        try eventually("the dryer's card on the glass") { try setup.daemon.activities().first?.current?.title == "Dryer done" }
        try setup.broker.publish("awtrix_abc123/notify/dismiss", bytes: [])
        try eventually("and dismissed") { try cards().isEmpty }
    }

    /// E4: nook-mqtt knows its held notifications by what nookd keeps with each card (its key),
    /// so `notify/dismiss` after the bridge restarted still dismisses the one it put up, and
    /// still leaves another sender's blocker alone.
    /// B4: a notification's sound reaches nookd as its card's; one Nook cannot play is said on
    /// the error topic as a warning, and the card kept.
    @Test func b4_e4_aNotificationsSoundOnTheNotifyTopicIsItsCardsSound() throws {
        let setup = try Setup()
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        try setup.daemon.request(.suspend(module: nil))
        try setup.broker.publish("nook/b1/notify", #"{"text": "Doorbell", "sound": "doorbell"}"#)
        try setup.broker.publish("nook/b1/notify", #"{"text": "Tune", "rtttl": "t:d=4:c,z"}"#)
        func cards() throws -> [NookActivity] { try setup.daemon.activities().flatMap(\.pending) }
        try eventually("both cards") { try Set(cards().map(\.title)).isSuperset(of: ["Doorbell", "Tune"]) }
        #expect(try cards().first { $0.title == "Doorbell" }?.sound == "doorbell")
        #expect(try cards().first { $0.title == "Tune" }?.sound == nil, "its priority's sound")
        func warnings() -> [String] { errors.json("nook/b1/error").filter { $0["code"]?.text == "warning" }.compactMap { $0["message"]?.text } }
        try eventually("the bad melody said") { warnings().contains { $0.hasPrefix("rtttl not played: RTTTL: 'z' is not a note") } }
    }

    @Test func e4_aHeldNotificationIsDismissedAfterTheBridgeRestarted() throws {
        var setup = try Setup(extraConfig: "awtrix_prefix = \"awtrix_abc123\"\n")
        func cards() throws -> [NookActivity] { try setup.daemon.activities().flatMap { ($0.current.map { [$0] } ?? []) + $0.pending } }
        try setup.broker.publish("awtrix_abc123/notify", #"{"text": "Washer done", "hold": true}"#)
        try eventually("the washer's card on the glass") { try setup.daemon.activities().first?.current?.title == "Washer done" }
        let card = try #require(try cards().first)
        #expect(card.coalescingKey == "mqtt-hold/nook-mqtt-b1/\(card.id)", "\(card.coalescingKey ?? "no key")")

        // Killed, as a crash or an upgrade leaves it, and started again.
        setup.bridge.crash()
        setup.bridge = try MQTTBridgeProcess(broker: setup.broker, socket: setup.daemon.socket, scratch: setup.scratch, extraConfig: setup.extraConfig)
        try setup.broker.publish("awtrix_abc123/notify/dismiss", bytes: [])
        try eventually("the washer's card dismissed after the restart") { try cards().isEmpty }

        // Another sender's blocker on the glass is not the bridge's to dismiss, restart or not.
        var door = NookActivity(title: "Doorbell", presentation: .blocker(timeout: nil))
        door.coalescingKey = "doorbell"
        try setup.daemon.request(.enqueue(door, module: nil, wait: false))
        try eventually("the doorbell on the glass") { try setup.daemon.activities().first?.current?.title == "Doorbell" }
        try setup.broker.publish("awtrix_abc123/notify/dismiss", bytes: [])
        try eventually("nothing of the bridge's on the glass to dismiss") {
            setup.bridge.log.contains("awtrix_abc123/notify/dismiss: no held notification of this bridge's on the glass to dismiss")
        }
        #expect(try cards().map(\.title) == ["Doorbell"])
    }

    @Test func a3_aBrokersClientsCannotReplaceAnotherSendersAppThroughTheCustomTopic() throws {
        let setup = try Setup()
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        // Set by this test's own user over nookd's socket, as nookctl sets one.
        try setup.daemon.request(.appSet(NookApp(name: "weather", content: .text("21 °C"))))
        try setup.broker.publish("nook/b1/custom/weather", #"{"text": "hacked"}"#)
        try eventually("the refusal") { !errors.json("nook/b1/error").isEmpty }
        let refusal = try #require(errors.json("nook/b1/error").first)
        #expect(refusal["code"]?.text == "forbidden" && refusal["message"]?.text?.contains("'nook-mqtt'") == true, "\(refusal)")
        try setup.broker.publish("nook/b1/custom/weather", bytes: [])
        try eventually("the second refusal") { errors.json("nook/b1/error").count == 2 }
        #expect(try setup.app("weather")?.content == .text("21 °C"))
    }

    @Test func a3_aRetainedAppIsTheAppsStateAcrossABridgeRestartUnderAWTRIXsOwnPrefix() throws {
        // An AWTRIX owner keeps the clock's prefix, so its senders need no change.
        var setup = try Setup(extraConfig: "awtrix_prefix = \"awtrix_abc123\"\n")
        try setup.broker.publish("awtrix_abc123/custom/weather", #"{"text": "21 °C", "icon": "cloud.sun"}"#, retain: true)
        try eventually("weather set from its retained message") { try setup.app("weather")?.content == .text("21 °C") }
        // nookd loses it (removed behind the broker's back); the bridge's next subscription
        // takes the retained state again.
        try setup.daemon.request(.appRemove("weather"))
        #expect(try setup.app("weather") == nil)
        setup.bridge.crash()
        setup.bridge = try MQTTBridgeProcess(broker: setup.broker, socket: setup.daemon.socket, scratch: setup.scratch, extraConfig: setup.extraConfig)
        try eventually("weather back after the bridge's restart") { try setup.app("weather")?.icon == "cloud.sun" }
        // An empty retained message clears the state: the app goes, and stays gone after a restart.
        try setup.broker.publish("awtrix_abc123/custom/weather", bytes: [], retain: true)
        try eventually("weather removed") { try setup.app("weather") == nil }
        setup.bridge.crash()
        setup.bridge = try MQTTBridgeProcess(broker: setup.broker, socket: setup.daemon.socket, scratch: setup.scratch, extraConfig: setup.extraConfig)
        try setup.broker.publish("awtrix_abc123/custom/marker", #"{"text": "after"}"#)
        try eventually("a later app set") { try setup.app("marker") != nil }
        #expect(try setup.app("weather") == nil)
        // A retained turn is not taken again at each subscription.
        try setup.broker.publish("awtrix_abc123/nextapp", "next", retain: true)
        try eventually("the retained nextapp left alone") { setup.bridge.log.contains("awtrix_abc123/nextapp: a retained message is not acted on again") }
    }

    /// An array is set whole or not at all: a part another sender holds, or a rotation too full
    /// for all of it, is refused on the error topic before any part is set.
    @Test func a3_anArrayOverMQTTIsSetWholeOrNotAtAll() throws {
        // The rotation's room, not a sender's share (`apps.per_sender`), is what this fills.
        let setup = try Setup(nookdConfig: "[apps]\nper_sender = 0\n")
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        // APP1 is this test's user's, as nookctl sets one; the broker's array to APP would make it.
        try setup.daemon.request(.appSet(NookApp(name: "APP1", content: .text("mine"))))
        try setup.broker.publish("nook/b1/custom/APP", #"[{"text": "0"}, {"text": "1"}, {"text": "2"}]"#)
        try eventually("the refusal") { !errors.json("nook/b1/error").isEmpty }
        let taken = try #require(errors.json("nook/b1/error").first)
        #expect(taken["code"]?.text == "forbidden" && taken["message"]?.text?.contains("'APP1'") == true, "\(taken)")
        #expect(try setup.apps().map(\.app.name) == ["APP1"] && setup.app("APP1")?.content == .text("mine"))

        // 62 apps leave room for 2: an array of 3 is refused whole.
        for index in 0..<61 { try setup.daemon.request(.appSet(NookApp(name: "a\(index)", content: .text("x")))) }
        try setup.broker.publish("nook/b1/custom/more", #"[{"text": "0"}, {"text": "1"}, {"text": "2"}]"#)
        try eventually("the second refusal") { errors.json("nook/b1/error").count >= 2 }
        let full = try #require(errors.json("nook/b1/error").last)
        #expect(full["code"]?.text == "queueFull" && full["message"]?.text?.contains("room for 2") == true, "\(full)")
        #expect(try setup.apps().count == 62 && setup.app("more0") == nil)
    }

    /// An array under the payload's limit whose one request to nookd would be over nookd's line
    /// is refused on the error topic saying so; none of it is set.
    @Test func a3_anArrayOverMQTTWhoseOneRequestWouldOutgrowNookdsLineIsRefusedSayingSo() throws {
        let setup = try Setup()
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        let fragments = "[" + Array(repeating: #"{"t":"abcd","c":"FF0000"}"#, count: 32).joined(separator: ",") + "]"
        let payload = "[" + Array(repeating: #"{"text":\#(fragments),"color":"00FF00","progress":33}"#, count: 64).joined(separator: ",") + "]"
        try setup.broker.publish("nook/b1/custom/clock", bytes: Array(payload.utf8))
        try eventually("the refusal") { !errors.json("nook/b1/error").isEmpty }
        let refusal = try #require(errors.json("nook/b1/error").first)
        #expect(refusal["code"]?.text == "lineTooLong" && refusal["message"]?.text?.contains("these 64 apps are set in one step") == true, "\(refusal)")
        #expect(try setup.apps().isEmpty)
    }

    /// An array the bridge's share (`apps.per_sender`) has room for only in part is refused
    /// whole, naming the share, in nookd's one step: no part of it is set.
    @Test func a3_anArrayOverMQTTBeyondItsSendersShareSetsNoPartOfIt() throws {
        let setup = try Setup(nookdConfig: "[apps]\nper_sender = 4\n")
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        try setup.broker.publish("nook/b1/custom/A", #"[{"text": "0"}, {"text": "1"}, {"text": "2"}]"#)
        try eventually("A0 to A2") { try setup.apps().count == 3 }
        try setup.broker.publish("nook/b1/custom/B", #"[{"text": "0"}, {"text": "1"}]"#)
        try eventually("the refusal") { !errors.json("nook/b1/error").isEmpty }
        let refusal = try #require(errors.json("nook/b1/error").first)
        #expect(refusal["code"]?.text == "queueFull" && refusal["field"]?.text == "apps[1].name", "\(refusal)")
        #expect(refusal["message"]?.text?.contains("apps.per_sender") == true && refusal["message"]?.text?.contains("none of the 2 apps was set") == true, "\(refusal)")
        #expect(try setup.apps().map(\.app.name) == ["A0", "A1", "A2"])
        // One more fits.
        try setup.broker.publish("nook/b1/custom/C", #"[{"text": "0"}]"#)
        try eventually("C0") { try setup.app("C0") != nil }
    }

    /// An empty payload removing APP and its numbered parts removes all or nothing: APP held by
    /// another sender refuses it on the error topic before the bridge's APP0, APP1 go.
    @Test func a3_aRemovalOverMQTTRefusedForAnotherSendersAppRemovesNoneOfItsParts() throws {
        let setup = try Setup()
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        try setup.broker.publish("nook/b1/custom/W", #"[{"text": "0"}, {"text": "1"}]"#)
        try eventually("W0 and W1") { try setup.apps().count == 2 }
        try setup.daemon.request(.appSet(NookApp(name: "W", content: .text("mine"))))
        try setup.broker.publish("nook/b1/custom/W", bytes: [])
        try eventually("the refusal") { !errors.json("nook/b1/error").isEmpty }
        let refusal = try #require(errors.json("nook/b1/error").first)
        #expect(refusal["code"]?.text == "forbidden", "\(refusal)")
        #expect(try setup.apps().map(\.app.name) == ["W0", "W1", "W"])
    }
}
