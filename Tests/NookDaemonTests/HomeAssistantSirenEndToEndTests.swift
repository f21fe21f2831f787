import Foundation
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// B4's Home Assistant siren through Debian's mosquitto, nook-mqtt and nookd playing on a beeper
/// FIFO (real time, so a note still sounds when the test looks): the payloads Home Assistant
/// publishes turn a sound on and off, the retained state's `sound` (the siren's state) follows the
/// output, and what was not played or not done as sent is said on the error topic.
@Suite("B4 Home Assistant's siren end to end", .serialized, .ownThreads)
struct HomeAssistantSirenEndToEndTests {
    /// The retained state's `sound`, as the siren's `state_value_template` reads it.
    func sound(_ subscriber: Subscriber) -> String? { subscriber.json("nook/b1/state").last?["sound"]?.text }

    func said(_ subscriber: Subscriber, _ code: String) -> [String] {
        subscriber.json("nook/b1/error").filter { $0["topic"]?.text == "nook/b1/siren" && $0["code"]?.text == code }.compactMap { $0["message"]?.text }
    }

    @Test func b4_e7_theSirensPayloadsPlayAndStopASoundAndTheStateFollowsTheOutput() throws {
        let beeper = try BeeperFIFO(in: Scratch())
        let setup = try AWTRIXMQTTTests.Setup(nookdConfig: "[sound]\noutput = \"beeper\"\ndevice = \"\(beeper.path)\"\n")
        let subscriber = try Subscriber(broker: setup.broker, topics: ["nook/b1/state", "nook/b1/error"])
        try eventually("the output found, and the state says it is idle") { sound(subscriber) == "idle" }

        // A minute-long note (a sender's own RTTTL: Home Assistant sends one of the tones offered).
        try setup.broker.publish("nook/b1/siren", #"{"state": "ON", "tone": "long:d=1,o=5,b=4:c", "volume_level": 0.4}"#)
        #expect(try beeper.tones { $0.contains(523) }.last == 523)
        try eventually("the siren's state on") { sound(subscriber) == "playing" }
        try eventually("the bridge's log") { setup.bridge.log.contains("nook/b1/siren: done (the board is as asked): sound 'long': played") }
        // A beeper sounds or not: the volume asked is said not kept.
        try eventually("the volume's warning") { said(subscriber, "warning").contains { $0.contains("has no volume") } }

        try setup.broker.publish("nook/b1/siren", #"{"state": "OFF"}"#)
        #expect(try beeper.tones { $0.contains(0) } == [0], "silenced at once, not after the minute")
        try eventually("the siren's state off") { sound(subscriber) == "idle" }
        try eventually("the stop logged") { setup.bridge.log.contains("nook/b1/siren: done (the board is as asked): stopped 'long'") }

        // Plain ON: the siren chime, which ends by itself (1.75 s), and the state with it: on, then off.
        let published = subscriber.payloads("nook/b1/state").count
        try setup.broker.publish("nook/b1/siren", "ON")
        #expect(try beeper.tones { $0.contains(0) }.first == 1047, "the siren chime starts on C6")
        try eventually("the siren chime played") { setup.bridge.log.contains("sound 'siren': played") }
        try eventually("the state on, then off after the chime's end") {
            subscriber.payloads("nook/b1/state").count >= published + 2 && sound(subscriber) == "idle"
        }

        // A sound over before the bridge reads status again (it reads at most every 50 ms; here it
        // is stopped while an 8 ms tick plays, as a loaded board's may be): on, then off, still.
        let sent = subscriber.payloads("nook/b1/state").count
        let socket = setup.daemon.socket
        func plays() throws -> Int? {
            try nookctl(["status"], socket: socket).output.firstMatch(of: /(\d+) played/).flatMap { Int($0.1) }
        }
        let before = try plays() ?? 0
        kill(setup.bridge.process.processIdentifier, SIGSTOP)
        let tick = try nookctl(["sound", "play", "tick:d=32,o=7,b=900:c"], socket: socket)
        try eventually("the tick played (\(tick))") { try plays() == before + 1 && nookctl(["status"], socket: socket).output.contains(", idle") }
        kill(setup.bridge.process.processIdentifier, SIGCONT)
        try eventually("the state on, then off after the tick") {
            subscriber.json("nook/b1/state").dropFirst(sent).compactMap { $0["sound"]?.text } == ["playing", "idle"]
        }

        // Refused, naming the field; a retained command is not carried out.
        try setup.broker.publish("nook/b1/siren", #"{"state": "ON", "volume_level": 2}"#)
        try setup.broker.publish("nook/b1/siren", #"{"state": "ON", "tone": "gong"}"#)
        try setup.broker.publish("nook/b1/siren", "ON", retain: true)
        try eventually("three refusals") {
            let fields = subscriber.json("nook/b1/error").filter { $0["topic"]?.text == "nook/b1/siren" }.compactMap { $0["field"]?.text }
            return fields.contains("volume_level") && fields.contains("tone") && fields.contains("retain")
        }
        try setup.broker.publish("nook/b1/siren", "", retain: true)

        // Quiet hours silence it, and the sender is told.
        #expect(try nookctl(["quiet", "on"], socket: setup.daemon.socket).status == 0)
        try setup.broker.publish("nook/b1/siren", #"{"state": "ON", "tone": "doorbell"}"#)
        try eventually("not played, said") { said(subscriber, "notDone").contains("not done: not played: silenced (quiet hours)") }
        #expect(try nookctl(["status"], socket: setup.daemon.socket).output.contains("1 silenced by the room"))
    }

    /// The siren's `state_value_template` rendered with Jinja2 (the engine of Home Assistant's
    /// templates) against the state the bridge published: `ON` while a sound plays, `OFF` after.
    @Test(.enabled(if: MQTTTools.path("python3") != nil && (try? MQTTTools.run(["python3", "-c", "import jinja2"]).status) == 0,
                   "needs python3-jinja2: run Hardware/dev/install-deps"))
    func e7_b4_theSirensStateTemplateIsONWhileASoundPlaysAndOFFOnceItEnds() throws {
        let beeper = try BeeperFIFO(in: Scratch())
        let setup = try AWTRIXMQTTTests.Setup(nookdConfig: "[sound]\noutput = \"beeper\"\ndevice = \"\(beeper.path)\"\n")
        var found: JSONValue?
        try eventually("the siren's config") {
            found = try setup.broker.retained("homeassistant/siren/nook_b1/siren/config").values.first.flatMap { try? JSONValue.parse(Array($0.utf8)) }
            return found != nil
        }
        let template = try #require(found?["state_value_template"]?.text)
        func rendered() throws -> String? {
            guard let state = try setup.broker.retained("nook/b1/state")["nook/b1/state"] else { return nil }
            let script = "import json, sys, jinja2.sandbox\nenv = jinja2.sandbox.ImmutableSandboxedEnvironment()\n"
                + "print(env.from_string(sys.argv[1]).render(value=sys.argv[2], value_json=json.loads(sys.argv[2])))"
            let result = try MQTTTools.run(["python3", "-c", script, template, state])
            guard result.status == 0 else { throw DaemonFailure("rendering the siren's template failed: \(result.error)") }
            return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        try eventually("OFF while idle") { try rendered() == "OFF" && sound(setup) == "idle" }
        try setup.broker.publish("nook/b1/siren", #"{"state": "ON", "tone": "long:d=1,o=5,b=4:c"}"#)
        #expect(try beeper.tones { $0.contains(523) }.last == 523)
        try eventually("ON while the note sounds") { try rendered() == "ON" }
        try setup.broker.publish("nook/b1/siren", "OFF")
        try eventually("OFF once stopped") { try rendered() == "OFF" }
    }

    /// A siren command nookd carried out but the bridge never acknowledged (it was killed while
    /// it waited for nookd's answer) comes again from the broker to the next bridge: its play's id
    /// (derived from the packet id, as a card's) makes nookd carry it out once, and the bridge
    /// acknowledges it, saying so.
    @Test func b4_aSirenCommandRedeliveredAfterTheBridgeDiedPlaysOnce() throws {
        let beeper = try BeeperFIFO(in: Scratch())
        var setup = try AWTRIXMQTTTests.Setup(nookdConfig: "[sound]\noutput = \"beeper\"\ndevice = \"\(beeper.path)\"\n")
        let socket = setup.daemon.socket
        func plays() throws -> Int? {
            try nookctl(["status"], socket: socket).output.firstMatch(of: /(\d+) played/).flatMap { Int($0.1) }
        }
        try eventually("the output found") { try nookctl(["status"], socket: socket).output.contains("beeper on") }
        ProcessStop.stop(setup.daemon.process.processIdentifier)
        try setup.broker.publish("nook/b1/siren", #"{"state": "ON", "tone": "doorbell"}"#)
        try eventually("the bridge asking nookd") { setup.bridge.log.contains("nook/b1/siren: asking nookd to play doorbell (playID ") }
        // The request is in nookd's socket, unread: nookd has it, whatever becomes of the bridge.
        try eventually("the request waiting in nookd's socket") { try UnreadBytes.accepted(on: socket) > 0 }
        setup.bridge.crash()
        kill(setup.daemon.process.processIdentifier, SIGCONT)
        try eventually("the doorbell played once") { try plays() == 1 }

        // Its own folder (the first's log stays), kept while it runs.
        let second = Scratch()
        setup.bridge = try MQTTBridgeProcess(broker: setup.broker, socket: socket, scratch: second)
        let bridge = setup.bridge
        try saying(bridge.log) {
            try eventually("the redelivery acknowledged, not played") {
                bridge.log.contains("nook/b1/siren: message ") && bridge.log.contains("sent again after a lost acknowledgement was carried out before; acknowledged, not played again")
            }
        }
        #expect(try plays() == 1, "played once")
        #expect(setup.daemon.log.contains("not played: its playID"), "nookd said why")
        withExtendedLifetime(second) {}
    }

    /// The retained state's `sound`.
    func sound(_ setup: AWTRIXMQTTTests.Setup) throws -> String? {
        try setup.broker.retained("nook/b1/state")["nook/b1/state"].flatMap { try? JSONValue.parse(Array($0.utf8)) }?["sound"]?.text
    }

    /// MQTT 3.1.1 delivers a message published with the retain flag without it: the empty
    /// retained message the bridge's own refusal asks for, to clear a retained command, arrives
    /// as an empty one, and is taken as that clearing (as on the activity topic), not refused.
    @Test func b4_onMQTT311TheEmptyMessageThatClearsARetainedCommandIsNotRefused() throws {
        let setup = try AWTRIXMQTTTests.Setup(extraConfig: "protocol = \"3.1.1\"\n")
        let subscriber = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        try setup.broker.publish("nook/b1/siren", "", retain: true)
        // Refused after it, so the bridge has read the empty one when this is said.
        try setup.broker.publish("nook/b1/siren", "maybe")
        let refused = { subscriber.json("nook/b1/error").filter { $0["topic"]?.text == "nook/b1/siren" } }
        try eventually("the refusal of the payload sent after it") { refused().contains { $0["payload"]?.text == "maybe" } }
        #expect(refused().count == 1, "only 'maybe' is refused: \(refused())")
    }
}
