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

/// What a client asks for.
public enum NookOperation: Hashable, Sendable {
    case enqueue(NookActivity, module: String?, wait: Bool)
    case cancel(NookActivityID)
    case cancelAll(key: String, module: String?)
    /// Dismisses the given activity, or the one on screen if `nil`.
    case dismiss(NookActivityID?)
    case suspend(module: String?)
    case resume(module: String?)
    case quiesce(module: String?)
    case status
    /// `offset`: the page starting that many activities (on screen, then pending, module by
    /// module) in; 0 for the first.
    case list(module: String?, offset: Int = 0)
    case watch
    case snapshot
    case home(HomeSetting)
    case focus(module: String)
    /// Shows a character-grid glance as the home content (E8); nil gives the configured home back.
    case glance(NookGlance?)
    /// Quiet hours (Z1): `on`, `off`, `until` a time, or the status.
    case quiet(QuietSetting)
    /// Changes a pending or shown activity in place (U1).
    case update(UpdateTarget, changes: ActivityChanges, restartDwell: Bool)
    /// Streams a ``InputMessage`` for every press of an input (open, dismiss), as `watch`
    /// streams activity events: what a bridge offers its own clients as keys (E8).
    case inputs
    /// Acts as if the named input were pressed (`open` or `dismiss`); only when nookd's config
    /// sets `debug.press_inputs` (tests and boards without buttons). `holdMs`: how long the
    /// button is held, for a long press (U5's recall); nil is a short press.
    case press(NookInputName, holdMs: Int? = nil)
    /// Invokes the default action of the card on the glass (E3), as the open input does: of
    /// the one with this id, or of whatever is on the glass if `nil`.
    case invoke(NookActivityID?)

    /// Ended activities that pass the query, oldest first (U4, U5).
    case history(HistoryQuery)
    /// One history entry.
    case historyShow(HistoryReference)
    /// Enqueues a history entry's activity again, as a new activity sent by the requester.
    case historyReplay(HistoryReference)
    /// Removes history entries: all of them for root and the admin group, else the caller's own.
    case historyClear

    public static let names = ["enqueue", "cancel", "cancel-all", "dismiss", "suspend", "resume", "quiesce",
                               "status", "list", "watch", "snapshot", "home", "focus", "glance", "quiet", "update",
                               "inputs", "press", "invoke", "history", "history-show", "history-replay", "history-clear"]
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

    public init(id: RequestID?, operation: NookOperation, deadline: Double? = nil) {
        self.id = id
        self.operation = operation
        self.deadline = deadline
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
            return .success(Request(id: id, operation: try decodeOperation(value), deadline: deadline))
        } catch {
            return .failure(RequestFailure(id: id, error: error))
        }
    }

    /// The fields every request may carry; built once, not per request.
    private static let commonFields: Set<String> = ["v", "id", "op", "deadline"]

    private static func decodeOperation(_ value: JSONValue) throws(ProtocolError) -> NookOperation {
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
        func module() throws(ProtocolError) -> String? {
            guard let name = try reader.string("module") else { return nil }
            guard !name.isEmpty else { throw ProtocolError(.invalid, field: "module", "must not be empty") }
            return name
        }
        func activityID(_ key: String) throws(ProtocolError) -> NookActivityID {
            let text = try reader.requiredString(key)
            guard let id = NookActivityID(text) else { throw ProtocolError(.invalid, field: key, "must be a UUID (8-4-4-4-12 hexadecimal digits), got '\(text)'") }
            return id
        }
        switch op {
        case "enqueue":
            try reader.rejectUnknown(commonFields, also: ["activity", "module", "wait"])
            guard let payload = reader.value("activity") else { throw ProtocolError(.missingField, field: "activity", "is required") }
            return .enqueue(try ActivityPayload.decode(payload), module: try module(), wait: try reader.bool("wait") ?? false)
        case "cancel":
            try reader.rejectUnknown(commonFields, also: ["activity"])
            return .cancel(try activityID("activity"))
        case "cancel-all":
            try reader.rejectUnknown(commonFields, also: ["key", "module"])
            let key = try reader.requiredString("key")
            guard !key.isEmpty else { throw ProtocolError(.invalid, field: "key", "must not be empty") }
            return .cancelAll(key: key, module: try module())
        case "dismiss":
            try reader.rejectUnknown(commonFields, also: ["activity"])
            return .dismiss(reader.value("activity") == nil ? nil : try activityID("activity"))
        case "invoke":
            try reader.rejectUnknown(commonFields, also: ["activity"])
            return .invoke(reader.value("activity") == nil ? nil : try activityID("activity"))
        case "suspend", "resume", "quiesce":
            try reader.rejectUnknown(commonFields, also: ["module"])
            let name = try module()
            switch op {
            case "suspend": return .suspend(module: name)
            case "resume": return .resume(module: name)
            default: return .quiesce(module: name)
            }
        case "list":
            try reader.rejectUnknown(commonFields, also: ["module", "offset"])
            let offset = try reader.number("offset") ?? 0
            guard offset >= 0, offset <= 1e9, offset == offset.rounded() else {
                throw ProtocolError(.invalid, field: "offset", "must be a whole number from 0, got \(offset)")
            }
            return .list(module: try module(), offset: Int(offset))
        case "status", "watch", "snapshot":
            try reader.rejectUnknown(commonFields)
            return op == "status" ? .status : op == "watch" ? .watch : .snapshot
        case "home":
            try reader.rejectUnknown(commonFields, also: ["content", "text"])
            switch try reader.requiredString("content") {
            case "clock": return .home(.clock)
            case "blank": return .home(.blank)
            case "text":
                let text = try reader.requiredString("text")
                guard !text.isEmpty else { throw ProtocolError(.invalid, field: "text", "must not be empty") }
                if let problem = HomeSetting.textLimit.problem(with: text) { throw ProtocolError(.invalid, field: "text", problem) }
                return .home(.text(text))
            case let other: throw ProtocolError(.invalid, field: "content", "must be clock, blank or text; got '\(other)'")
            }
        case "quiet":
            try reader.rejectUnknown(commonFields, also: ["set", "until"])
            switch try reader.requiredString("set") {
            case "on": return .quiet(.on)
            case "off": return .quiet(.off)
            case "status": return .quiet(.status)
            case "until":
                let time = try reader.requiredString("until")
                guard !time.isEmpty, time.utf8.count <= 16 else { throw ProtocolError(.invalid, field: "until", "must be HH:MM or a duration such as 45m or 2h") }
                return .quiet(.until(time))
            case let other: throw ProtocolError(.invalid, field: "set", "must be on, off, until or status; got '\(other)'")
            }
        case "update":
            try reader.rejectUnknown(commonFields, also: ["activity", "key", "module", "changes", "restartDwell"])
            let target: UpdateTarget
            switch (reader.value("activity"), try reader.string("key")) {
            case (_?, nil):
                if reader.value("module") != nil { throw ProtocolError(.invalid, field: "module", "applies only to an update by key") }
                target = .id(try activityID("activity"))
            case (nil, let key?):
                guard !key.isEmpty else { throw ProtocolError(.invalid, field: "key", "must not be empty") }
                target = .key(key, module: try module())
            case (_?, _?): throw ProtocolError(.invalid, field: "key", "give either activity (an id) or key, not both")
            case (nil, nil): throw ProtocolError(.missingField, field: "activity", "is required (an id), or key")
            }
            guard let changes = reader.value("changes") else { throw ProtocolError(.missingField, field: "changes", "is required") }
            let parsed = try ActivityChanges(json: changes)
            let restartDwell = try reader.bool("restartDwell") ?? false
            guard !parsed.members.isEmpty || restartDwell else {
                throw ProtocolError(.invalid, field: "changes", "names no field to change (and restartDwell is not set)")
            }
            return .update(target, changes: parsed, restartDwell: restartDwell)
        case "history":
            try reader.rejectUnknown(commonFields, also: ["since", "key", "unseen", "limit", "before"])
            var query = HistoryQuery(unseen: try reader.bool("unseen") ?? false)
            if let since = try reader.number("since") {
                guard since.isFinite, since > 0 else { throw ProtocolError(.invalid, field: "since", "must be a number of seconds greater than zero, got \(since)") }
                query.since = since
            }
            if let key = try reader.string("key") {
                guard !key.isEmpty else { throw ProtocolError(.invalid, field: "key", "must not be empty") }
                query.key = key
            }
            if let limit = try reader.number("limit") {
                guard limit >= 1, limit <= 1e9, limit == limit.rounded() else {
                    throw ProtocolError(.invalid, field: "limit", "must be a whole number from 1, got \(limit)")
                }
                query.limit = Int(limit)
            }
            if let before = try reader.number("before") {
                guard before >= 1, before < 1e15, before == before.rounded() else {
                    throw ProtocolError(.invalid, field: "before", "must be a history entry's number (a whole number from 1), got \(before)")
                }
                query.before = UInt64(before)
            }
            return .history(query)
        case "history-show", "history-replay":
            try reader.rejectUnknown(commonFields, also: ["entry"])
            let text = try reader.requiredString("entry")
            guard let reference = HistoryReference(text) else {
                throw ProtocolError(.invalid, field: "entry", "must be \(HistoryReference.expected), got '\(text)'")
            }
            return op == "history-show" ? .historyShow(reference) : .historyReplay(reference)
        case "history-clear":
            try reader.rejectUnknown(commonFields)
            return .historyClear
        case "focus":
            try reader.rejectUnknown(commonFields, also: ["module"])
            guard let name = try module() else { throw ProtocolError(.missingField, field: "module", "is required") }
            return .focus(module: name)
        case "inputs":
            try reader.rejectUnknown(commonFields)
            return .inputs
        case "press":
            try reader.rejectUnknown(commonFields, also: ["input", "holdMs"])
            let name = try reader.requiredString("input")
            guard let input = NookInputName(rawValue: name) else {
                throw ProtocolError(.invalid, field: "input", "must be one of \(NookInputName.allCases.map(\.rawValue).joined(separator: ", ")); got '\(name)'")
            }
            let hold = try reader.number("holdMs")
            if let hold, !(hold >= 0 && hold <= 60_000 && hold == hold.rounded()) {
                throw ProtocolError(.invalid, field: "holdMs", "must be whole milliseconds from 0 to 60000, got \(hold)")
            }
            return .press(input, holdMs: hold.map { Int($0) })
        case "glance":
            try reader.rejectUnknown(commonFields, also: ["glance"])
            return .glance(try reader.value("glance").map { value throws(ProtocolError) in try GlancePayload.decode(value) })
        default:
            throw ProtocolError(.unknownOperation, field: "op", "'\(op)' is not an operation; known: \(NookOperation.names.joined(separator: ", "))")
        }
    }

    /// The request as a JSON line (what nookctl sends).
    public func encoded() -> String {
        var members: [(String, JSONValue)] = [("v", .number(Double(NookProtocol.version)))]
        if let id { members.append(("id", id.json)) }
        if let deadline { members.append(("deadline", .number(deadline))) }
        func op(_ name: String) { members.append(("op", .string(name))) }
        func module(_ name: String?) { if let name { members.append(("module", .string(name))) } }
        switch operation {
        case .enqueue(let activity, let name, let wait):
            op("enqueue")
            members.append(("activity", ActivityPayload.encode(activity)))
            module(name)
            if wait { members.append(("wait", .bool(true))) }
        case .cancel(let id): op("cancel"); members.append(("activity", .string(id.description)))
        case .cancelAll(let key, let name): op("cancel-all"); members.append(("key", .string(key))); module(name)
        case .dismiss(let id): op("dismiss"); if let id { members.append(("activity", .string(id.description))) }
        case .invoke(let id): op("invoke"); if let id { members.append(("activity", .string(id.description))) }
        case .suspend(let name): op("suspend"); module(name)
        case .resume(let name): op("resume"); module(name)
        case .quiesce(let name): op("quiesce"); module(name)
        case .status: op("status")
        case .list(let name, let offset): op("list"); module(name); if offset > 0 { members.append(("offset", .number(Double(offset)))) }
        case .watch: op("watch")
        case .snapshot: op("snapshot")
        case .home(let setting):
            op("home")
            switch setting {
            case .clock: members.append(("content", .string("clock")))
            case .blank: members.append(("content", .string("blank")))
            case .text(let text): members.append(("content", .string("text"))); members.append(("text", .string(text)))
            }
        case .focus(let name): op("focus"); module(name)
        case .glance(let glance):
            op("glance")
            if let glance { members.append(("glance", GlancePayload.encode(glance))) }
        case .quiet(let setting):
            op("quiet")
            switch setting {
            case .on: members.append(("set", .string("on")))
            case .off: members.append(("set", .string("off")))
            case .status: members.append(("set", .string("status")))
            case .until(let time): members.append(("set", .string("until"))); members.append(("until", .string(time)))
            }
        case .update(let target, let changes, let restartDwell):
            op("update")
            switch target {
            case .id(let id): members.append(("activity", .string(id.description)))
            case .key(let key, let name): members.append(("key", .string(key))); module(name)
            }
            members.append(("changes", changes.json))
            if restartDwell { members.append(("restartDwell", .bool(true))) }
        case .inputs: op("inputs")
        case .press(let input, let hold):
            op("press"); members.append(("input", .string(input.rawValue)))
            if let hold { members.append(("holdMs", .number(Double(hold)))) }
        case .history(let query):
            op("history")
            if let since = query.since { members.append(("since", .number(since))) }
            if let key = query.key { members.append(("key", .string(key))) }
            if query.unseen { members.append(("unseen", .bool(true))) }
            if let limit = query.limit { members.append(("limit", .number(Double(limit)))) }
            if let before = query.before { members.append(("before", .number(Double(before)))) }
        case .historyShow(let reference): op("history-show"); members.append(("entry", .string(reference.description)))
        case .historyReplay(let reference): op("history-replay"); members.append(("entry", .string(reference.description)))
        case .historyClear: op("history-clear")
        }
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
    /// The event's wire name (``NookActivityEvent/Kind/name``).
    public var event: String
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

    public init(_ event: NookActivityEvent) {
        id = event.id
        self.event = event.kind.name
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
        case "hidden": NookEndReason(rawValue: reason ?? "").map(Ending.hidden) ?? .rejected(reason ?? "unknown")
        case "rejected": .rejected(reason ?? "unknown")
        default: nil
        }
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("id", .string(id.description)), ("event", .string(event))]
        if let reason { members.append(("reason", .string(reason))) }
        if let field { members.append(("field", .string(field))) }
        if let message { members.append(("message", .string(message))) }
        members.append(("at", .number(at)))
        if let module { members.append(("module", .string(module))) }
        members.append(("title", .string(title)))
        if let fields { members.append(("fields", .array(fields.map(JSONValue.string)))) }
        return .object(members)
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "event")
        id = try reader.requiredID("id")
        event = try reader.requiredString("event")
        reason = try reader.string("reason")
        field = try reader.string("field")
        message = try reader.string("message")
        at = try reader.requiredNumber("at", in: -1e12...1e12)
        module = try reader.string("module")
        title = try reader.requiredString("title")
        fields = reader.value("fields").map { $0.items.compactMap(\.text) }
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
