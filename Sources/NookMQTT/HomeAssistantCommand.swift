import NookActivities
import NookProtocol

/// What Home Assistant's MQTT entities without a `command_template` (the siren) or with one that
/// writes JSON (the light) publish, and what a sender's own `mosquitto_pub` sends instead: a
/// word alone (`ON`, `OFF`), or a JSON object with a string `state` and the service's parameters.
enum HomeAssistantCommand {
    case word(String)
    case object(state: String, value: JSONValue, members: [(String, JSONValue)])

    /// `payload` read, or refused naming its field: `expected` is what a sender should send
    /// instead, `states` the words `state` takes.
    static func read(_ payload: [UInt8], expected: String, states: String) throws(ProtocolError) -> HomeAssistantCommand {
        guard let text = String(validating: payload, as: UTF8.self) else {
            throw ProtocolError(.invalid, field: "payload", "is not UTF-8 text: send \(expected)")
        }
        let trimmed = text.trimmingWhitespace()
        guard trimmed.first == "{" else { return .word(String(trimmed)) }
        let value: JSONValue
        do { value = try JSONValue.parse(Array(trimmed.utf8)) } catch {
            throw ProtocolError(.badJSON, field: "payload", "starts with '{' but is not valid JSON \(error)")
        }
        guard case .object(let members) = value else { throw ProtocolError(.wrongType, field: "payload", "must be a JSON object") }
        guard case .string(let state)? = value["state"] else {
            throw ProtocolError(value["state"] == nil ? .missingField : .wrongType, field: "state", "must be \(states)")
        }
        return .object(state: state, value: value, members: members)
    }
}
