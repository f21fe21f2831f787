import NookActivities

/// The fields a client sets on an activity: the one declaration that the wire codec
/// (``ActivityPayload``), nookctl's options and the error messages are derived from or checked
/// against (`ActivityFieldTests`), so adding a field is this list, its codec line and its
/// `nookctl enqueue` option.
public enum ActivityField: String, CaseIterable, Sendable {
    case id, title, subtitle, icon, tint, key, priority, dwell, blocker, timeout, expiresAfter, progress, transition, endDelay, transient, action, sound, soundRepeat

    /// The key in a request's `activity` object.
    public var wireName: String { rawValue }

    /// `nookctl enqueue`'s option for the field; nil where nookctl offers none (animation
    /// timings are for library users and the protocol).
    public var flag: String? {
        switch self {
        case .transition, .endDelay: nil
        case .expiresAfter: "--expires-after"
        case .soundRepeat: "--sound-repeat"
        default: "--" + rawValue
        }
    }

    /// False for the fields that are flags on the command line (`--blocker`, `--transient`,
    /// `--action`).
    public var takesValue: Bool { self != .blocker && self != .transient && self != .action }

    /// The fields an update may clear (send `null`, or `nookctl update --clear FIELD`): the
    /// optional ones, and the animation timings (back to their defaults). Derived from the
    /// codec: a field absent from a bare activity's encoding.
    public var isClearable: Bool {
        ActivityPayload.encode(NookActivity(title: "x"))[wireName] == nil && takesValue
    }

    /// The fields whose values differ between two versions of an activity (the `fields` of an
    /// `updated` event, U1), read off the codec so no field is listed twice.
    public static func changed(from previous: NookActivity, to activity: NookActivity) -> [ActivityField] {
        let before = ActivityPayload.encode(previous), after = ActivityPayload.encode(activity)
        return allCases.filter { before[$0.wireName] != after[$0.wireName] }
    }

    /// How an error names the field: `activity.tint` on the wire, `--tint` on the command line.
    public static func name(ofWireField field: String, commandLine: Bool) -> String {
        guard commandLine else { return "activity." + field }
        return ActivityField(rawValue: field)?.flag ?? field
    }
}

/// Reading one field's text or number into its value, the same way for the wire and the
/// command line. Each failure is the problem without the field's name, which the caller puts
/// first in its own way (`activity.tint: must be …`, `--tint must be …`).
public enum ActivityFieldValue {
    public static func id(_ text: String) -> Result<NookActivityID, FieldProblem> {
        NookActivityID(text).map { .success($0) } ?? .failure(FieldProblem("must be a UUID (8-4-4-4-12 hexadecimal digits), got '\(text)'"))
    }

    public static func tint(_ text: String) -> Result<NookTint, FieldProblem> {
        NookTint(parsing: text).map { .success($0) } ?? .failure(FieldProblem("must be \(NookTint.accepted); got '\(text)'"))
    }

    public static func priority(_ text: String) -> Result<NookActivityPriority, FieldProblem> {
        NookActivityPriority(name: text).map { .success($0) } ?? .failure(FieldProblem("must be low, normal or high; got '\(text)'"))
    }

    /// `--sound-repeat`'s text: a count of plays, or `until-engaged`.
    public static func soundRepeat(_ text: String) -> Result<NookSoundRepeat, FieldProblem> {
        if text == NookSoundRepeat.untilEngagedWord { return .success(.untilEngaged) }
        guard let count = Int(text) else {
            return .failure(FieldProblem("must be a count of plays (1 to \(NookSoundRepeat.maximumPlays)) or \"\(NookSoundRepeat.untilEngagedWord)\"; got '\(text)'"))
        }
        return soundRepeat(.times(count))
    }

    /// The wire's value: a count of plays (a JSON number), or the string `until-engaged`.
    public static func soundRepeat(_ value: JSONValue) -> Result<NookSoundRepeat, FieldProblem> {
        switch value {
        case .number(let number):
            guard let count = NookSoundRepeat(count: number) else {
                return .failure(FieldProblem("must be a whole count of plays, got \(FieldReader.text(number))"))
            }
            return soundRepeat(count)
        case .string(let text) where text == NookSoundRepeat.untilEngagedWord: return .success(.untilEngaged)
        default:
            return .failure(FieldProblem("must be a count of plays (1 to \(NookSoundRepeat.maximumPlays)) or \"\(NookSoundRepeat.untilEngagedWord)\"; got \(value.text.map { "'\($0)'" } ?? value.typeName)"))
        }
    }

    private static func soundRepeat(_ value: NookSoundRepeat) -> Result<NookSoundRepeat, FieldProblem> {
        value.problem.map { .failure(FieldProblem($0)) } ?? .success(value)
    }

    public static func seconds(_ number: Double) -> Result<Duration, FieldProblem> {
        Duration.nookSeconds(number).map { .success($0) } ?? .failure(FieldProblem("must be a finite number of seconds, got \(number)"))
    }
}

/// What is wrong with a field's value, without the field's name.
public struct FieldProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
