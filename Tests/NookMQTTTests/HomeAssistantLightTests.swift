import NookMQTT
import NookProtocol
import Testing

/// M1: what Home Assistant's MQTT light for the display publishes, read as nookd's `display`.
@Suite("M1 Home Assistant's light payloads")
struct HomeAssistantLightTests {
    func read(_ payload: String) throws -> (setting: DisplaySetting, remarks: [String]) {
        try HomeAssistantLight.read(Array(payload.utf8))
    }

    @Test func m1_theLightsPayloadsAreTheDisplaysSwitchAndBrightness() throws {
        #expect(try read(#"{"state": "on"}"#).setting == DisplaySetting(power: .on))
        #expect(try read(#"{"state": "off"}"#).setting == DisplaySetting(power: .off))
        #expect(try read("ON").setting == DisplaySetting(power: .on) && read(" off\n").setting == DisplaySetting(power: .off))
        #expect(try read(#"{"state": "on", "brightness": 255}"#).setting == DisplaySetting(power: .on, brightness: .percent(100)))
        #expect(try read(#"{"state": "on", "brightness": 128}"#).setting.brightness == .percent(50))
        #expect(try read(#"{"state": "on", "brightness": 1}"#).setting.brightness == .percent(1), "a level above 0 is never dark")
        #expect(try read(#"{"state": "on", "brightness": 0}"#).setting.brightness == .percent(0))
        let off = try read(#"{"state": "off", "brightness": 40}"#)
        #expect(off.setting == DisplaySetting(power: .off) && off.remarks == ["off switches the display off; the brightness given with it is not set"])
        #expect(try read(#"{"state": "on", "transition": 2, "effect": "x"}"#).remarks == ["not the display's, ignored: transition, effect"])
        for (bad, field) in [(#"{"state": "on", "brightness": 256}"#, "brightness"), (#"{"state": "on", "brightness": "128"}"#, "brightness"),
                             (#"{"brightness": 12}"#, "state"), (#"{"state": 1}"#, "state"), (#"{"state": "dim"}"#, "state"),
                             ("maybe", "payload"), (#"{"state": "on""#, "payload"), ("[1]", "payload")] {
            do {
                let read = try read(bad)
                Issue.record("\(bad) was read as \(read)")
            } catch {
                #expect((error as? ProtocolError)?.field == field, "\(bad): \(error)")
            }
        }
    }
}
