import NookActivities

/// Version 1 of the socket protocol (C1): newline-delimited JSON over a Unix stream socket.
public enum NookProtocol {
    public static let version = 1
    /// Longest request line accepted, newline excluded.
    public static let maximumLineBytes = 64 * 1024
    /// Largest `list` or `history` answer nookd sends in one line: past it the answer is one
    /// page and says where the next starts (`next`), which nookctl asks for in turn. Well under
    /// the 4 MiB a client may leave unread, so a large board never drops its own readers.
    public static let answerPageBytes = 1 << 20
    /// Longest `frame` waits for a newer frame before it answers with the one on the glass.
    public static let frameWaitSeconds = 25
}

/// The request id a client chose, echoed in every line answering it: a string or a number.
public enum RequestID: Hashable, Sendable, CustomStringConvertible {
    case number(Double)
    case string(String)

    var json: JSONValue {
        switch self {
        case .number(let number): .number(number)
        case .string(let text): .string(text)
        }
    }

    public var description: String { json.serialized }
}

/// What `quiet` asks for (Z1).
public enum QuietSetting: Hashable, Sendable {
    case on, off, status
    /// Quiet until this time: `HH:MM` (its next occurrence in the board's time zone) or a
    /// duration from now such as `45m` or `2h`; nookd reads it, as it knows the zone.
    case until(String)
}

/// Which activities an `update` changes: one by id, or every one not ended with a coalescing
/// key (the one on screen and the pending one; in one module, or in all).
public enum UpdateTarget: Hashable, Sendable {
    case id(NookActivityID)
    case key(String, module: String?)
}

/// The home content a client sets (R4).
public enum HomeSetting: Hashable, Sendable {
    case clock, blank, text(String)
    /// The mood light (M1): the glass one colour (`0xRRGGBB`) while no card is on it, the apps'
    /// rotation waiting, never blanked for idleness; the home content it covers comes back with
    /// ``lightOff``.
    case light(UInt32)
    /// The mood light off: the home content it covered back (nothing changes without one).
    case lightOff

    /// A status text is a line or two on the glass, bounded as a card's title is.
    public static let textLimit = NookActivity.Limits.title
}

/// One decoded request line.
public struct Request: Hashable, Sendable {
    public var id: RequestID?
    public var operation: NookOperation
    /// When the client stops waiting for the answer, in seconds of the machine's monotonic
    /// clock (`CLOCK_MONOTONIC`, which nookd and its local clients share): nookd refuses a
    /// request it gets to later, instead of carrying out what the client has already reported
    /// as failed (nook-notify's answer to a sender while nookd was stopped).
    public var deadline: Double?
    /// The name a client that relays others' messages (nook-http's token names) states it acts
    /// for, on `update`, `cancel`, `cancel-all`, `dismiss` and `invoke` (U3): the request then
    /// reaches only the cards its connection's uid sent under that name, whatever the uid's own
    /// standing. An `enqueue` states it as the activity's sender name (`activity.sender.name`),
    /// not here; ``statedSender`` reads either.
    public var sender: String?

    public init(id: RequestID?, operation: NookOperation, deadline: Double? = nil, sender: String? = nil) {
        self.id = id
        self.operation = operation
        self.deadline = deadline
        self.sender = sender
    }

    /// Whom the client states it acts for: an enqueue's activity sender name, else ``sender``.
    public var statedSender: String? {
        if case .enqueue(let activity, _, _, _) = operation { return activity.sender?.name ?? sender }
        return sender
    }

    /// Decodes one line (without its newline). On failure the error carries whatever request id
    /// could still be read, so the answer can echo it.
    public static func decode(_ line: some Collection<UInt8>) -> Result<Request, RequestFailure> {
        let value: JSONValue
        do {
            value = try JSONValue.parse(line)
        } catch {
            return .failure(RequestFailure(id: nil, error: ProtocolError(.badJSON, "not valid JSON \(error)")))
        }
        var id: RequestID?
        switch value["id"] {
        case .number(let number)?: id = .number(number)
        case .string(let text)?: id = .string(text)
        default: break
        }
        do throws(ProtocolError) {
            var deadline: Double?
            switch value["deadline"] {
            case nil: break
            case .number(let seconds)? where seconds.isFinite: deadline = seconds
            case let other?: throw ProtocolError(.wrongType, field: "deadline", "must be a number of seconds on the monotonic clock, got \(other.typeName)")
            }
            let (operation, sender) = try decodeOperation(value)
            return .success(Request(id: id, operation: operation, deadline: deadline, sender: sender))
        } catch {
            return .failure(RequestFailure(id: id, error: error))
        }
    }

    /// The fields every request may carry; built once, not per request.
    private static let commonFields: Set<String> = ["v", "id", "op", "deadline"]

    /// The operation and, for one that takes it besides `enqueue` (whose activity carries it),
    /// the stated `sender`.
    private static func decodeOperation(_ value: JSONValue) throws(ProtocolError) -> (NookOperation, String?) {
        let reader = try FieldReader(value, path: "")
        if let version = reader.value("v") {
            guard case .number(let number) = version else { throw ProtocolError(.wrongType, field: "v", "must be a number, got \(version.typeName)") }
            guard number == Double(NookProtocol.version) else {
                throw ProtocolError(.unsupportedVersion, field: "v", "this nookd speaks version \(NookProtocol.version), not \(number)")
            }
        }
        if let id = reader.value("id") {
            switch id {
            case .number, .string: break
            default: throw ProtocolError(.wrongType, field: "id", "must be a string or a number, got \(id.typeName)")
            }
        }
        let op = try reader.requiredString("op")
        guard let name = NookOperation.Name(rawValue: op) else {
            throw ProtocolError(.unknownOperation, field: "op", "'\(op)' is not an operation; known: \(NookOperation.names.joined(separator: ", "))")
        }
        let entry = name.entry
        try reader.rejectUnknown(commonFields, also: entry.fields)
        let operation = try entry.decode(reader)
        guard name != .enqueue, entry.fields.contains("sender") else { return (operation, nil) }
        return (operation, try reader.senderName())
    }

    /// The request as a JSON line (what nookctl sends).
    public func encoded() -> String {
        var members: [(String, JSONValue)] = [("v", .number(Double(NookProtocol.version)))]
        if let id { members.append(("id", id.json)) }
        if let deadline { members.append(("deadline", .number(deadline))) }
        let (name, fields) = operation.wire
        members.append(("op", .string(name.rawValue)))
        members += fields
        // Written whatever the operation: one that does not take it is refused naming it,
        // rather than carried out on more cards than the client meant.
        if let sender, !fields.contains(where: { $0.0 == "sender" }) { members.append(("sender", .string(sender))) }
        return JSONValue.object(members).serialized
    }
}

/// A request that could not be decoded: the error, and the request id if it was readable.
public struct RequestFailure: Error, Hashable, Sendable {
    public var id: RequestID?
    public var error: ProtocolError
}

/// One line from nookd: the answer to a request, or an event streamed for it.
public enum ResponseLine: Sendable {
    case success(id: RequestID?, result: JSONValue)
    case failure(id: RequestID?, error: ProtocolError)
    case event(id: RequestID?, event: JSONValue)

    public func encoded() -> String {
        var members: [(String, JSONValue)] = [("v", .number(Double(NookProtocol.version)))]
        switch self {
        case .success(let id, let result):
            if let id { members.append(("id", id.json)) }
            members.append(("ok", .bool(true)))
            members.append(("result", result))
        case .failure(let id, let error):
            if let id { members.append(("id", id.json)) }
            members.append(("ok", .bool(false)))
            members.append(("error", error.json))
        case .event(let id, let event):
            if let id { members.append(("id", id.json)) }
            members.append(("event", event))
        }
        return JSONValue.object(members).serialized
    }

    /// Reads a line nookd sent.
    public static func decode(_ line: some Collection<UInt8>) throws(ProtocolError) -> ResponseLine {
        let value: JSONValue
        do { value = try JSONValue.parse(line) } catch { throw ProtocolError(.badJSON, "nookd sent a line that is not JSON \(error)") }
        var id: RequestID?
        switch value["id"] {
        case .number(let number)?: id = .number(number)
        case .string(let text)?: id = .string(text)
        default: break
        }
        if let event = value["event"] { return .event(id: id, event: event) }
        if case .bool(true)? = value["ok"] { return .success(id: id, result: value["result"] ?? .null) }
        if let error = value["error"].flatMap(ProtocolError.init(json:)) { return .failure(id: id, error: error) }
        throw ProtocolError(.badJSON, "nookd sent a line that is neither an answer nor an event")
    }
}

/// nookd's last line on a connection when it stops (C1, N2): an `unavailable` error without an
/// id, as every line that says nookd carries out nothing more of the connection is, naming in
/// `started_through` the last request of the connection it began to carry out (absent when it
/// began none). A request after that one was not carried out; an earlier one still unanswered
/// was begun and its outcome is unknown. Requests without an id are not named.
public enum StoppingLine {
    public static let startedThroughKey = "started_through"

    /// The line (without its newline).
    public static func encoded(_ error: ProtocolError, startedThrough: RequestID?) -> String {
        var members: [(String, JSONValue)] = [("v", .number(Double(NookProtocol.version))), ("ok", .bool(false)), ("error", error.json)]
        if let startedThrough { members.append((startedThroughKey, startedThrough.json)) }
        return JSONValue.object(members).serialized
    }

    /// The `started_through` of a line nookd sent, if it names one.
    public static func startedThrough(in line: JSONValue) -> RequestID? {
        switch line[startedThroughKey] {
        case .number(let number)?: .number(number)
        case .string(let text)?: .string(text)
        default: nil
        }
    }
}

/// A lifecycle event (Q13) as `watch` streams it and `enqueue --wait` ends on: what nookd
/// encodes from a ``NookActivityEvent`` and what clients decode.
public struct EventMessage: Sendable, Equatable {
    /// How an activity ended, for a final event: the end of its time on screen (`hidden`) or
    /// why it was never shown (`rejected`).
    public enum Ending: Sendable, Equatable {
        case hidden(NookEndReason)
        /// The rejection reason's wire name (`cancelled`, `coalesced`, `expired`, `queueFull`,
        /// `invalid`, `dismissed`).
        case rejected(String)
    }

    public var id: NookActivityID
    /// The kind of event; nil for a kind a newer nookd added, which ``name`` still names: a
    /// client shows it rather than dropping the line or the stream.
    public var event: NookActivityEvent.Name?
    /// The event's wire name, as nookd sent it.
    public var name: String
    /// `hidden`'s end reason or `rejected`'s reason.
    public var reason: String?
    /// For a rejection as `invalid`: the field at fault and what is wrong with it.
    public var field: String?
    public var message: String?
    /// Seconds on nookd's clock, to the millisecond.
    public var at: Double
    public var module: String?
    public var title: String
    /// For `updated`: the fields that changed, by their wire names (U1).
    public var fields: [String]?
    /// For an app's `invoked` (A4): the app's name, as its sender knows it (the card is nookd's).
    public var app: String?

    public init(_ event: NookActivityEvent) {
        id = event.id
        self.event = event.kind.eventName
        name = event.kind.name
        switch event.kind {
        case .hidden(let reason): self.reason = reason.rawValue
        case .rejected(let reason):
            self.reason = reason.description
            if case .invalid(let error) = reason { (field, message) = (error.field, error.problem) }
        case .updated(let previous): fields = ActivityField.changed(from: previous, to: event.activity).map(\.wireName)
        default: break
        }
        at = (event.at.sinceOrigin.nookSeconds * 1000).rounded() / 1000
        module = event.module?.rawValue
        title = event.activity.title
    }

    /// Nil until the activity's last event.
    public var ending: Ending? {
        switch event {
        case .hidden: NookEndReason(rawValue: reason ?? "").map(Ending.hidden) ?? .rejected(reason ?? "unknown")
        case .rejected: .rejected(reason ?? "unknown")
        case .enqueued, .animateIn, .presented, .animateOut, .requeued, .updated, .invoked, nil: nil
        }
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("id", .string(id.description)), ("event", .string(name))]
        if let reason { members.append(("reason", .string(reason))) }
        if let field { members.append(("field", .string(field))) }
        if let message { members.append(("message", .string(message))) }
        members.append(("at", .number(at)))
        if let module { members.append(("module", .string(module))) }
        members.append(("title", .string(title)))
        if let fields { members.append(("fields", .array(fields.map(JSONValue.string)))) }
        if let app { members.append(("app", .string(app))) }
        return .object(members)
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "event")
        id = try reader.requiredID("id")
        name = try reader.requiredString("event")
        event = NookActivityEvent.Name(rawValue: name)
        reason = try reader.string("reason")
        field = try reader.string("field")
        message = try reader.string("message")
        at = try reader.requiredNumber("at", in: -1e12...1e12)
        module = try reader.string("module")
        title = try reader.requiredString("title")
        fields = reader.value("fields").map { $0.items.compactMap(\.text) }
        app = try reader.string("app")
    }
}

/// In a `watch` stream: a watcher that fell behind missed `dropped` events of `module` here
/// (its buffer holds 4,096); what follows is again every event.
public struct OverflowMessage: Sendable, Equatable {
    public var module: String
    public var dropped: Int

    public init(module: String, dropped: Int) { (self.module, self.dropped) = (module, dropped) }

    public var json: JSONValue {
        .object([("event", .string("overflow")), ("module", .string(module)), ("dropped", .number(Double(dropped)))])
    }

    /// Nil for a line that is not an overflow notice (every other event).
    public init?(json: JSONValue) {
        guard let reader = try? FieldReader(json, path: "event"), (try? reader.string("event")) == "overflow",
              let module = try? reader.requiredString("module"), let dropped = try? reader.requiredInt("dropped") else { return nil }
        (self.module, self.dropped) = (module, dropped)
    }
}
