import NookActivities
import NookProtocol

/// Home Assistant's MQTT light for the display (M1): what `light.turn_on` and `light.turn_off`
/// publish on the display topic, read as nookd's `display` request. The discovered entity's
/// templates send `{"state": "on", "brightness": 0–255}` (the brightness only when one was
/// given) and `{"state": "off"}`; `ON` and `OFF` alone (a sender's own `mosquitto_pub`) are
/// read too. Its state is the retained `state` topic's `display`.
public enum HomeAssistantLight {
    /// The request in `payload` and what of it is not done as sent (fields a light has that the
    /// display has none of: a colour, an effect, a transition), for the error topic's warnings.
    /// A payload that cannot be read is refused naming its field.
    public static func read(_ payload: [UInt8]) throws(ProtocolError) -> (setting: DisplaySetting, remarks: [String]) {
        let (state, value, members): (String, JSONValue, [(String, JSONValue)])
        switch try HomeAssistantCommand.read(payload, expected: "ON, OFF or {\"state\": \"on\", \"brightness\": 0–255}", states: "\"on\" or \"off\"") {
        case .word(let word): return (DisplaySetting(power: try power(word, field: "payload")), [])
        case .object(let given, let object, let givenMembers): (state, value, members) = (given, object, givenMembers)
        }
        var setting = DisplaySetting(power: try power(state, field: "state"))
        switch value["brightness"] {
        case nil, .null?: break
        case .number(let level)? where level >= 0 && level <= 255:
            // Home Assistant's 0–255 as a percentage; a level above 0 is never rounded to dark.
            let percent = Int((level * 100 / 255).rounded())
            setting.brightness = .percent(level > 0 ? max(1, percent) : 0)
        case let other?: throw ProtocolError(.invalid, field: "brightness", "must be a number from 0 to 255, got \(other.serialized.prefix(40))")
        }
        var remarks: [String] = []
        if setting.power == .off, setting.brightness != nil {
            setting.brightness = nil
            remarks.append("off switches the display off; the brightness given with it is not set")
        }
        let unknown = members.map(\.0).filter { !["state", "brightness"].contains($0) }
        if !unknown.isEmpty { remarks.append("not the display's, ignored: \(unknown.map { SaidText.shown($0) }.joined(separator: ", "))") }
        return (setting, remarks)
    }

    static func power(_ state: String, field: String) throws(ProtocolError) -> DisplaySetting.Power {
        switch state.lowercased() {
        case "on": return .on
        case "off": return .off
        default: throw ProtocolError(.invalid, field: field, "must be on or off, got \(SaidText.shown(state))")
        }
    }

    /// The light's state, for the retained `state` topic: `on` while switched on, and the
    /// brightness on Home Assistant's 0–255 (the one set, else the level on the glass); 255
    /// where nookd leaves the brightness alone.
    static func state(_ status: StatusAnswer) -> JSONValue {
        .object([("on", .bool(status.display.on != false)), ("brightness", .number(Double(AWTRIXDevice.brightness(status))))])
    }
}
