import NookActivities
import NookProtocol
import NookSound

/// Home Assistant's MQTT siren (B4): what its `siren.turn_on` and `siren.turn_off` publish on
/// the siren topic, read as the sound nookd plays or the stop. The discovered entity has no
/// `command_template`, so Home Assistant sends JSON with the service's parameters that were
/// given, `{"state": "ON", "tone": "doorbell", "volume_level": 0.5}`, and `{"state": "OFF"}`;
/// `ON` and `OFF` alone (a sender's own `mosquitto_pub`) are read too. Its state is the retained
/// `state` topic's `sound`: on while a sound plays, whoever's it is.
public enum HomeAssistantSiren {
    public enum Command: Equatable, Sendable {
        case play(SoundRequest)
        case stop
    }

    /// The tone played when `turn_on` names none: the chime named for a siren.
    public static let defaultTone = "siren"
    /// The tones the entity offers Home Assistant: the chimes themselves, not the names that
    /// play one of them (docs/sound.md); any name or RTTTL string nookd plays is taken.
    public static var tones: [String] { Chimes.chimeNames }
    /// The priority a siren's sound plays at, as the room reads it: what an AWTRIX sound gets.
    public static let priority = AWTRIXDevice.soundPriority

    /// The command in `payload` and what of it is not done as sent (a duration, fields the
    /// siren has none of), for the error topic's warnings. A payload that cannot be read is
    /// refused naming its field.
    public static func read(_ payload: [UInt8]) throws(ProtocolError) -> (command: Command, remarks: [String]) {
        let (state, value, members): (String, JSONValue, [(String, JSONValue)])
        switch try HomeAssistantCommand.read(payload, expected: "ON, OFF or Home Assistant's {\"state\": \"ON\", …}", states: "\"ON\" or \"OFF\"") {
        case .word(let word): return (try command(state: word, field: "payload"), [])
        case .object(let given, let object, let givenMembers): (state, value, members) = (given, object, givenMembers)
        }
        var remarks: [String] = []
        let unknown = members.map(\.0).filter { !["state", "tone", "volume_level", "duration"].contains($0) }
        if !unknown.isEmpty { remarks.append("not a siren's, ignored: \(unknown.map { SaidText.shown($0) }.joined(separator: ", "))") }
        guard case .play(var request) = try command(state: state, field: "state") else {
            let given = members.map(\.0).filter { $0 != "state" }
            return (.stop, given.isEmpty ? [] : ["OFF stops the sound playing; ignored: \(given.map { SaidText.shown($0) }.joined(separator: ", "))"])
        }
        switch value["tone"] {
        case nil, .null?: break
        case .string(let tone)?:
            let name = tone.trimmingWhitespace()
            guard !name.isEmpty else { throw ProtocolError(.invalid, field: "tone", "is empty: name a chime, or leave it out for \(defaultTone)") }
            request.sound = String(name)
        case let other?: throw ProtocolError(.wrongType, field: "tone", "must be a chime's name or an RTTTL string, got \(other.typeName)")
        }
        switch value["volume_level"] {
        case nil, .null?: break
        // A level above 0 is a sound, however soft: at least 1, never the 0 nookd takes as
        // silence asked for.
        case .number(let level)? where (0...1).contains(level): request.volume = level > 0 ? max(1, Int((level * 100).rounded())) : 0
        case .number(let level)?: throw ProtocolError(.invalid, field: "volume_level", "must be from 0 to 1, got \(SaidText.shown(String(level)))")
        case let other?: throw ProtocolError(.wrongType, field: "volume_level", "must be a number from 0 to 1, got \(other.typeName)")
        }
        if let duration = value["duration"], duration != .null {
            remarks.append("duration: not kept: a chime or melody plays its own length (turn_off stops it sooner)")
        }
        return (.play(request), remarks)
    }

    private static func command(state: String, field: String) throws(ProtocolError) -> Command {
        switch state.uppercased() {
        case "ON": .play(SoundRequest(sound: defaultTone, priority: priority))
        case "OFF": .stop
        default: throw ProtocolError(.invalid, field: field, "must be ON or OFF, got '\(SaidText.shown(state))'")
        }
    }
}
