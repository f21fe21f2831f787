import Foundation
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// B4, M1 and E7 with Home Assistant itself: a Home Assistant core from PyPI (in Debian 13's Python,
/// ``DebianPython``) adds its `mqtt` integration by its config flow, finds the board through
/// Debian's mosquitto by nook-mqtt's discovery, and drives its siren and its light with its own
/// service calls. Home Assistant's events say what the entities showed (its script,
/// `mqtt_clients.py`); nookd, its beeper and nook-mqtt's log say what the board did.
@Suite(.serialized, .ownThreads, .enabled(if: MQTTTools.available, MQTTTools.skipReason))
struct HomeAssistantMQTTTests {
    static let ready = DebianPython.has("paho.mqtt")
    static let missing = DebianPython.missing("paho-mqtt and homeassistant")

    /// One Home Assistant start (most of the test's time) for the siren and the light.
    @Test(.enabled(if: ready, .init(rawValue: missing)), .oncePerTestRun("a Home Assistant start is most of its time"))
    func b4_m1_e7_homeAssistantsMQTTIntegrationFindsTheBoardAndItsSirenAndLightDriveIt() throws {
        let beeper = try BeeperFIFO(in: Scratch())
        let setup = try AWTRIXMQTTTests.Setup(nookdConfig: "[sound]\noutput = \"beeper\"\ndevice = \"\(beeper.path)\"\n")
        let config = setup.scratch.path + "/hass"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        let run = try DebianPython.run("mqtt_clients.py", ["127.0.0.1", String(setup.broker.port), config], folder: setup.scratch.path)
        let log = (try? String(contentsOfFile: config + "/hass.out", encoding: .utf8)) ?? ""
        #expect(run.status == 0 && run.transcript.hasSuffix("DONE\n"), "\(run.transcript)\nHome Assistant's log:\n\(log.suffix(6000))")

        // What the board did: the alarm began (on the beeper) and was stopped, the doorbell played
        // through, and the display went off and on again.
        #expect(try beeper.tones { !$0.isEmpty }.contains { $0 > 0 }, "the beeper sounded")
        let bridge = setup.bridge.log
        #expect(bridge.contains("nook/b1/siren: done (the board is as asked): sound 'alarm': played"), "\(bridge.suffix(3000))")
        #expect(bridge.contains("nook/b1/siren: done (the board is as asked): stopped 'alarm'"))
        #expect(bridge.contains("nook/b1/siren: done (the board is as asked): sound 'doorbell': played"))
        #expect(bridge.contains("nook/b1/display: done (the board is as asked): display: off"), "\(bridge.suffix(3000))")
        let status = try StatusAnswer(json: setup.daemon.request(.status))
        #expect(status.sound?.played == 2 && status.display.on == true, "\(String(describing: status.sound)) \(status.display)")
    }
}
