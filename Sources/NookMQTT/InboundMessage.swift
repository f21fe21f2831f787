import NookActivities
import NookProtocol

/// Why a message from the broker was not passed on, as the `error` topic reports it (E4):
/// the topic, the field at fault (`activity.tint`, `command`, `payload`) and why.
public struct Rejection: Error, Sendable, Equatable, CustomStringConvertible {
    public var topic: String
    public var code: String
    public var field: String?
    public var message: String

    public init(topic: String, code: String, field: String?, _ message: String) {
        (self.topic, self.code, self.field, self.message) = (topic, code, field, message)
    }

    init(topic: String, _ error: ProtocolError) {
        self.init(topic: topic, code: error.code.rawValue, field: error.field, error.message)
    }

    public var description: String { "\(topic): " + (field.map { "\($0): " } ?? "") + message }

    /// The `error` topic's payload; the first bytes of the payload help find who sent it.
    public func json(payload: [UInt8]) -> JSONValue {
        var members: [(String, JSONValue)] = [("topic", .string(topic)), ("code", .string(code))]
        if let field { members.append(("field", .string(field))) }
        members.append(("message", .string(message)))
        let head = payload.prefix(InboundMessage.echoedBytes)
        members.append(("payload", .string(String(decoding: head, as: UTF8.self) + (payload.count > head.count ? "…" : ""))))
        return .object(members)
    }
}

/// Turns a payload from `activity` or `command` into the socket protocol's operation, with the
/// socket protocol's own decoding and validation (``ActivityPayload``, ``Request``): MQTT adds
/// no rules of its own except those only a network source needs (no icon files, no retained
/// messages).
public enum InboundMessage {
    /// The socket protocol's own line limit.
    public static let largestPayload = NookProtocol.maximumLineBytes
    static let echoedBytes = 200

    /// The refusal of a payload over ``largestPayload``.
    static func tooLong(_ payload: [UInt8], topic: String) -> Rejection {
        Rejection(topic: topic, code: "lineTooLong", field: "payload", "is \(payload.count) bytes; at most \(largestPayload)")
    }
    /// The operations `command` accepts, as words or as a JSON request: those that change what
    /// the board shows (see ``allowed(_:topic:)``).
    static let commands: Set<NookOperation.Name> = [.dismiss, .cancel, .cancelAll, .suspend, .resume, .home]
    /// What `command` accepts, as the error for an unknown one lists it.
    public static let commandHelp = "dismiss [ID], cancel ID, cancel-all KEY, suspend, resume, home clock|blank|text TEXT, or the socket protocol's JSON request for one of these"

    /// Whether a message on a topic of requests (an activity, a command, the siren, the display)
    /// asks for anything: an empty retained message is how a retained one is cleared, and asks
    /// for nothing; without MQTT 5's Retain As Published (`retainFlagKept` false, 3.1.1) the
    /// broker passes that one on without its flag, so an empty message is taken as the clearing
    /// too. A retained request is refused: every new subscription would carry it out again.
    public static func asksSomething(topic: String, payload: [UInt8], retained: Bool, retainFlagKept: Bool) throws(Rejection) -> Bool {
        if payload.isEmpty, retained || !retainFlagKept { return false }
        guard !retained else {
            throw Rejection(topic: topic, code: "invalid", field: "retain",
                            "a retained activity, notification or command would be taken again by every new subscription; publish it without the retain flag, and clear this one with an empty retained message (mosquitto_pub -r -n -t \(topic))")
        }
        return true
    }

    /// The operation a message asks for; nil for an empty retained message, which is how a
    /// retained message is cleared and asks for nothing. `retainFlagKept` says whether the
    /// retain flag is as published (MQTT 5's Retain As Published); without it (3.1.1) an empty
    /// message cannot be told from an empty retained one and is taken as clearing too.
    /// `activityID` is the id an activity without one of its own gets (the bridge derives it
    /// from the broker's packet id, so a redelivery gets the same one).
    public static func decode(_ kind: Topics.Inbound, topic: String, payload: [UInt8], retained: Bool, module: String?,
                              retainFlagKept: Bool = true, activityID: NookActivityID? = nil) -> Result<NookOperation?, Rejection> {
        var notes: [String] = []
        return decode(kind, topic: topic, payload: payload, retained: retained, module: module, retainFlagKept: retainFlagKept,
                      activityID: activityID, notes: &notes)
    }

    /// The same, with what was changed or left out on the way (an AWTRIX notification's fields
    /// a card has no place for, its title cut to fit) in `notes`, for the bridge's log.
    public static func decode(_ kind: Topics.Inbound, topic: String, payload: [UInt8], retained: Bool, module: String?,
                              retainFlagKept: Bool = true, activityID: NookActivityID? = nil,
                              notes: inout [String]) -> Result<NookOperation?, Rejection> {
        do throws(Rejection) {
            guard try asksSomething(topic: topic, payload: payload, retained: retained, retainFlagKept: retainFlagKept) else { return .success(nil) }
            guard payload.count <= largestPayload else { throw tooLong(payload, topic: topic) }
            guard let text = String(validating: payload, as: UTF8.self) else {
                throw Rejection(topic: topic, code: "invalid", field: "payload", "is not valid UTF-8 text")
            }
            let trimmed = text.trimmingWhitespace()
            switch kind {
            case .activity: return .success(try activity(trimmed, topic: topic, module: module, id: activityID))
            case .command: return .success(try command(trimmed, topic: topic, module: module))
            case .notify: return .success(try notification(payload, topic: topic, module: module, id: activityID, notes: &notes))
            // Read by ``AWTRIXInbound``, which the bridge calls for these.
            case .customApp, .switchApp, .nextApp, .previousApp, .notifyDismiss, .device:
                throw Rejection(topic: topic, code: "internalError", field: nil, "an AWTRIX topic is read by AWTRIXInbound")
            case .siren:
                throw Rejection(topic: topic, code: "internalError", field: nil, "the siren topic is read by HomeAssistantSiren")
            case .display:
                throw Rejection(topic: topic, code: "internalError", field: nil, "the display topic is read by HomeAssistantLight")
            }
        } catch {
            return .failure(error)
        }
    }

    /// An AWTRIX notification (`PREFIX/notify`), read as nook-http's `/api/notify` reads it
    /// (``AWTRIXNotification``): its card, or a refusal naming the notification's field.
    static func notification(_ payload: [UInt8], topic: String, module: String?, id: NookActivityID?,
                             notes: inout [String]) throws(Rejection) -> NookOperation {
        let notification: AWTRIXNotification
        do { notification = try AWTRIXNotification.parse(payload) } catch { throw Rejection(topic: topic, error) }
        let activity = notification.activity(id: id ?? NookActivityID(), notes: &notes)
        do { try activity.validate() } catch {
            // The card's field, named as the sender wrote it (`title` is AWTRIX's `text`).
            throw Rejection(topic: topic, code: "invalid", field: AWTRIXNotification.senderFields[error.field] ?? error.field, error.problem)
        }
        return .enqueue(activity, module: module, wait: false)
    }

    static func activity(_ text: Substring, topic: String, module: String?, id: NookActivityID?) throws(Rejection) -> NookOperation {
        var activity: NookActivity
        if text.first == "{" {
            let value: JSONValue
            do { value = try JSONValue.parse(Array(text.utf8)) } catch {
                throw Rejection(topic: topic, code: "badJSON", field: "payload", "starts with '{' but is not valid JSON \(error) (plain text without a leading '{' is a title)")
            }
            do { activity = try ActivityPayload.decode(value) } catch { throw Rejection(topic: topic, error) }
            // `"id": null` is no id, as nookd reads it.
            if let id, value["id"] == nil || value["id"] == .null { activity.id = id }
        } else {
            guard !text.isEmpty else {
                throw Rejection(topic: topic, code: "missingField", field: "activity.title", "is required: the payload is empty (send a title as plain text, or a JSON activity)")
            }
            var plain = NookActivity(title: String(text))
            plain.id = id ?? NookActivityID()
            do { try plain.validate() } catch {
                throw Rejection(topic: topic, code: "invalid", field: "activity." + error.field, error.problem)
            }
            activity = plain
        }
        // A path would make nookd read a file of the board's on behalf of anyone who can
        // publish to the broker.
        if let icon = activity.systemImage, icon.contains("/") {
            throw Rejection(topic: topic, code: "invalid", field: "activity.icon", "file paths are not accepted over MQTT; name a symbol such as \"bell\"")
        }
        return .enqueue(activity, module: module, wait: false)
    }

    static func command(_ text: Substring, topic: String, module: String?) throws(Rejection) -> NookOperation {
        if text.first == "{" {
            let result = Request.decode(Array(text.utf8))
            switch result {
            case .failure(let failure): throw Rejection(topic: topic, failure.error)
            case .success(let decoded): return try allowed(decoded.operation, topic: topic)
            }
        }
        let words = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let verb = words.first else {
            throw Rejection(topic: topic, code: "missingField", field: "command", "the payload is empty; send one of: \(commandHelp)")
        }
        let rest = words.count > 1 ? String(words[1].trimmingWhitespace()) : nil
        func noArgument() throws(Rejection) {
            if let rest { throw Rejection(topic: topic, code: "invalid", field: "command", "'\(verb)' takes no argument, got '\(rest)'") }
        }
        // The words are the operations' wire names, read from the protocol's table.
        guard let name = NookOperation.Name(rawValue: String(verb)), commands.contains(name) else {
            throw Rejection(topic: topic, code: "unknownOperation", field: "command", "'\(verb)' is not a command; known: \(commandHelp)")
        }
        var fields: [(String, JSONValue)] = []
        switch name {
        case .dismiss, .cancel:
            if let rest { fields.append(("activity", .string(rest))) }
        case .cancelAll:
            if let rest { fields.append(("key", .string(rest))) }
            if let module { fields.append(("module", .string(module))) }
        case .home:
            let parts = rest?.split(separator: " ", maxSplits: 1).map(String.init) ?? []
            if let content = parts.first { fields.append(("content", .string(content))) }
            if parts.count > 1 { fields.append(("text", .string(parts[1]))) }
        default:
            try noArgument()
        }
        switch name.decode(fields) {
        case .failure(let error): throw Rejection(topic: topic, error)
        case .success(let operation): return try allowed(operation, topic: topic)
        }
    }

    /// Operations a broker's clients may ask for: those that change what the board shows.
    /// Reading (`status`, `list`, `snapshot`, `watch`) is what `state` and `event` are for;
    /// `focus` and `quiesce` belong to the board's own administrator.
    private static func allowed(_ operation: NookOperation, topic: String) throws(Rejection) -> NookOperation {
        if commands.contains(operation.name) { return operation }
        if case .enqueue = operation {
            throw Rejection(topic: topic, code: "invalid", field: "op", "activities go to the activity topic, not to command")
        }
        throw Rejection(topic: topic, code: "invalid", field: "op", "is not accepted over MQTT; known: \(commandHelp)")
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        guard let start = firstIndex(where: { !$0.isWhitespace }), let end = lastIndex(where: { !$0.isWhitespace }) else {
            return self[endIndex...]
        }
        return self[start...end]
    }
}

extension String {
    func trimmingWhitespace() -> Substring { self[...].trimmingWhitespace() }
}
