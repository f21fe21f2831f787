import NookActivities

/// The operations that send, change, end or act on cards (Q1–Q5, U1, E3), each on the caller's own (U3).
public struct CardOperations: Sendable {
    typealias Row = NookOperation.Row

    /// With `inPlace`, the live cards with the activity's key that it reaches (``InPlaceReach``)
    /// become this one in one call (U1: an update by key with every field, as
    /// ``ActivityChanges/replacing(with:)`` makes it), and the activity is queued only when none
    /// is live: what a bridge's "replace the card with this key" asks (an ntfy sequence),
    /// without a round trip between the two.
    public let enqueue = Row<(activity: NookActivity, module: String?, wait: Bool, inPlace: InPlaceReach?)>(
        .enqueue, fields: ["activity", "module", "wait", "inPlace", "sender"], answer: EnqueueAnswer.self, command: .subcommand,
        make: { .enqueue($0.activity, module: $0.module, wait: $0.wait, inPlace: $0.inPlace) },
        decode: { reader throws(ProtocolError) in
            guard let payload = reader.value("activity") else { throw ProtocolError(.missingField, field: "activity", "is required") }
            var activity = try ActivityPayload.decode(payload)
            activity.sender = try reader.senderName().map { NookSender(uid: 0, pid: 0, name: $0) }
            let wait = try reader.bool("wait") ?? false, inPlace = try InPlaceReach.read(reader)
            if inPlace != nil, activity.coalescingKey == nil {
                throw ProtocolError(.invalid, field: "inPlace", "applies only to an activity with a key (the live card it changes is found by key)")
            }
            if inPlace != nil, wait {
                throw ProtocolError(.invalid, field: "wait", "cannot be combined with inPlace: a card changed in place is answered at once")
            }
            return (activity, try reader.module(), wait, inPlace)
        },
        encode: { request in
            // Bridges encode thousands a second: appended, not joined from small arrays.
            var fields: [(String, JSONValue)] = [("activity", ActivityPayload.encode(request.activity))]
            if let name = request.module { fields.append(("module", .string(name))) }
            if request.wait { fields.append(("wait", .bool(true))) }
            if let reach = request.inPlace { fields.append(("inPlace", reach.json)) }
            if let sender = request.activity.sender?.name { fields.append(("sender", .string(sender))) }
            return fields
        })

    public let cancel = Row<NookActivityID>(
        .cancel, fields: ["activity", "sender"], answer: CancelAnswer.self, command: .subcommand, scope: .own,
        make: { .cancel($0) }, decode: { reader throws(ProtocolError) in try reader.requiredID("activity") }, encode: { activityField($0) })

    public let cancelAll = Row<(key: String, module: String?)>(
        .cancelAll, fields: ["key", "module", "sender"], answer: CancelAllAnswer.self, command: .subcommand, scope: .own,
        make: { .cancelAll(key: $0.key, module: $0.module) },
        decode: { reader throws(ProtocolError) in
            let key = try reader.requiredString("key")
            guard !key.isEmpty else { throw ProtocolError(.invalid, field: "key", "must not be empty") }
            return (key, try reader.module())
        },
        encode: { [("key", .string($0.key))] + moduleField($0.module) })

    /// Dismisses the given activity, or the one on screen if `nil`.
    public let dismiss = Row<NookActivityID?>(
        .dismiss, fields: ["activity", "sender"], answer: DismissAnswer.self, command: .subcommand, scope: .own,
        make: { .dismiss($0) }, decode: optionalActivity, encode: activityField)

    /// The default action of the card on the glass (E3): of the one with this id, or of whatever is on the glass.
    public let invoke = Row<NookActivityID?>(
        .invoke, fields: ["activity", "sender"], answer: InvokeAnswer.self, command: .subcommand, scope: .own,
        make: { .invoke($0) }, decode: optionalActivity, encode: activityField)

    public let update = Row<(target: UpdateTarget, changes: ActivityChanges, restartDwell: Bool)>(
        .update, fields: ["activity", "key", "module", "changes", "restartDwell", "sender"], answer: UpdateAnswer.self,
        command: .subcommand, scope: .own,
        make: { .update($0.target, changes: $0.changes, restartDwell: $0.restartDwell) },
        decode: { reader throws(ProtocolError) in
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
            return (target, parsed, restartDwell)
        },
        encode: { request in
            var fields: [(String, JSONValue)]
            switch request.target {
            case .id(let id): fields = activityField(id)
            case .key(let key, let name): fields = [("key", .string(key))] + moduleField(name)
            }
            fields.append(("changes", request.changes.json))
            if request.restartDwell { fields.append(("restartDwell", .bool(true))) }
            return fields
        })
}

/// Which live cards an in-place enqueue changes (U3), as the `inPlace` field says it.
public enum InPlaceReach: String, Hashable, Sendable {
    /// `true`: the cards an `update` by key from the same request would reach: its stated
    /// `sender`'s own, else those its connection's peer may change.
    case sender
    /// `"any"`: every card the connection's peer may change, whatever sender the request states
    /// for the card it queues: a relay acting for one of its admins (nook-http's admin tokens),
    /// as its `update` by key without a `sender` would.
    case any

    var json: JSONValue { self == .sender ? .bool(true) : .string(rawValue) }

    static func read(_ reader: FieldReader) throws(ProtocolError) -> InPlaceReach? {
        switch reader.value("inPlace") {
        case nil, .bool(false)?: return nil
        case .bool(true)?: return .sender
        case .string("any")?: return .any
        default: throw ProtocolError(.invalid, field: "inPlace", "must be true, false or \"any\"")
        }
    }
}

/// The fields several rows write and read alike.
@Sendable func moduleField(_ name: String?) -> [(String, JSONValue)] { name.map { [("module", .string($0))] } ?? [] }

@Sendable func activityField(_ id: NookActivityID?) -> [(String, JSONValue)] { id.map { [("activity", .string($0.description))] } ?? [] }

@Sendable func optionalActivity(_ reader: FieldReader) throws(ProtocolError) -> NookActivityID? {
    reader.value("activity") == nil ? nil : try reader.requiredID("activity")
}
