/// The inputs a press of which nookd reports on `inputs` (and `press` simulates): a bridge
/// maps them onto its own clients' keys (E8: LCDproc's `key Enter`).
public enum NookInputName: String, Hashable, Sendable, CaseIterable {
    /// The open button (a GPIO line of role `open`, toggle mode).
    case open
    /// The dismiss button (a GPIO line of role `dismiss`).
    case dismiss
}

/// One press in an `inputs` stream: `{"event":"input","input":"open","source":"gpio:button"}`.
/// `source` names the input as `nookctl status` does (`gpio:NAME`, or `press` for the `press`
/// operation), so a bridge can tell two buttons of one role apart.
public struct InputMessage: Sendable, Equatable {
    public var input: NookInputName
    public var source: String
    /// The press acted on the glass (invoked the card's action, E3, or moved a recall on, U5):
    /// a watcher that maps presses to actions of its own (E8's keys) leaves it alone, so one
    /// press never does two things.
    public var taken: Bool

    public init(input: NookInputName, source: String, taken: Bool = false) { (self.input, self.source, self.taken) = (input, source, taken) }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("event", .string("input")), ("input", .string(input.rawValue)), ("source", .string(source))]
        if taken { members.append(("taken", .bool(true))) }
        return .object(members)
    }

    /// Nil for a line that is not an input event; an input event naming an input this build
    /// does not know is nil too (a newer nookd may report more).
    public init?(json: JSONValue) {
        guard let reader = try? FieldReader(json, path: "event"), (try? reader.string("event")) == "input",
              let name = try? reader.requiredString("input"), let input = NookInputName(rawValue: name),
              let source = try? reader.requiredString("source") else { return nil }
        (self.input, self.source) = (input, source)
        taken = (try? reader.bool("taken")) == true
    }
}

/// `inputs`: the stream is on; ``InputMessage`` events follow.
public struct InputsAnswer: NookAnswer {
    public init() {}
    public var json: JSONValue { .object([("inputs", .bool(true))]) }
    public init(json: JSONValue) throws(ProtocolError) {
        guard try FieldReader(json, path: "result").bool("inputs") == true else {
            throw ProtocolError(.missingField, field: "result.inputs", "is required")
        }
    }
}

/// `press`: the input that was pressed.
public struct PressAnswer: NookAnswer {
    public var pressed: NookInputName
    public init(pressed: NookInputName) { self.pressed = pressed }
    public var json: JSONValue { .object([("pressed", .string(pressed.rawValue))]) }
    public init(json: JSONValue) throws(ProtocolError) {
        let name = try FieldReader(json, path: "result").requiredString("pressed")
        guard let input = NookInputName(rawValue: name) else {
            throw ProtocolError(.invalid, field: "result.pressed", "is not an input: '\(name)'")
        }
        pressed = input
    }
}
