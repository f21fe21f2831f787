import NookActivities

/// The wire form of an activity (C1) and its conversion to and from ``NookActivity``.
///
/// Fields: `title` (required), `subtitle`, `icon`, `tint`, `key`, `priority`
/// (`low`/`normal`/`high`), `dwell`, `blocker`, `timeout`, `expiresAfter`, `progress`,
/// `transition`, `endDelay` (seconds), `transient` (bool: not kept in the history), `action`
/// (bool: the card has a default action the open input invokes, E3), `sound` (a chime's name or
/// an RTTTL string or a WAV file's name in the sound directory, played as it slides in, empty
/// for none, B4), `soundRepeat` (how many times it plays: a count, or `"until-engaged"`, B2) and `id` (a UUID, assigned
/// if absent), `iconFallback` (a built-in icon name drawn when `icon` is neither built in nor
/// a file in an icon directory, M3).
public enum ActivityPayload {
    /// `iconFallback` is a bridge's, read at enqueue and gone from the card nookd holds (M3),
    /// so not one of the fields an update or nookctl sets.
    static let fields = Set(ActivityField.allCases.map(\.wireName) + ["iconFallback"])

    /// Decodes and validates, naming `activity.FIELD` in any error.
    /// - Parameter clampingText: cut text fields to ``NookActivity/Limits`` instead of refusing
    ///   them: for records nookd wrote itself (journal, history), which an older nookd may
    ///   have accepted under looser limits and which must still come back.
    public static func decode(_ value: JSONValue, path: String = "activity", clampingText: Bool = false) throws(ProtocolError) -> NookActivity {
        let reader = try FieldReader(value, path: path)
        try reader.rejectUnknown(fields)
        var title = try reader.requiredString("title")
        if clampingText { title = NookActivity.Limits.title.clamped(title) }
        func parsed<Value>(_ key: ActivityField, _ result: Result<Value, FieldProblem>) throws(ProtocolError) -> Value {
            switch result {
            case .success(let value): return value
            case .failure(let problem): throw ProtocolError(.invalid, field: reader.name(key.wireName), problem.description)
            }
        }
        let id = try reader.string("id").map { (text) throws(ProtocolError) in try parsed(.id, ActivityFieldValue.id(text)) }
        // A fresh id only when the client sent none: drawing one costs randomness (IDRandomness).
        var activity = NookActivity(id: id ?? NookActivityID(), title: title)
        activity.subtitle = try reader.string("subtitle")
        activity.systemImage = try reader.string("icon")
        activity.coalescingKey = try reader.string("key")
        activity.iconFallback = try reader.string("iconFallback")
        activity.sound = try reader.string("sound")
        if clampingText {
            activity.subtitle = activity.subtitle.map(NookActivity.Limits.subtitle.clamped)
            activity.systemImage = activity.systemImage.map(NookActivity.Limits.systemImage.clamped)
            activity.coalescingKey = activity.coalescingKey.map(NookActivity.Limits.coalescingKey.clamped)
            activity.sound = activity.sound.map(NookActivity.Limits.sound.clamped)
        }
        if let text = try reader.string("tint") { activity.tint = try parsed(.tint, ActivityFieldValue.tint(text)) }
        if let text = try reader.string("priority") { activity.priority = try parsed(.priority, ActivityFieldValue.priority(text)) }
        func seconds(_ key: ActivityField) throws(ProtocolError) -> Duration? {
            guard let number = try reader.number(key.wireName) else { return nil }
            return try parsed(key, ActivityFieldValue.seconds(number))
        }
        if let dwell = try seconds(.dwell) { activity.dwell = dwell }
        if let transition = try seconds(.transition) { activity.transition = transition }
        if let endDelay = try seconds(.endDelay) { activity.endDelay = endDelay }
        activity.expiresAfter = try seconds(.expiresAfter)
        let timeout = try seconds(.timeout)
        if try reader.bool("blocker") == true {
            activity.presentation = .blocker(timeout: timeout)
        } else if timeout != nil {
            throw ProtocolError(.invalid, field: reader.name("timeout"), "applies only to blockers (\"blocker\": true)")
        }
        if let value = reader.value(ActivityField.soundRepeat.wireName) {
            activity.soundRepeat = try parsed(.soundRepeat, ActivityFieldValue.soundRepeat(value))
        }
        activity.progress = try reader.number("progress")
        activity.isTransient = try reader.bool("transient") ?? false
        activity.hasAction = try reader.bool("action") ?? false
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
        if let fallback = activity.iconFallback { members.append(("iconFallback", .string(fallback))) }
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
        if activity.isTransient { members.append(("transient", .bool(true))) }
        if activity.hasAction { members.append(("action", .bool(true))) }
        if let sound = activity.sound { members.append(("sound", .string(sound))) }
        switch activity.soundRepeat {
        case .times(let count)?: members.append(("soundRepeat", .number(Double(count))))
        case .untilEngaged?: members.append(("soundRepeat", .string(NookSoundRepeat.untilEngagedWord)))
        case nil: break
        }
        return .object(members)
    }
}
