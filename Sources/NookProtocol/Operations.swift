import NookActivities

/// What a client asks for: one case per operation, its request's fields as the case's values.
/// The rest of each operation's row (its wire name, fields, decoder, encoder, answer, scope and
/// nookctl's words) is below, in this file.
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
    /// The page starting after `after` (a previous page's ``ListAnswer/cursor``), or, as
    /// version-1 clients before cursors page, `offset` activities (on screen, then pending,
    /// module by module) in; the first page with neither. `limit`: at most that many activities.
    case list(module: String?, offset: Int = 0, after: ListCursor? = nil, limit: Int? = nil)
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
    /// The glass as a PNG with its generation (V1): at once, or with `after`, once the glass
    /// shows a frame newer than that generation (bounded: after ``NookProtocol/frameWaitSeconds``
    /// the frame on the glass then). A stream is a chain of these.
    case frame(after: Int?)

    /// Sets an app (A1): a new one joins the rotation, one of the same name is updated in place.
    case appSet(NookApp)
    /// Sets several apps (an AWTRIX array: APP0, APP1, …) in one step: all of them, or none and
    /// the reason the first that could not be set gives.
    case appSetAll([NookApp])
    /// Removes the named app (its sender, root or the admin group, U3).
    case appRemove(String)
    /// Every app, in the rotation's order.
    case appList
    /// One app.
    case appShow(String)
    /// The rotation moves on to its next turn (A2), or back to the one before.
    case appNext
    case appPrevious
    /// The rotation moves to the named app.
    case appSwitch(String)
}

extension NookOperation {
    /// Every operation of the protocol, by its wire name (the request's `op`), in the order
    /// nookd lists them. The one table of operations: ``entry`` says what each one's request
    /// carries, how it is decoded, what it is answered with, who may ask and where nookctl
    /// offers it; ``wire`` gives a request's name and fields back. nookd registers one handler
    /// per name (its `OperationHandler` rows, checked by its tests) and nookctl's subcommands
    /// are an exhaustive switch over these names; bridges build requests from these names,
    /// never from strings (``decode(_:)``).
    public enum Name: String, CaseIterable, Hashable, Sendable {
        case enqueue, cancel
        case cancelAll = "cancel-all"
        case dismiss, suspend, resume, quiesce, status, list, watch, snapshot, home, focus, glance, quiet, update, inputs, press, invoke, history
        case historyShow = "history-show"
        case historyReplay = "history-replay"
        case historyClear = "history-clear"
        case frame
        case appSet = "app-set"
        case appSetAll = "app-set-all"
        case appRemove = "app-rm"
        case appList = "app-list"
        case appShow = "app-show"
        case appNext = "app-next"
        case appPrevious = "app-previous"
        case appSwitch = "app-switch"
    }

    /// The wire names, in the table's order (the `unknownOperation` error lists them).
    public static let names = Name.allCases.map(\.rawValue)

    /// Where nookctl offers an operation.
    public enum Command: Hashable, Sendable {
        /// `nookctl NAME`: a subcommand named as the operation.
        case subcommand
        /// `nookctl GROUP WORD` (`nookctl history show`): a subcommand of a group.
        case grouped(String, String)
        /// `nookctl WORD`: a subcommand named other than the operation (`frame` is `screenshot`).
        case named(String)
        /// Not a subcommand: only bridges send it (subscriptions, a bridge's own home content,
        /// the buttons simulated for tests).
        case bridgesOnly
    }

    /// Who may ask for an operation (U3); nookd's dispatch refuses the others before the
    /// operation's handler runs.
    public enum Scope: Hashable, Sendable {
        /// Anyone who may use the socket: reading, sending cards, a bridge's subscriptions.
        case anyone
        /// Anyone, on what is their own: the cards their uid sent, or only those of the
        /// `sender` they state; root and the admin group on everyone's (U3).
        case own
        /// A whole-device change: root and the admin group only. The words name it in the
        /// refusal ("may not set the home content").
        case device(String)
        /// Only when nookd's config sets `debug.press_inputs` (tests, boards without buttons).
        case debug
    }

    /// What one operation is, beside its handler in nookd.
    public struct Entry {
        /// The fields its request may carry besides `v`, `id`, `op` and `deadline`.
        public let fields: [String]
        /// What nookd answers it with when it succeeds (the first line, for a stream).
        public let answer: any NookAnswer.Type
        public let command: Command
        /// Who may ask for it (see ``NookOperation/scope`` for one request's).
        public let scope: Scope
        /// Reads the request's fields; unknown fields were refused before.
        let decode: (FieldReader) throws(ProtocolError) -> NookOperation

        init(fields: [String], answer: any NookAnswer.Type, command: Command, scope: Scope = .anyone,
             decode: @escaping (FieldReader) throws(ProtocolError) -> NookOperation) {
            (self.fields, self.answer, self.command, self.scope, self.decode) = (fields, answer, command, scope, decode)
        }
    }

    /// Who may make this request: its operation's ``Entry/scope``, but reading quiet hours
    /// (`quiet` with `set: status`) is open to anyone, as `status` is.
    public var scope: Scope { name.scope(of: self) }

    /// The request's wire name and its fields (after `op`), as ``Request/encoded()`` writes them.
    public var wire: (name: Name, fields: [(String, JSONValue)]) {
        func module(_ name: String?) -> [(String, JSONValue)] { name.map { [("module", .string($0))] } ?? [] }
        func activity(_ id: NookActivityID?) -> [(String, JSONValue)] { id.map { [("activity", .string($0.description))] } ?? [] }
        switch self {
        case .enqueue(let activity, let name, let wait):
            // Bridges encode thousands a second: appended, not joined from small arrays.
            var fields: [(String, JSONValue)] = [("activity", ActivityPayload.encode(activity))]
            if let name { fields.append(("module", .string(name))) }
            if wait { fields.append(("wait", .bool(true))) }
            if let sender = activity.sender?.name { fields.append(("sender", .string(sender))) }
            return (.enqueue, fields)
        case .cancel(let id): return (.cancel, activity(id))
        case .cancelAll(let key, let name): return (.cancelAll, [("key", .string(key))] + module(name))
        case .dismiss(let id): return (.dismiss, activity(id))
        case .invoke(let id): return (.invoke, activity(id))
        case .suspend(let name): return (.suspend, module(name))
        case .resume(let name): return (.resume, module(name))
        case .quiesce(let name): return (.quiesce, module(name))
        case .status: return (.status, [])
        case .list(let name, let offset, let after, let limit):
            return (.list, module(name) + (offset > 0 ? [("offset", .number(Double(offset)))] : []) + (after.map { [("after", .string($0.text))] } ?? [])
                        + (limit.map { [("limit", .number(Double($0)))] } ?? []))
        case .watch: return (.watch, [])
        case .snapshot: return (.snapshot, [])
        case .home(let setting):
            switch setting {
            case .clock: return (.home, [("content", .string("clock"))])
            case .blank: return (.home, [("content", .string("blank"))])
            case .text(let text): return (.home, [("content", .string("text")), ("text", .string(text))])
            }
        case .focus(let name): return (.focus, module(name))
        case .glance(let glance): return (.glance, glance.map { [("glance", GlancePayload.encode($0))] } ?? [])
        case .quiet(let setting):
            switch setting {
            case .on: return (.quiet, [("set", .string("on"))])
            case .off: return (.quiet, [("set", .string("off"))])
            case .status: return (.quiet, [("set", .string("status"))])
            case .until(let time): return (.quiet, [("set", .string("until")), ("until", .string(time))])
            }
        case .update(let target, let changes, let restartDwell):
            var fields: [(String, JSONValue)]
            switch target {
            case .id(let id): fields = activity(id)
            case .key(let key, let name): fields = [("key", .string(key))] + module(name)
            }
            fields.append(("changes", changes.json))
            if restartDwell { fields.append(("restartDwell", .bool(true))) }
            return (.update, fields)
        case .inputs: return (.inputs, [])
        case .press(let input, let hold):
            return (.press, [("input", .string(input.rawValue))] + (hold.map { [("holdMs", .number(Double($0)))] } ?? []))
        case .history(let query):
            var fields: [(String, JSONValue)] = []
            if let since = query.since { fields.append(("since", .number(since))) }
            if let key = query.key { fields.append(("key", .string(key))) }
            if query.unseen { fields.append(("unseen", .bool(true))) }
            if let limit = query.limit { fields.append(("limit", .number(Double(limit)))) }
            if let before = query.before { fields.append(("before", .number(Double(before)))) }
            return (.history, fields)
        case .historyShow(let reference): return (.historyShow, [("entry", .string(reference.description))])
        case .historyReplay(let reference): return (.historyReplay, [("entry", .string(reference.description))])
        case .historyClear: return (.historyClear, [])
        case .frame(let after): return (.frame, after.map { [("after", .number(Double($0)))] } ?? [])
        case .appSet(let app): return (.appSet, [("app", AppPayload.encode(app))])
        case .appSetAll(let apps): return (.appSetAll, [("apps", .array(apps.map(AppPayload.encode)))])
        case .appRemove(let name): return (.appRemove, [("name", .string(name))])
        case .appList: return (.appList, [])
        case .appShow(let name): return (.appShow, [("name", .string(name))])
        case .appNext: return (.appNext, [])
        case .appPrevious: return (.appPrevious, [])
        case .appSwitch(let name): return (.appSwitch, [("name", .string(name))])
        }
    }

    /// The operation's wire name.
    public var name: Name { wire.name }
}

extension NookOperation.Name {
    /// Who may make `operation`, a request of this operation (``NookOperation/scope``); for a
    /// caller that has the name already (finding it encodes the request's fields).
    public func scope(of operation: NookOperation) -> NookOperation.Scope {
        if case .quiet(.status) = operation { return .anyone }
        return entry.scope
    }

    /// A request of this operation read from its fields (those after `op`), exactly as nookd
    /// reads a request line's, errors included: how a bridge turns its own clients' words
    /// (an MQTT command, a REST body) into an operation without spelling the wire name.
    public func decode(_ fields: [(String, JSONValue)]) -> Result<NookOperation, ProtocolError> {
        switch Request.decode(JSONValue.object([("op", .string(rawValue))] + fields).serializedBytes) {
        case .success(let request): .success(request.operation)
        case .failure(let failure): .failure(failure.error)
        }
    }

    /// The words that run it in nookctl (`["history", "show"]`), or nil if it is not a subcommand.
    public var commandWords: [String]? {
        switch entry.command {
        case .subcommand: [rawValue]
        case .grouped(let group, let word): [group, word]
        case .named(let word): [word]
        case .bridgesOnly: nil
        }
    }
}

extension NookOperation.Name {
    /// The table's row for this operation.
    public var entry: NookOperation.Entry {
        typealias Entry = NookOperation.Entry
        switch self {
        case .enqueue:
            return Entry(fields: ["activity", "module", "wait", "sender"], answer: EnqueueAnswer.self, command: .subcommand) { reader throws(ProtocolError) in
                guard let payload = reader.value("activity") else { throw ProtocolError(.missingField, field: "activity", "is required") }
                var activity = try ActivityPayload.decode(payload)
                activity.sender = try reader.senderName().map { NookSender(uid: 0, pid: 0, name: $0) }
                return .enqueue(activity, module: try reader.module(), wait: try reader.bool("wait") ?? false)
            }
        case .cancel:
            return Entry(fields: ["activity", "sender"], answer: CancelAnswer.self, command: .subcommand, scope: .own) { reader throws(ProtocolError) in
                .cancel(try reader.requiredID("activity"))
            }
        case .cancelAll:
            return Entry(fields: ["key", "module", "sender"], answer: CancelAllAnswer.self, command: .subcommand, scope: .own) { reader throws(ProtocolError) in
                let key = try reader.requiredString("key")
                guard !key.isEmpty else { throw ProtocolError(.invalid, field: "key", "must not be empty") }
                return .cancelAll(key: key, module: try reader.module())
            }
        case .dismiss:
            return Entry(fields: ["activity", "sender"], answer: DismissAnswer.self, command: .subcommand, scope: .own) { reader throws(ProtocolError) in
                .dismiss(reader.value("activity") == nil ? nil : try reader.requiredID("activity"))
            }
        case .suspend:
            return Entry(fields: ["module"], answer: ModulesAnswer.self, command: .subcommand, scope: .device("suspend")) { reader throws(ProtocolError) in
                .suspend(module: try reader.module())
            }
        case .resume:
            return Entry(fields: ["module"], answer: ModulesAnswer.self, command: .subcommand, scope: .device("resume")) { reader throws(ProtocolError) in
                .resume(module: try reader.module())
            }
        case .quiesce:
            return Entry(fields: ["module"], answer: ModulesAnswer.self, command: .subcommand, scope: .device("quiesce")) { reader throws(ProtocolError) in
                .quiesce(module: try reader.module())
            }
        case .status:
            return Entry(fields: [], answer: StatusAnswer.self, command: .subcommand) { _ throws(ProtocolError) in .status }
        case .list:
            return Entry(fields: ["module", "offset", "after", "limit"], answer: ListAnswer.self, command: .subcommand) { reader throws(ProtocolError) in
                let offset = try reader.number("offset") ?? 0
                guard offset >= 0, offset <= 1e9, offset == offset.rounded() else {
                    throw ProtocolError(.invalid, field: "offset", "must be a whole number from 0, got \(offset)")
                }
                var after: ListCursor?
                if let text = try reader.string("after") {
                    guard let cursor = ListCursor(text: text) else {
                        throw ProtocolError(.invalid, field: "after", "is not a cursor this nookd gave: pass a list answer's `cursor` back as it came")
                    }
                    guard offset == 0 else { throw ProtocolError(.invalid, field: "offset", "cannot be given with `after`: a page starts at one or the other") }
                    after = cursor
                }
                let limit = try reader.number("limit", in: 1...Double(ListAnswer.maximumLimit))
                if let limit, limit != limit.rounded() { throw ProtocolError(.invalid, field: "limit", "must be a whole number, got \(limit)") }
                return .list(module: try reader.module(), offset: Int(offset), after: after, limit: limit.map { Int($0) })
            }
        case .watch:
            return Entry(fields: [], answer: WatchAnswer.self, command: .subcommand) { _ throws(ProtocolError) in .watch }
        case .snapshot:
            return Entry(fields: [], answer: SnapshotAnswer.self, command: .subcommand) { _ throws(ProtocolError) in .snapshot }
        case .home:
            return Entry(fields: ["content", "text"], answer: HomeAnswer.self, command: .subcommand, scope: .device("set the home content")) { reader throws(ProtocolError) in
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
            }
        case .focus:
            return Entry(fields: ["module"], answer: FocusAnswer.self, command: .subcommand, scope: .device("switch the foreground module")) { reader throws(ProtocolError) in
                guard let name = try reader.module() else { throw ProtocolError(.missingField, field: "module", "is required") }
                return .focus(module: name)
            }
        case .glance:
            // nook-lcdproc's screens as the home content (E8).
            return Entry(fields: ["glance"], answer: GlanceAnswer.self, command: .bridgesOnly) { reader throws(ProtocolError) in
                .glance(try reader.value("glance").map { value throws(ProtocolError) in try GlancePayload.decode(value) })
            }
        case .quiet:
            return Entry(fields: ["set", "until"], answer: QuietAnswer.self, command: .subcommand, scope: .device("change quiet hours")) { reader throws(ProtocolError) in
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
            }
        case .update:
            return Entry(fields: ["activity", "key", "module", "changes", "restartDwell", "sender"], answer: UpdateAnswer.self,
                         command: .subcommand, scope: .own) { reader throws(ProtocolError) in
                let target: UpdateTarget
                switch (reader.value("activity"), try reader.string("key")) {
                case (_?, nil):
                    if reader.value("module") != nil { throw ProtocolError(.invalid, field: "module", "applies only to an update by key") }
                    target = .id(try reader.requiredID("activity"))
                case (nil, let key?):
                    guard !key.isEmpty else { throw ProtocolError(.invalid, field: "key", "must not be empty") }
                    target = .key(key, module: try reader.module())
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
            }
        case .inputs:
            // A subscription for bridges that map the buttons onto their clients' keys (E8).
            return Entry(fields: [], answer: InputsAnswer.self, command: .bridgesOnly) { _ throws(ProtocolError) in .inputs }
        case .press:
            // The buttons simulated, for tests and boards without buttons (debug.press_inputs).
            return Entry(fields: ["input", "holdMs"], answer: PressAnswer.self, command: .bridgesOnly, scope: .debug) { reader throws(ProtocolError) in
                let name = try reader.requiredString("input")
                guard let input = NookInputName(rawValue: name) else {
                    throw ProtocolError(.invalid, field: "input", "must be one of \(NookInputName.allCases.map(\.rawValue).joined(separator: ", ")); got '\(name)'")
                }
                let hold = try reader.number("holdMs")
                if let hold, !(hold >= 0 && hold <= 60_000 && hold == hold.rounded()) {
                    throw ProtocolError(.invalid, field: "holdMs", "must be whole milliseconds from 0 to 60000, got \(hold)")
                }
                return .press(input, holdMs: hold.map { Int($0) })
            }
        case .invoke:
            return Entry(fields: ["activity", "sender"], answer: InvokeAnswer.self, command: .subcommand, scope: .own) { reader throws(ProtocolError) in
                .invoke(reader.value("activity") == nil ? nil : try reader.requiredID("activity"))
            }
        case .history:
            return Entry(fields: ["since", "key", "unseen", "limit", "before"], answer: HistoryAnswer.self,
                         command: .grouped("history", "list")) { reader throws(ProtocolError) in
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
            }
        case .historyShow:
            return Entry(fields: ["entry"], answer: HistoryShowAnswer.self, command: .grouped("history", "show")) { reader throws(ProtocolError) in
                .historyShow(try reader.historyReference())
            }
        case .historyReplay:
            return Entry(fields: ["entry"], answer: HistoryReplayAnswer.self, command: .grouped("history", "replay")) { reader throws(ProtocolError) in
                .historyReplay(try reader.historyReference())
            }
        case .historyClear:
            return Entry(fields: [], answer: HistoryClearAnswer.self, command: .grouped("history", "clear"), scope: .own) { _ throws(ProtocolError) in .historyClear }
        case .frame:
            return Entry(fields: ["after"], answer: FrameAnswer.self, command: .named("screenshot")) { reader throws(ProtocolError) in
                // A generation is a count of frames: whole, from 0, exact in a JSON number.
                guard let after = try reader.number("after") else { return .frame(after: nil) }
                guard after >= 0, after <= 9_007_199_254_740_992, after == after.rounded() else {
                    throw ProtocolError(.invalid, field: "after", "must be a frame generation (a whole number from 0), got \(after)")
                }
                return .frame(after: Int(after))
            }
        case .appSet:
            return Entry(fields: ["app", "sender"], answer: AppSetAnswer.self, command: .grouped("app", "set"), scope: .own) { reader throws(ProtocolError) in
                guard let payload = reader.value("app") else { throw ProtocolError(.missingField, field: "app", "is required") }
                return .appSet(try AppPayload.decode(payload))
            }
        case .appSetAll:
            return Entry(fields: ["apps", "sender"], answer: AppSetAllAnswer.self, command: .bridgesOnly, scope: .own) { reader throws(ProtocolError) in
                guard let payload = reader.value("apps") else { throw ProtocolError(.missingField, field: "apps", "is required") }
                guard case .array(let items) = payload else { throw ProtocolError(.wrongType, field: "apps", "must be an array of apps, got \(payload.typeName)") }
                guard (1...NookApp.Limits.count).contains(items.count) else {
                    throw ProtocolError(.invalid, field: "apps", "must hold 1 to \(NookApp.Limits.count) apps (all nookd keeps), got \(items.count)")
                }
                var apps: [NookApp] = []
                var names: Set<String> = []
                for (index, item) in items.enumerated() {
                    let app = try AppPayload.decode(item, path: "apps[\(index)]")
                    guard names.insert(app.name).inserted else {
                        throw ProtocolError(.invalid, field: "apps[\(index)].name", "'\(app.name)' is named twice in the array")
                    }
                    apps.append(app)
                }
                return .appSetAll(apps)
            }
        case .appRemove:
            return Entry(fields: ["name", "sender"], answer: AppRemoveAnswer.self, command: .grouped("app", "rm"), scope: .own) { reader throws(ProtocolError) in
                .appRemove(try reader.appName())
            }
        case .appList:
            return Entry(fields: [], answer: AppListAnswer.self, command: .grouped("app", "list")) { _ throws(ProtocolError) in .appList }
        case .appShow:
            return Entry(fields: ["name"], answer: AppShowAnswer.self, command: .grouped("app", "show")) { reader throws(ProtocolError) in
                .appShow(try reader.appName())
            }
        case .appNext:
            return Entry(fields: [], answer: AppSwitchAnswer.self, command: .grouped("app", "next")) { _ throws(ProtocolError) in .appNext }
        case .appPrevious:
            return Entry(fields: [], answer: AppSwitchAnswer.self, command: .grouped("app", "previous")) { _ throws(ProtocolError) in .appPrevious }
        case .appSwitch:
            return Entry(fields: ["name"], answer: AppSwitchAnswer.self, command: .grouped("app", "switch")) { reader throws(ProtocolError) in
                .appSwitch(try reader.appName())
            }
        }
    }
}
