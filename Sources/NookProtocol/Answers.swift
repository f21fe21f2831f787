import NookActivities

/// The result of a successful request, as a type both sides share: nookd fills one and
/// encodes it, nookctl (and any other client) decodes it and reads its fields.
///
/// Decoding ignores keys it does not know, so an older client still reads a newer nookd's
/// answer; a missing or mistyped field it needs is a ``ProtocolError`` naming the field.
public protocol NookAnswer: Sendable, Equatable {
    var json: JSONValue { get }
    init(json: JSONValue) throws(ProtocolError)
}

/// An answer that may carry `warnings`: the request was done as asked, with something the
/// sender should hear (an icon name nookd does not know). nookctl prints them on standard
/// error and exits 0. Older clients ignore the member.
public protocol NookWarningAnswer {
    var warnings: [String] { get }
}

/// The `warnings` member, or nothing when there are none (the answer is as before).
func warningsMember(_ warnings: [String]) -> [(String, JSONValue)] {
    warnings.isEmpty ? [] : [("warnings", .array(warnings.map(JSONValue.string)))]
}

extension FieldReader {
    /// The optional `warnings` member, read leniently: a caveat is advice, so one a client
    /// cannot read never turns a request that was done into an error.
    func warnings() -> [String] {
        value("warnings")?.items.compactMap(\.text) ?? []
    }
}

/// `enqueue`: the accepted activity's id and the module it went to.
public struct EnqueueAnswer: NookAnswer, NookWarningAnswer {
    /// The card queued, or with `inPlace` the live card changed (the first of ``updated``).
    public var id: NookActivityID
    public var module: String
    /// Done, with a caveat for the sender (an unknown icon name); absent from the JSON when none.
    public var warnings: [String]
    /// With `inPlace`: every live card changed instead of one queued, as `update` names them;
    /// absent from the JSON when the card was queued.
    public var updated: [UpdateAnswer.Change]?

    public init(id: NookActivityID, module: String, warnings: [String] = [], updated: [UpdateAnswer.Change]? = nil) {
        (self.id, self.module, self.warnings, self.updated) = (id, module, warnings, updated)
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("id", .string(id.description)), ("module", .string(module))]
        if let updated { members.append(("updated", UpdateAnswer.json(updated))) }
        return .object(members + warningsMember(warnings))
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        id = try reader.requiredID("id")
        module = try reader.requiredString("module")
        warnings = reader.warnings()
        updated = reader.value("updated") == nil ? nil : try UpdateAnswer.changes(reader)
    }
}

/// `cancel`: the activity that was cancelled.
public struct CancelAnswer: NookAnswer {
    public var cancelled: NookActivityID
    /// Set when it was already ending on its own: how it ends instead (`completed`, …).
    public var alreadyEnding: NookEndReason?

    public init(cancelled: NookActivityID, alreadyEnding: NookEndReason? = nil) { (self.cancelled, self.alreadyEnding) = (cancelled, alreadyEnding) }

    public var json: JSONValue {
        .object([("cancelled", .string(cancelled.description))] + (alreadyEnding.map { [("alreadyEnding", .string($0.rawValue))] } ?? []))
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        cancelled = try reader.requiredID("cancelled")
        alreadyEnding = try reader.oneOfIfKnown("alreadyEnding", NookEndReason.self)
    }
}

/// `cancel-all`: how many pending activities were cancelled.
public struct CancelAllAnswer: NookAnswer {
    public var cancelled: Int

    public init(cancelled: Int) { self.cancelled = cancelled }

    public var json: JSONValue { .object([("cancelled", .number(Double(cancelled)))]) }

    public init(json: JSONValue) throws(ProtocolError) {
        cancelled = try FieldReader(json, path: "result").requiredInt("cancelled")
    }
}

/// `dismiss`: the activity that was dismissed.
public struct DismissAnswer: NookAnswer {
    public var dismissed: NookActivityID
    /// Set when it was already ending on its own: how it ends instead (`completed`, …).
    public var alreadyEnding: NookEndReason?

    public init(dismissed: NookActivityID, alreadyEnding: NookEndReason? = nil) { (self.dismissed, self.alreadyEnding) = (dismissed, alreadyEnding) }

    public var json: JSONValue {
        .object([("dismissed", .string(dismissed.description))] + (alreadyEnding.map { [("alreadyEnding", .string($0.rawValue))] } ?? []))
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        dismissed = try reader.requiredID("dismissed")
        alreadyEnding = try reader.oneOfIfKnown("alreadyEnding", NookEndReason.self)
    }
}

/// `invoke`: the activity whose default action was invoked (E3); its sender hears `invoked`.
public struct InvokeAnswer: NookAnswer {
    public var invoked: NookActivityID

    public init(invoked: NookActivityID) { self.invoked = invoked }

    public var json: JSONValue { .object([("invoked", .string(invoked.description))]) }

    public init(json: JSONValue) throws(ProtocolError) {
        invoked = try FieldReader(json, path: "result").requiredID("invoked")
    }
}

/// `suspend`, `resume`, `quiesce`: the modules the operation applied to.
public struct ModulesAnswer: NookAnswer {
    public var modules: [String]

    public init(modules: [String]) { self.modules = modules }

    public var json: JSONValue { .object([("modules", .array(modules.map(JSONValue.string)))]) }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        modules = try reader.requiredArray("modules").enumerated().map { (index, item) throws(ProtocolError) in
            guard case .string(let name) = item else {
                throw ProtocolError(.wrongType, field: reader.name("modules[\(index)]"), "must be a string, got \(item.typeName)")
            }
            return name
        }
    }
}

/// `list`: per module, the activity on screen and the pending ones in presentation order.
public struct ListAnswer: NookAnswer {
    public struct Module: Sendable, Equatable {
        public var name: String
        public var current: NookActivity?
        public var pending: [NookActivity]

        public init(name: String, current: NookActivity?, pending: [NookActivity]) {
            (self.name, self.current, self.pending) = (name, current, pending)
        }
    }

    public var modules: [Module]
    /// Set when more activities follow than one answer holds (``NookProtocol/answerPageBytes``,
    /// or the request's `limit`): the `offset` of the next page, for version-1 clients that page
    /// by offset (only on the first page and on pages asked for by offset). A module whose
    /// activities span pages is in each of them, its `current` only in the first.
    public var next: Int?
    /// Set when more activities follow: the next request's `after` (``ListCursor``).
    public var cursor: String?

    /// The most activities one `list` request may ask for (`limit`).
    public static let maximumLimit = 100_000

    public init(modules: [Module], next: Int? = nil, cursor: String? = nil) { (self.modules, self.next, self.cursor) = (modules, next, cursor) }

    public var json: JSONValue {
        .object([("modules", .array(modules.map { module in
            .object([
                ("name", .string(module.name)),
                ("current", module.current.map(ActivityPayload.encode) ?? .null),
                ("pending", .array(module.pending.map(ActivityPayload.encode))),
            ])
        }))] + (next.map { [("next", .number(Double($0)))] } ?? []) + (cursor.map { [("cursor", .string($0))] } ?? []))
    }

    /// The page of `modules` starting `offset` activities in (each module's current, then its
    /// pending), as many as fit in `budget` up to `limit`, at least one. The first page names
    /// every module, even empty ones; later pages only those they hold activities of.
    public static func page(of modules: [Module], offset: Int, budget: Int = NookProtocol.answerPageBytes, limit: Int = .max) -> ListAnswer {
        let total = modules.reduce(0) { $0 + ($1.current == nil ? 0 : 1) + $1.pending.count }
        var page: [Module] = []
        var start = 0, bytes = 0, end = offset, full = false
        for module in modules {
            let items = (module.current.map { [$0] } ?? []) + module.pending
            var slice = Module(name: module.name, current: nil, pending: [])
            for index in items.indices where !full && start + index >= offset {
                let size = ActivityPayload.encode(items[index]).serializedBytes.count + 1
                if end > offset && (bytes + size > budget || end - offset >= limit) { full = true; break }
                bytes += size
                end = start + index + 1
                if index == 0 && module.current != nil { slice.current = items[index] } else { slice.pending.append(items[index]) }
            }
            if offset == 0 || slice.current != nil || !slice.pending.isEmpty { page.append(slice) }
            start += items.count
        }
        return ListAnswer(modules: page, next: end < total ? end : nil)
    }

    /// Adds a later page's activities to their modules (`seen`: the ids listed so far; an
    /// activity that moved between two pages is listed once).
    public mutating func join(_ page: ListAnswer, seen: inout Set<NookActivityID>) {
        for part in page.modules {
            if !modules.contains(where: { $0.name == part.name }) { modules.append(Module(name: part.name, current: nil, pending: [])) }
            guard let index = modules.firstIndex(where: { $0.name == part.name }) else { continue }
            if modules[index].current == nil, let current = part.current, seen.insert(current.id).inserted { modules[index].current = current }
            modules[index].pending += part.pending.filter { seen.insert($0.id).inserted }
        }
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        modules = try reader.requiredObjects("modules").map { (module) throws(ProtocolError) in
            Module(name: try module.requiredString("name"),
                   current: try module.value("current").map { (value) throws(ProtocolError) in try ActivityPayload.decode(value, path: module.name("current")) },
                   pending: try module.requiredArray("pending").enumerated().map { (index, value) throws(ProtocolError) in
                       try ActivityPayload.decode(value, path: module.name("pending[\(index)]"))
                   })
        }
        next = try reader.count("next")
        cursor = try reader.string("cursor")
    }
}

/// `watch`: the stream of events follows this answer.
public struct WatchAnswer: NookAnswer {
    public init() {}
    public var json: JSONValue { .object([("watching", .bool(true))]) }
    public init(json: JSONValue) throws(ProtocolError) {
        guard try FieldReader(json, path: "result").bool("watching") == true else {
            throw ProtocolError(.missingField, field: "result.watching", "is required")
        }
    }
}

/// `snapshot`: the frame on the glass as a PNG.
public struct SnapshotAnswer: NookAnswer {
    public var width: Int
    public var height: Int
    public var png: [UInt8]

    public init(width: Int, height: Int, png: [UInt8]) { (self.width, self.height, self.png) = (width, height, png) }

    public var json: JSONValue {
        .object([("width", .number(Double(width))), ("height", .number(Double(height))), ("png", .string(Base64.encode(png)))])
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        width = try reader.requiredInt("width")
        height = try reader.requiredInt("height")
        guard let png = Base64.decode(try reader.requiredString("png")) else {
            throw ProtocolError(.invalid, field: "result.png", "is not Base64")
        }
        self.png = png
    }
}

/// `frame` (V1): the glass as a PNG, upright as drawn, and its generation (which grows by one
/// each time a new frame is presented).
public struct FrameAnswer: NookAnswer {
    public var generation: Int
    public var width: Int
    public var height: Int
    public var png: [UInt8]
    /// The PNG in Base64 as it travels: nookd encodes it once per generation for every client.
    public var pngBase64: String

    public init(generation: Int, width: Int, height: Int, png: [UInt8], pngBase64: String? = nil) {
        (self.generation, self.width, self.height, self.png) = (generation, width, height, png)
        self.pngBase64 = pngBase64 ?? Base64.encode(png)
    }

    public var json: JSONValue {
        .object([("generation", .number(Double(generation))), ("width", .number(Double(width))), ("height", .number(Double(height))),
                 ("png", .string(pngBase64))])
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        generation = try reader.requiredCount("generation")
        width = try reader.requiredCount("width")
        height = try reader.requiredCount("height")
        pngBase64 = try reader.requiredString("png")
        guard let png = Base64.decode(pngBase64) else {
            throw ProtocolError(.invalid, field: "result.png", "is not Base64")
        }
        self.png = png
    }
}

/// `home`: the home content now shown when no activity is.
public struct HomeAnswer: NookAnswer {
    public var home: String

    public init(home: String) { self.home = home }

    public var json: JSONValue { .object([("home", .string(home))]) }

    public init(json: JSONValue) throws(ProtocolError) {
        home = try FieldReader(json, path: "result").requiredString("home")
    }
}

/// `quiet` (Z1): whether the board is quiet now, why (`schedule` or `manual`, absent when
/// neither applies), until when this state lasts by itself (`"tue 07:00"`, local time; absent
/// for `quiet on` or with no schedule) and the lowest priority that still takes the glass.
public struct QuietAnswer: NookAnswer {
    public var quiet: Bool
    public var source: NookQuietHours.Source?
    public var until: String?
    public var minimum: NookActivityPriority

    public init(quiet: Bool, source: NookQuietHours.Source?, until: String?, minimum: NookActivityPriority) {
        (self.quiet, self.source, self.until, self.minimum) = (quiet, source, until, minimum)
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("quiet", .bool(quiet))]
        if let source { members.append(("source", .string(source.rawValue))) }
        if let until { members.append(("until", .string(until))) }
        members.append(("minimum", .string(minimum.description)))
        return .object(members)
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        guard let quiet = try reader.bool("quiet") else { throw ProtocolError(.missingField, field: reader.name("quiet"), "is required") }
        self.quiet = quiet
        source = try reader.oneOfIfKnown("source", NookQuietHours.Source.self)
        until = try reader.string("until")
        let lowest = try reader.requiredString("minimum")
        guard let minimum = NookActivityPriority(name: lowest) else {
            throw ProtocolError(.invalid, field: reader.name("minimum"), "must be low, normal or high; got '\(lowest)'")
        }
        self.minimum = minimum
    }

    /// One line for a person: `quiet (schedule) until tue 07:00; high and above show`.
    public var summary: String {
        let state = quiet ? "quiet" : "not quiet"
        let why = source.map { " (\($0.rawValue))" } ?? ""
        let end = until.map { quiet ? " until \($0)" : (source == nil ? "; next quiet from \($0)" : " until \($0)") } ?? ""
        return "\(state)\(why)\(end); while quiet, \(minimum) and above show"
    }
}

/// `focus`: the foreground module before and after, and whether the old one let go in time.
public struct FocusAnswer: NookAnswer {
    public var from: String?
    public var to: String
    public var preparedInTime: Bool

    public init(from: String?, to: String, preparedInTime: Bool) { (self.from, self.to, self.preparedInTime) = (from, to, preparedInTime) }

    public var json: JSONValue {
        .object([("from", from.map(JSONValue.string) ?? .null), ("to", .string(to)), ("preparedInTime", .bool(preparedInTime))])
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        from = try reader.string("from")
        to = try reader.requiredString("to")
        preparedInTime = try reader.requiredBool("preparedInTime")
    }
}

/// `update`: the activities changed (one for an update by id; for one by key, each that had
/// it) and, per activity, the fields whose values changed (U1).
public struct UpdateAnswer: NookAnswer, NookWarningAnswer {
    public struct Change: Sendable, Equatable {
        public var id: NookActivityID
        public var fields: [String]
        /// On the glass (redrawn in place) rather than pending.
        public var onScreen: Bool

        public init(id: NookActivityID, fields: [String], onScreen: Bool) { (self.id, self.fields, self.onScreen) = (id, fields, onScreen) }
    }

    public var updated: [Change]
    /// Done, with a caveat for the sender (an unknown icon name); absent from the JSON when none.
    public var warnings: [String]

    public init(updated: [Change], warnings: [String] = []) { (self.updated, self.warnings) = (updated, warnings) }

    public var json: JSONValue { .object([("updated", Self.json(updated))] + warningsMember(warnings)) }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        updated = try Self.changes(reader)
        warnings = reader.warnings()
    }

    /// `updated` as this answer and an in-place enqueue's write it.
    static func json(_ changes: [Change]) -> JSONValue {
        .array(changes.map { change in
            .object([("id", .string(change.id.description)), ("fields", .array(change.fields.map(JSONValue.string))),
                     ("onScreen", .bool(change.onScreen))])
        })
    }

    /// `updated` as this answer and an in-place enqueue's read it.
    static func changes(_ reader: FieldReader) throws(ProtocolError) -> [Change] {
        try reader.requiredObjects("updated").map { (item) throws(ProtocolError) in
            Change(id: try item.requiredID("id"), fields: try item.requiredArray("fields").compactMap(\.text),
                   onScreen: try item.bool("onScreen") ?? false)
        }
    }
}
