import NookActivities

/// The fields an `update` changes (U1): a JSON object with any of an activity's fields
/// (``ActivityField``, all but `id`), each set to its new value or to `null` to clear an
/// optional one. Applied through the activity's own codec, so a field is never declared twice
/// and a bad value is refused with the same words as in an `enqueue`, naming `changes.FIELD`.
public struct ActivityChanges: Hashable, Sendable {
    public private(set) var members: [(String, JSONValue)]

    public static func == (lhs: Self, rhs: Self) -> Bool { JSONValue.object(lhs.members) == JSONValue.object(rhs.members) }
    public func hash(into hasher: inout Hasher) { hasher.combine(JSONValue.object(members)) }

    /// Every field but `id`, and a bridge's `iconFallback` beside a new icon (M3): built once,
    /// not per update.
    private static let changeableFields = Set(ActivityField.allCases.filter { $0 != .id }.map(\.wireName) + ["iconFallback"])

    /// Reads and checks the object: known fields only, `null` only for the clearable ones,
    /// and every value of the type its field takes (checked against a stand-in activity).
    public init(json: JSONValue, path: String = "changes") throws(ProtocolError) {
        let reader = try FieldReader(json, path: path)
        try reader.rejectUnknown(Self.changeableFields)
        for (key, value) in reader.object where value == .null {
            guard ActivityField(rawValue: key)?.isClearable == true else {
                throw ProtocolError(.invalid, field: reader.name(key), "cannot be cleared (null); give it a value")
            }
        }
        members = reader.object
        // Types and ranges are checked now, on a stand-in, so a bad request changes nothing
        // and is refused before nookd looks for the activity.
        let standIn = NookActivity(title: "x", presentation: reader.value("timeout") == nil ? .timed : .blocker(timeout: nil))
        _ = try applied(to: standIn, path: path)
    }

    /// Changes built in code (nookctl): the members as they go on the wire.
    public init(members: [(String, JSONValue)]) {
        self.members = members
    }

    /// Every field an update sets so that a live card becomes `activity` (an in-place enqueue,
    /// a bridge's "replace"): its fields but `id` and `key`, each optional field it lacks
    /// cleared (`null`), each flag it lacks false (a timed card turns a blocker timed).
    public static func replacing(with activity: NookActivity) -> ActivityChanges {
        guard case .object(let encoded) = ActivityPayload.encode(activity) else { return ActivityChanges(members: []) }
        var members = encoded.filter { $0.0 != ActivityField.id.wireName && $0.0 != ActivityField.key.wireName }
        for field in clearedWhenAbsent where !members.contains(where: { $0.0 == field }) {
            members.append((field, .null))
        }
        // A flag it lacks is set false (a blocker turns timed, an action or transience goes).
        for flag in flags where !members.contains(where: { $0.0 == flag }) {
            members.append((flag, .bool(false)))
        }
        return ActivityChanges(members: members)
    }

    /// The optional fields a replacement clears when it lacks them: all but the key it is found by.
    private static let clearedWhenAbsent = ActivityField.allCases.filter { $0.isClearable && $0 != .key }.map(\.wireName)
    /// The fields that are flags (`blocker`, `transient`, `action`), which the codec leaves out when false.
    private static let flags = ActivityField.allCases.filter { !$0.takesValue }.map(\.wireName)

    public var json: JSONValue { .object(members) }

    /// The fields this names, in the order ``ActivityField`` declares them.
    public var fields: [ActivityField] {
        ActivityField.allCases.filter { field in members.contains { $0.0 == field.wireName } }
    }

    /// `activity` with the changes applied and validated; the error names `PATH.FIELD`.
    /// `blocker: false` makes it timed and drops its timeout (unless one is given, which is
    /// then refused as for an enqueue); a `timeout` alone keeps a blocker a blocker.
    public func applied(to activity: NookActivity, path: String = "changes") throws(ProtocolError) -> NookActivity {
        guard case .object(var merged) = ActivityPayload.encode(activity) else { return activity }
        for (key, value) in members {
            merged.removeAll { $0.0 == key }
            if key == "blocker", value == .bool(false), !members.contains(where: { $0.0 == "timeout" }) {
                merged.removeAll { $0.0 == "timeout" }
            }
            if value != .null { merged.append((key, value)) }
        }
        var changed = try ActivityPayload.decode(.object(merged), path: path)
        changed.sender = activity.sender
        return changed
    }
}
