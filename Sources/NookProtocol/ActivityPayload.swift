import NookActivities

/// The wire form of an activity (C1) and its conversion to and from ``NookActivity``.
///
/// Fields: `title` (required), `subtitle`, `icon`, `tint`, `key`, `priority`
/// (`low`/`normal`/`high`), `dwell`, `blocker`, `timeout`, `expiresAfter`, `progress`,
/// `transition`, `endDelay` (seconds) and `id` (a UUID, assigned if absent).
public enum ActivityPayload {
    static let fields: Set<String> = [
        "id", "title", "subtitle", "icon", "tint", "key", "priority", "dwell", "blocker", "timeout",
        "expiresAfter", "progress", "transition", "endDelay",
    ]

    /// Decodes and validates, naming `activity.FIELD` in any error.
    public static func decode(_ value: JSONValue, path: String = "activity") throws(ProtocolError) -> NookActivity {
        let reader = try FieldReader(value, path: path)
        try reader.rejectUnknown(fields)
        let title = try reader.requiredString("title")
        var id: NookActivityID?
        if let text = try reader.string("id") {
            guard let parsed = NookActivityID(text) else { throw ProtocolError(.invalid, field: reader.name("id"), "must be a UUID (8-4-4-4-12 hexadecimal digits), got '\(text)'") }
            id = parsed
        }
        // A fresh id only when the client sent none: drawing one costs a getrandom(2) call.
        var activity = NookActivity(id: id ?? NookActivityID(), title: title)
        activity.subtitle = try reader.string("subtitle")
        activity.systemImage = try reader.string("icon")
        activity.coalescingKey = try reader.string("key")
        if let text = try reader.string("tint") {
            guard let tint = NookTint(parsing: text) else { throw ProtocolError(.invalid, field: reader.name("tint"), "must be \(NookTint.accepted); got '\(text)'") }
            activity.tint = tint
        }
        if let text = try reader.string("priority") {
            guard let priority = NookActivityPriority(name: text) else { throw ProtocolError(.invalid, field: reader.name("priority"), "must be low, normal or high; got '\(text)'") }
            activity.priority = priority
        }
        func seconds(_ key: String) throws(ProtocolError) -> Duration? {
            guard let number = try reader.number(key) else { return nil }
            guard let duration = Duration.nookSeconds(number) else { throw ProtocolError(.invalid, field: reader.name(key), "must be a finite number of seconds, got \(number)") }
            return duration
        }
        if let dwell = try seconds("dwell") { activity.dwell = dwell }
        if let transition = try seconds("transition") { activity.transition = transition }
        if let endDelay = try seconds("endDelay") { activity.endDelay = endDelay }
        activity.expiresAfter = try seconds("expiresAfter")
        let timeout = try seconds("timeout")
        if try reader.bool("blocker") == true {
            activity.presentation = .blocker(timeout: timeout)
        } else if timeout != nil {
            throw ProtocolError(.invalid, field: reader.name("timeout"), "applies only to blockers (\"blocker\": true)")
        }
        activity.progress = try reader.number("progress")
        do {
            try activity.validate()
        } catch {
            throw ProtocolError(.invalid, field: reader.name(error.field), error.problem)
        }
        return activity
    }

    public static func encode(_ activity: NookActivity) -> JSONValue {
        var members: [(String, JSONValue)] = [("id", .string(activity.id.description)), ("title", .string(activity.title))]
        if let subtitle = activity.subtitle { members.append(("subtitle", .string(subtitle))) }
        if let icon = activity.systemImage { members.append(("icon", .string(icon))) }
        members.append(("tint", .string(activity.tint.description)))
        if let key = activity.coalescingKey { members.append(("key", .string(key))) }
        members.append(("priority", .string(activity.priority.description)))
        members.append(("dwell", .number(activity.dwell.nookSeconds)))
        if case .blocker(let timeout) = activity.presentation {
            members.append(("blocker", .bool(true)))
            if let timeout { members.append(("timeout", .number(timeout.nookSeconds))) }
        }
        if let expiresAfter = activity.expiresAfter { members.append(("expiresAfter", .number(expiresAfter.nookSeconds))) }
        if let progress = activity.progress { members.append(("progress", .number(progress))) }
        if activity.transition != NookActivity.defaultTransition { members.append(("transition", .number(activity.transition.nookSeconds))) }
        if activity.endDelay != NookActivity.defaultEndDelay { members.append(("endDelay", .number(activity.endDelay.nookSeconds))) }
        return .object(members)
    }
}
