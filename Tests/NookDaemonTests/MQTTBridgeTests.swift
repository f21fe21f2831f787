import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// SPEC E4–E7 end to end: Debian's mosquitto on a loopback port of the test's own, nookd on
/// the mock display, nook-mqtt, and mosquitto_pub / mosquitto_sub as the clients.
@Suite("E4–E7 MQTT bridge against a real broker", .serialized, .ownThreads, .enabled(if: MQTTTools.available, MQTTTools.skipReason))
struct MQTTBridgeTests {
    struct Setup {
        let scratch = Scratch()
        let daemon: DaemonProcess
        let broker: Broker
        var bridge: MQTTBridgeProcess

        init(extraConfig: String = "", statePollMilliseconds: Int? = nil) throws {
            daemon = try DaemonProcess(scratch: scratch)
            broker = try Broker(scratch: scratch)
            bridge = try MQTTBridgeProcess(broker: broker, socket: daemon.socket, scratch: scratch, extraConfig: extraConfig,
                                           statePollMilliseconds: statePollMilliseconds)
        }

        /// Every activity nookd holds, on the glass first.
        func titles() throws -> [String] {
            try daemon.activities().flatMap { ($0.current.map { [$0] } ?? []) + $0.pending }.map(\.title)
        }

        /// Suspends nookd's queue so what arrives stays pending, where `list` shows it.
        func hold() throws {
            try daemon.request(.suspend(module: nil))
        }
    }

    @Test func e4_jsonAndPlainPayloadsOnBothActivityTopicsReachNookd() throws {
        let setup = try Setup()
        try setup.hold()
        try setup.broker.publish("nook/all/activity", "Dinner is ready")
        try setup.broker.publish("nook/b1/activity", "  Plain to b1\n")
        try setup.broker.publish("nook/all/activity", #"{"title":"JSON to all","tint":"green","priority":"high","key":"k"}"#)
        try setup.broker.publish("nook/b1/activity", #"{"title":"JSON to b1","subtitle":"sub","icon":"bell","dwell":1.5,"progress":0.25}"#)
        try eventually("four activities") { try setup.titles().count == 4 }
        let pending = try setup.daemon.activities()[0].pending
        let all = try #require(pending.first { $0.title == "JSON to all" })
        #expect(all.priority == .high && all.coalescingKey == "k" && all.tint == NookTint(parsing: "green"))
        let b1 = try #require(pending.first { $0.title == "JSON to b1" })
        #expect(b1.subtitle == "sub" && b1.systemImage == "bell" && b1.dwell == .milliseconds(1500) && b1.progress == 0.25)
        #expect(Set(try setup.titles()) == ["Dinner is ready", "Plain to b1", "JSON to all", "JSON to b1"])
    }

    @Test func e4_everyCommandActs() throws {
        let setup = try Setup()
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        let blocker = NookActivityID()
        try setup.broker.publish("nook/b1/activity", #"{"id":"\#(blocker)","title":"Door open","blocker":true}"#)
        try eventually("the blocker on the glass") { try setup.daemon.activities()[0].current?.id == blocker }
        try setup.broker.publish("nook/b1/command", "suspend")
        try eventually("suspended") { try StatusAnswer(json: setup.daemon.request(.status)).modules.allSatisfy(\.suspended) }
        let pendingID = NookActivityID()
        try setup.broker.publish("nook/b1/activity", #"{"id":"\#(pendingID)","title":"Pending"}"#)
        try setup.broker.publish("nook/b1/activity", #"{"title":"Keyed 1","key":"vol"}"#)
        try setup.broker.publish("nook/b1/activity", #"{"title":"Keyed 2","key":"other"}"#)
        try eventually("three pending") { try setup.daemon.activities()[0].pending.count == 3 }
        try setup.broker.publish("nook/b1/command", "cancel \(pendingID)")
        try eventually("cancelled") { try !setup.titles().contains("Pending") }
        try setup.broker.publish("nook/b1/command", "cancel-all vol")
        try eventually("cancel-all") { try !setup.titles().contains("Keyed 1") }
        try setup.broker.publish("nook/b1/command", #"{"op":"cancel-all","key":"other"}"#)
        try eventually("cancel-all as JSON") { try !setup.titles().contains("Keyed 2") }
        try setup.broker.publish("nook/b1/command", "home text Back at six")
        try eventually("home text") { try StatusAnswer(json: setup.daemon.request(.status)).home.contains("Back at six") }
        try setup.broker.publish("nook/b1/command", "home clock")
        try eventually("home clock") { try StatusAnswer(json: setup.daemon.request(.status)).home == "clock" }
        try setup.broker.publish("nook/b1/command", "dismiss")
        try eventually("dismissed") { try setup.daemon.activities()[0].current == nil }
        try setup.broker.publish("nook/b1/command", "resume")
        try eventually("resumed") { try StatusAnswer(json: setup.daemon.request(.status)).modules.allSatisfy { !$0.suspended } }
        #expect(errors.payloads("nook/b1/error").isEmpty, "\(errors.text)")
    }

    @Test func e4_stateEventAndAvailabilityArePublished() throws {
        let setup = try Setup()
        let watcher = try Subscriber(broker: setup.broker, topics: ["nook/b1/event", "nook/b1/state", "nook/b1/availability"])
        try eventually("availability online, retained") { watcher.payloads("nook/b1/availability").last == "online" }
        try setup.broker.publish("nook/b1/activity", #"{"title":"Shown","dwell":0.3,"transition":0.05}"#)
        try eventually("the lifecycle on the event topic") {
            watcher.json("nook/b1/event").compactMap { $0["event"]?.text } == ["enqueued", "animateIn", "presented", "animateOut", "hidden"]
        }
        let hidden = try #require(watcher.json("nook/b1/event").last)
        #expect(hidden["title"]?.text == "Shown" && hidden["reason"]?.text == "completed" && hidden["id"]?.text != nil)
        // The state names the card on the glass: a blocker, which stays until dismissed however
        // late a loaded machine's bridge publishes (the 0.3 s card above may come and go between).
        try setup.broker.publish("nook/b1/activity", #"{"title":"On the glass","blocker":true}"#)
        try eventually("state: the card on the glass") {
            watcher.json("nook/b1/state").last?["current"]?["title"]?.text == "On the glass"
        }
        try setup.broker.publish("nook/b1/command", "dismiss")
        // The log says what the command did, as nookd answered it.
        try eventually("the dismiss's outcome in the log") { setup.bridge.log.contains(#"nook/b1/command: dismiss: {"dismissed":""#) }
        try eventually("state: the glass empty again") {
            let last = watcher.json("nook/b1/state").last
            return last?["current"] == .null || (last != nil && last?["current"] == nil)
        }
        // State is retained: a late subscriber reads it at once.
        try setup.hold()
        try setup.broker.publish("nook/b1/activity", #"{"title":"Waiting","blocker":true}"#)
        try eventually("state: one pending, suspended") {
            let state = try setup.broker.retained("nook/b1/state")["nook/b1/state"].flatMap { try? JSONValue.parse(Array($0.utf8)) }
            return state?["pending"] == .number(1) && state?["suspended"] == .bool(true) && state?["engaged"] == .bool(false)
        }
        // A bridge that dies: the broker publishes its will.
        setup.bridge.crash()
        try eventually("availability offline (the will)") { watcher.payloads("nook/b1/availability").last == "offline" }
        try eventually("availability offline, retained") { try setup.broker.retained("nook/b1/availability")["nook/b1/availability"] == "offline" }
    }

    /// `state` follows nookd's `status` events (engagement, suspend, home) with no
    /// poll, and an idle bridge sleeps: no wake-up but the keepalive's (a quarter of its period,
    /// here ten minutes, so that no ping falls in the window the test counts).
    @Test func e4_stateFollowsNookdsStatusEventsAndAnIdleBridgeSleeps() throws {
        let scratch = Scratch()
        let sensor = try FakeProximitySensor(in: scratch, reading: "1")
        let config = scratch.file("nook.toml", sensor.configTable)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let broker = try Broker(scratch: scratch)
        let bridge = try MQTTBridgeProcess(broker: broker, socket: daemon.socket, scratch: scratch, extraConfig: "keepalive = 600\n")
        func state() throws -> JSONValue? {
            try broker.retained("nook/b1/state")["nook/b1/state"].flatMap { try? JSONValue.parse(Array($0.utf8)) }
        }
        try eventually("the first state") { try state()?["engaged"] == .bool(false) }

        // Idle: the bridge blocks in poll(2). A once-a-second status poll showed here as at
        // least two context switches a second.
        let before = try Self.contextSwitches(bridge.process.processIdentifier)
        sleep(3)
        let after = try Self.contextSwitches(bridge.process.processIdentifier)
        #expect(after - before <= 1, "an idle bridge woke \(after - before) times in 3 s")

        try sensor.read("64")
        try eventually("engaged in state") { try state()?["engaged"] == .bool(true) }
        try daemon.request(.suspend(module: nil))
        try eventually("suspended in state") { try state()?["suspended"] == .bool(true) }
        try daemon.request(.home(.text("Back at 3")))
        try eventually("the home text in state") { try state()?["home"]?.text?.contains("Back at 3") == true }
        try sensor.read("1")
        try eventually("not engaged in state") { try state()?["engaged"] == .bool(false) }
        #expect(!bridge.log.contains("cannot read"), "\(bridge.log)")
    }

    /// Voluntary and involuntary context switches of every thread of `pid` (proc(5)).
    static func contextSwitches(_ pid: Int32) throws -> Int {
        var total = 0
        for thread in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            let status = try String(contentsOfFile: "/proc/\(pid)/task/\(thread)/status", encoding: .utf8)
            for line in status.split(separator: "\n") where line.hasSuffix("ctxt_switches:") == false && line.contains("ctxt_switches:") {
                total += Int(line.split(separator: "\t").last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
            }
        }
        return total
    }

    @Test func e5_aBoardThatWasOfflineGetsWhatWasPublishedMeanwhile() throws {
        var setup = try Setup()
        try setup.hold()
        setup.bridge.crash()
        for number in 1...10 { try setup.broker.publish(number.isMultiple(of: 2) ? "nook/all/activity" : "nook/b1/activity", "While away \(number)") }
        setup.bridge = try MQTTBridgeProcess(broker: setup.broker, socket: setup.daemon.socket, scratch: setup.scratch)
        try eventually("ten activities after reconnecting") { try setup.titles().count == 10 }
        #expect(Set(try setup.titles()) == Set((1...10).map { "While away \($0)" }))
    }

    @Test func e5_brokerRestartedMidStreamLosesNothingAcknowledged() throws {
        var setup = try Setup()
        try setup.hold()
        for number in 1...10 { try setup.broker.publish("nook/b1/activity", "Before \(number)") }
        try eventually("the first ten") { try setup.titles().count == 10 }
        // The broker goes (persisting its sessions), the bridge reconnects when it is back.
        setup.broker.stop()
        try setup.broker.start()
        try eventually("the bridge back on the broker") { setup.bridge.log.components(separatedBy: "connected to the broker").count == 3 }
        // The bridge crashes while these arrive: some may have been taken by nookd with their
        // PUBACK still unwritten, and come again (at least once); their ids make that harmless.
        for number in 1...10 { try setup.broker.publish("nook/all/activity", #"{"id":"\#(NookActivityID())","title":"After \#(number)"}"#) }
        setup.bridge.crash()
        // Published while the bridge is gone, kept by the broker across its own restart.
        for number in 1...10 { try setup.broker.publish("nook/b1/activity", "Queued \(number)") }
        setup.broker.stop()
        try setup.broker.start()
        setup.bridge = try MQTTBridgeProcess(broker: setup.broker, socket: setup.daemon.socket, scratch: setup.scratch)
        try eventually("all thirty") { try setup.titles().count == 30 }
        let expected = ["Before", "After", "Queued"].flatMap { word in (1...10).map { "\(word) \($0)" } }
        #expect(try setup.titles().sorted() == expected.sorted())
    }

    @Test func e5_aMessageNookdNeverAnsweredIsNotAcknowledgedAndComesAgain() throws {
        // No periodic state refresh (none by default): the bridge must be idle, not asking
        // nookd for its status, when nookd stops, so the next thing it sends nookd is the message.
        let setup = try Setup()
        try eventually("the first state published") { try !setup.broker.retained("nook/b1/state").isEmpty }
        // nookd hangs: the bridge has passed the message on and waits for the answer.
        ProcessStop.stop(setup.daemon.process.processIdentifier)
        try setup.broker.publish("nook/b1/activity", "Held")
        try eventually("the bridge waiting for nookd", timeout: 30) { setup.bridge.log.contains("passed 1 message(s) to nookd") }
        // nookd dies without answering: what it never accepted must come again, not be lost.
        setup.daemon.crash()
        let restarted = try DaemonProcess(scratch: setup.scratch)
        try restarted.request(.suspend(module: nil))
        // A hang guard, not a deadline: the bridge retries nookd with a backoff of up to 10 s, and
        // a loaded machine (the load test beside it, other builds) stretched the restart past 30 s.
        try saying("nook-mqtt:\n\(setup.bridge.log)") {
            try eventually("the message delivered again to the new nookd", timeout: 120) {
                try restarted.activities().flatMap { ($0.current.map { [$0] } ?? []) + $0.pending }.map(\.title) == ["Held"]
            }
        }
        #expect(setup.bridge.log.contains("leaving the broker without acknowledging"))
    }

    @Test func e5_aRedeliveredActivityWithAnIdIsTakenOnce() throws {
        let setup = try Setup()
        try setup.hold()
        let id = NookActivityID()
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        try setup.broker.publish("nook/b1/activity", #"{"id":"\#(id)","title":"Once"}"#)
        try eventually("taken") { try setup.titles() == ["Once"] }
        // The same message again, as the broker sends it after a lost PUBACK.
        try setup.broker.publish("nook/b1/activity", #"{"id":"\#(id)","title":"Once"}"#)
        try eventually("the bridge noticing") { setup.bridge.log.contains("already taken") }
        #expect(try setup.titles() == ["Once"])
        #expect(errors.payloads("nook/b1/error").isEmpty)
    }

    @Test func e5_nookdRestartedWhileTheBridgeRuns() throws {
        let setup = try Setup()
        try setup.hold()
        try setup.broker.publish("nook/b1/activity", "Before the restart")
        try eventually("taken") { try setup.titles() == ["Before the restart"] }
        _ = setup.daemon.stop()
        try eventually("the bridge leaving the broker") { setup.bridge.log.contains("lost nookd") }
        try setup.broker.publish("nook/b1/activity", "While nookd restarts")
        let restarted = try DaemonProcess(scratch: setup.scratch)
        try restarted.request(.suspend(module: nil))
        try eventually("the message after nookd is back", timeout: 120) {
            try restarted.activities().flatMap { $0.pending + ($0.current.map { [$0] } ?? []) }.map(\.title) == ["While nookd restarts"]
        }
    }

    /// Each bad payload gets exactly one message on the error topic naming the topic and the
    /// field; the bridge keeps serving and nothing queued is lost.
    @Test func e4_badPayloadsAreAnsweredOnTheErrorTopic() throws {
        let setup = try Setup()
        try setup.hold()
        try setup.broker.publish("nook/b1/activity", "Keep me")
        try eventually("kept") { try setup.titles() == ["Keep me"] }
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        let activity = "nook/b1/activity", all = "nook/all/activity", command = "nook/b1/command"
        let cases: [(topic: String, payload: String, field: String)] = [
            (activity, "{", "payload"),
            (activity, #"{"title":}"#, "payload"),
            (all, "{}", "activity.title"),
            (activity, #"{"title":5}"#, "activity.title"),
            (activity, #"{"title":""}"#, "activity.title"),
            (activity, #"{"title":"x","colour":"red"}"#, "activity.colour"),
            (activity, #"{"title":"x","tint":"chartreuse"}"#, "activity.tint"),
            (all, #"{"title":"x","priority":"urgent"}"#, "activity.priority"),
            (activity, #"{"title":"x","dwell":-1}"#, "activity.dwell"),
            (activity, #"{"title":"x","dwell":"long"}"#, "activity.dwell"),
            (activity, #"{"title":"x","id":"not-a-uuid"}"#, "activity.id"),
            (activity, #"{"title":"x","blocker":"yes"}"#, "activity.blocker"),
            (activity, #"{"title":"x","timeout":5}"#, "activity.timeout"),
            (activity, #"{"title":"x","progress":2}"#, "activity.progress"),
            (activity, #"{"title":"x","expiresAfter":-3}"#, "activity.expiresAfter"),
            (activity, #"{"title":"x","icon":"/etc/shadow"}"#, "activity.icon"),
            (activity, #"{"title":"x","transition":99}"#, "activity.transition"),
            (all, "{" + String(repeating: "{", count: 100), "payload"),
            (activity, String(repeating: "x", count: 600), "activity.title"),
            (command, "frobnicate", "command"),
            (command, "cancel", "activity"),
            (command, "cancel 1234", "activity"),
            (command, "cancel-all", "key"),
            (command, "home sometimes", "content"),
            (command, "home text", "text"),
            (command, "suspend now", "command"),
            (command, "dismiss not-an-id", "activity"),
            (command, #"{"op":"status"}"#, "op"),
            (command, #"{"op":"explode"}"#, "op"),
            (command, #"{"op":"enqueue","activity":{"title":"x"}}"#, "op"),
            (command, "cancel \(NookActivityID())", "activity"),
        ]
        for item in cases { try setup.broker.publish(item.topic, item.payload) }
        // Bytes no shell quotes well: an empty payload, invalid UTF-8, more than 64 KiB.
        try setup.broker.publish(activity, bytes: [])
        try setup.broker.publish(activity, bytes: [0x48, 0xFF, 0xFE, 0x69])
        try setup.broker.publish(activity, bytes: Array(repeating: 0x61, count: 70_000))
        let expectedCount = cases.count + 3
        try eventually("\(expectedCount) errors") { errors.payloads("nook/b1/error").count >= expectedCount }
        let reported = errors.json("nook/b1/error")
        #expect(reported.count == expectedCount)
        // In any order: a bad payload the bridge refuses itself is reported at once, one that
        // nookd refuses (cancelling an id it does not hold) after nookd's answer.
        let expected = (cases.map { ($0.topic, $0.field) } + [(activity, "activity.title"), (activity, "payload"), (activity, "payload")])
            .map { "\($0.0) \($0.1)" }
        let got = reported.map { "\($0["topic"]?.text ?? "no topic") \($0["field"]?.text ?? "no field")" }
        #expect(got.sorted() == expected.sorted(), "\(reported.map(\.serialized))")
        for report in reported { #expect(report["message"]?.text?.isEmpty == false, "\(report.serialized)") }
        // Still serving, nothing lost.
        try setup.broker.publish("nook/b1/activity", "After the storm")
        try eventually("served after the bad ones") { try setup.titles() == ["Keep me", "After the storm"] }
        #expect(setup.bridge.process.isRunning && setup.daemon.process.isRunning)
    }

    /// A payload within the 64 KiB payload limit whose request line is longer than nookd reads
    /// ("e" and 32,767 combining accents: 65,535 bytes, one character on the glass). nookd's refusal of such a line carries no id; the bridge took that as a lost
    /// connection, never acknowledged, and the broker sent the batch again forever.
    @Test func e4_aPayloadWhoseRequestIsTooLongForNookdIsRefusedAndTheNextServed() throws {
        let setup = try Setup()
        try setup.hold()
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        let poison = Array("e".utf8) + Array(repeating: Array("\u{301}".utf8), count: 32_767).flatMap { $0 }
        #expect(poison.count == 65_535)
        try setup.broker.publish("nook/b1/activity", bytes: poison)
        try setup.broker.publish("nook/b1/activity", "next")
        try eventually("the poison refused on the error topic") { !errors.payloads("nook/b1/error").isEmpty }
        // One character of 32,768 code points: refused for them before it would make a request
        // line longer than nookd reads.
        #expect(errors.json("nook/b1/error").first?["code"]?.text == "invalid", "\(errors.text)")
        #expect(errors.json("nook/b1/error").first?["message"]?.text?.contains("32768 characters (Unicode code points) long; at most 512") == true, "\(errors.text)")
        try eventually("next enqueued") { try setup.titles() == ["next"] }
        #expect(setup.bridge.process.isRunning && setup.daemon.process.isRunning)
    }

    @Test func e7_discoveryPayloadsFieldByFieldAndRemoval() throws {
        let setup = try Setup()
        // This nookd has no sound output and no [brightness] table: no siren, and a light that only
        // switches (HomeAssistantSirenEndToEndTests and HomeAssistantLightEndToEndTests have both).
        let expected: [(String, String)] = [("notify", "notify"), ("sensor", "card"), ("sensor", "pending"),
                                            ("binary_sensor", "engaged"), ("button", "dismiss"), ("switch", "suspend"),
                                            ("light", "display"), ("sensor", "device_topic")]
        // The bridge's discovery may still be on its way to the broker.
        var configs: [String: String] = [:]
        try? eventually("every discovery config retained") {
            configs = try setup.broker.retained("homeassistant/#")
            return configs.count >= expected.count
        }
        #expect(configs.count == expected.count, "\(configs.keys.sorted())")
        for (component, object) in expected {
            let topic = "homeassistant/\(component)/nook_b1/\(object)/config"
            let config = try #require(configs[topic].flatMap { try? JSONValue.parse(Array($0.utf8)) }, "\(topic)")
            #expect(config["unique_id"]?.text == "nook_b1_\(object)")
            #expect(config["name"]?.text?.isEmpty == false)
            #expect(config["device"]?["identifiers"] == .array([.string("nook_b1")]))
            #expect(config["device"]?["name"]?.text == "Nook b1")
            #expect(config["device"]?["manufacturer"]?.text == "Nook" && config["device"]?["model"]?.text == "nook-mqtt bridge")
            #expect(config["device"]?["sw_version"]?.text?.isEmpty == false)
            #expect(config["availability"]?.items.first?["topic"]?.text == "nook/b1/availability")
            #expect(config["availability"]?.items.first?["payload_not_available"]?.text == "offline")
            switch component {
            case "notify":
                #expect(config["command_topic"]?.text == "nook/b1/activity")
            case "sensor" where object == "device_topic":
                #expect(config["state_topic"]?.text == "nook/b1/state" && config["value_template"]?.text == "{{ 'nook/b1' }}")
            case "sensor", "binary_sensor":
                #expect(config["state_topic"]?.text == "nook/b1/state")
                #expect(config["value_template"]?.text?.contains("value_json.") == true)
            case "button":
                #expect(config["command_topic"]?.text == "nook/b1/command" && config["payload_press"]?.text == "dismiss")
            case "siren":
                #expect(config["command_topic"]?.text == "nook/b1/siren" && config["state_topic"]?.text == "nook/b1/state")
                #expect(config["state_value_template"]?.text == "{{ 'ON' if value_json.sound == 'playing' else 'OFF' }}")
                let tones = config["available_tones"]?.items.compactMap(\.text) ?? []
                #expect(tones.contains("doorbell") && tones.contains("siren") && !tones.contains("bell-terminal"), "\(tones)")
                #expect(config["support_duration"] == .bool(false) && config["support_volume_set"] == .bool(true))
            case "light":
                #expect(config["command_topic"]?.text == "nook/b1/display" && config["state_topic"]?.text == "nook/b1/state")
                #expect(config["schema"]?.text == "template" && config["brightness_template"] == nil, "no brightness nookd sets: \(config)")
            default:
                #expect(config["command_topic"]?.text == "nook/b1/command")
                #expect(config["payload_on"]?.text == "suspend" && config["payload_off"]?.text == "resume")
                #expect(config["state_topic"]?.text == "nook/b1/state")
            }
        }
        // What the entities send works: the button dismisses, the switch suspends.
        try setup.broker.publish("nook/b1/activity", #"{"title":"Blocker","blocker":true}"#)
        try eventually("on the glass") { try setup.daemon.activities()[0].current != nil }
        try setup.broker.publish("nook/b1/command", "dismiss")
        try eventually("dismissed by the button's payload") { try setup.daemon.activities()[0].current == nil }
        // Uninstall: every retained message of the bridge is cleared.
        let removal = try MQTTTools.run([Built.nookMQTT, "--config", setup.bridge.configPath, "--remove-discovery"])
        #expect(removal.status == 0, "\(removal.error)")
        try eventually("every discovery config cleared") { try setup.broker.retained("homeassistant/#").isEmpty }
        try eventually("the state cleared") { try setup.broker.retained("nook/b1/state").isEmpty }
    }

    /// Attribute names Home Assistant's MQTT integration drops (`MQTT_ATTRIBUTES_BLOCKED`).
    static let homeAssistantBlockedAttributes: Set<String> = [
        "assumed_state", "available", "device_class", "entity_category", "entity_picture", "entity_registry_enabled_default",
        "extra_state_attributes", "force_update", "icon", "name", "should_poll", "state", "supported_features", "unique_id",
        "unit_of_measurement",
    ]

    /// Renders the card sensor's templates with Jinja2 (the engine Home Assistant's templates
    /// are) against the state the bridge published: the sensor's state and its attributes.
    static func renderCard(config: JSONValue, state: String) throws -> (state: String, attributes: JSONValue) {
        let script = """
            import json, sys, jinja2
            config, state = json.loads(sys.argv[1]), sys.argv[2]
            env = jinja2.sandbox.ImmutableSandboxedEnvironment()
            value_json = json.loads(state)
            rendered = env.from_string(config["value_template"]).render(value=state, value_json=value_json)
            attributes = env.from_string(config["json_attributes_template"]).render(value=state, value_json=value_json)
            print(json.dumps({"state": rendered, "attributes": json.loads(attributes)}))
            """
        let result = try MQTTTools.run(["python3", "-c", "import jinja2.sandbox\n" + script, config.serialized, state])
        guard result.status == 0, let output = try? JSONValue.parse(Array(result.output.utf8)), let rendered = output["state"]?.text,
              let attributes = output["attributes"] else {
            throw DaemonFailure("rendering the card's templates failed: \(result.error)")
        }
        return (rendered, attributes)
    }

    @Test(.enabled(if: MQTTTools.path("python3") != nil && (try? MQTTTools.run(["python3", "-c", "import jinja2"]).status) == 0,
                   "needs python3-jinja2: run Hardware/dev/install-deps"))
    func e7_theCardSensorsStateFitsHomeAssistantAndItsAttributesAreKept() throws {
        let setup = try Setup()
        // The bridge's discovery and first state may still be on their way to the broker.
        var found: JSONValue?
        try eventually("the card sensor's config") {
            found = try setup.broker.retained("homeassistant/sensor/nook_b1/card/config").values.first.flatMap { try? JSONValue.parse(Array($0.utf8)) }
            return found != nil
        }
        let config = try #require(found)
        func retainedState() throws -> String? { try setup.broker.retained("nook/b1/state")["nook/b1/state"] }
        try eventually("the first state") { try retainedState() != nil }
        // An empty glass is Home Assistant's "no value" (unknown), not a word a title could be.
        let empty = try Self.renderCard(config: config, state: try #require(try retainedState()))
        #expect(empty.state == "None")

        let long = String(repeating: "Long title ", count: 46) + "end." // 510 characters
        for title in [long, "None", "none"] {
            try setup.broker.publish("nook/b1/command", "dismiss")
            try eventually("the glass empty") { try setup.daemon.activities()[0].current == nil }
            let payload = JSONValue.object([("title", .string(title)), ("icon", .string("bell")), ("blocker", .bool(true))]).serialized
            try setup.broker.publish("nook/b1/activity", payload)
            var state = ""
            try eventually("the card in state") {
                state = try retainedState() ?? ""
                return (try? JSONValue.parse(Array(state.utf8)))?["current"]?["title"]?.text == title
            }
            let card = try Self.renderCard(config: config, state: state)
            #expect(card.state.count <= 255 && card.state != "None" && card.state != empty.state, "\(card.state)")
            #expect(title.count > 255 ? card.state.hasPrefix("Long title Long") : card.state.contains(title), "\(card.state)")
            #expect(card.attributes["title"]?.text == title)
            #expect(card.attributes["card_icon"]?.text == "bell")
            guard case .object(let members) = card.attributes else { Issue.record("attributes: \(card.attributes.serialized)"); continue }
            let names = Set(members.map(\.0))
            #expect(names.isDisjoint(with: Self.homeAssistantBlockedAttributes), "\(names)")
        }
    }

    @Test func e5_aBridgeStartedBeforeItsBrokerSaysSoOnceAndConnectsWhenItComes() throws {
        let scratch = Scratch()
        let daemon = try DaemonProcess(scratch: Scratch())
        let port = try LoopbackPort.unused()
        let placeholder = try Broker(scratch: Scratch())
        let bridge = try MQTTBridgeProcess(broker: placeholder, socket: daemon.socket, scratch: scratch, port: port, waitUntilOnline: false)
        try eventually("the first warning") { bridge.log.contains("cannot reach the broker") }
        // Backoff from a quarter second: several attempts, one warning for all of them.
        try eventually("three attempts", timeout: 20) { bridge.log.components(separatedBy: "cannot reach the broker").count - 1 >= 3 }
        #expect(bridge.log.components(separatedBy: "warning nook-mqtt").count - 1 == 1, "\(bridge.log)")
        let broker = try Broker(scratch: scratch, port: port)
        try eventually("subscribed once the broker listens", timeout: 20) { bridge.log.contains("subscribed to") }
        try broker.publish("nook/b1/activity", "Late broker")
        try eventually("the card") { try daemon.activities().flatMap { $0.pending + ($0.current.map { [$0] } ?? []) }.map(\.title) == ["Late broker"] }
    }

    @Test func e4_aFleetOfThreeBoardsOnOneBroker() throws {
        let scratch = Scratch()
        let broker = try Broker(scratch: scratch)
        var boards: [(DaemonProcess, MQTTBridgeProcess)] = []
        for name in ["b1", "b2", "b3"] {
            let daemonScratch = Scratch()
            let daemon = try DaemonProcess(scratch: daemonScratch)
            try daemon.request(.suspend(module: nil))
            boards.append((daemon, try MQTTBridgeProcess(broker: broker, socket: daemon.socket, scratch: scratch, device: name)))
        }
        try broker.publish("nook/all/activity", "Everyone")
        try broker.publish("nook/b2/activity", "Only b2")
        // A marker to every board, published after the rest: the broker hands each bridge its
        // messages in order, so once a board has the marker it has whatever came before it.
        try broker.publish("nook/all/activity", "Marker")
        func titles(_ daemon: DaemonProcess) throws -> [String] { try daemon.activities().flatMap(\.pending).map(\.title) }
        try eventually("every board has the marker") { try boards.allSatisfy { try titles($0.0).last == "Marker" } }
        #expect(try titles(boards[0].0) == ["Everyone", "Marker"])
        #expect(try titles(boards[1].0) == ["Everyone", "Only b2", "Marker"])
        #expect(try titles(boards[2].0) == ["Everyone", "Marker"])
    }
}
