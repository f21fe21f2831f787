import NookActivities

/// What `sound-volume` asks (B3, M4's `PUT audio`, `nookctl sound volume`): the volume every
/// sound starts from set, or given back to nook.toml's `sound.volume`; neither: read.
public enum SoundVolumeSetting: Hashable, Sendable {
    case read
    /// 0–100 until `configured` or a restart; quiet hours and an empty room still lower it.
    case set(Int)
    /// nook.toml's `sound.volume` again.
    case configured

    static func decode(_ reader: FieldReader) throws(ProtocolError) -> SoundVolumeSetting {
        switch reader.value("volume") {
        case nil, .null?: return .read
        case .string("default")?: return .configured
        case .number(let volume)? where volume >= 0 && volume <= 100 && volume == volume.rounded():
            return .set(Int(volume))
        case let other?:
            throw ProtocolError(.invalid, field: "volume", "must be a whole number from 0 to 100, or \"default\"; got \(other.serialized.prefix(40))")
        }
    }

    var encoded: [(String, JSONValue)] {
        switch self {
        case .read: []
        case .set(let volume): [("volume", .number(Double(volume)))]
        case .configured: [("volume", .string("default"))]
        }
    }
}

/// `sound-volume`: the volume sounds start from now, nook.toml's `sound.volume`, whether it was
/// set over the API, and the output they play on; the warnings say what the volume will not do
/// (no output plays it, a beeper has no volume).
public struct SoundVolumeAnswer: NookAnswer, NookWarningAnswer {
    public var volume: Int
    public var configured: Int
    /// Set over the API, not nook.toml's.
    public var isSet: Bool
    public var output: String
    public var warnings: [String]

    public init(volume: Int, configured: Int, isSet: Bool, output: String, warnings: [String] = []) {
        (self.volume, self.configured, self.isSet, self.output, self.warnings) = (volume, configured, isSet, output, warnings)
    }

    public var json: JSONValue {
        .object([("volume", .number(Double(volume))), ("configured", .number(Double(configured))), ("set", .bool(isSet)),
                 ("output", .string(output))] + warningsMember(warnings))
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        volume = try reader.requiredInt("volume")
        configured = try reader.requiredInt("configured")
        isSet = try reader.bool("set") ?? false
        output = try reader.requiredString("output")
        warnings = reader.warnings()
    }

    /// What nookctl prints: `volume 40 (set; sound.volume is 80)`.
    public var summary: String {
        isSet ? "volume \(volume) (set; nook.toml's sound.volume is \(configured))" : "volume \(volume) (sound.volume in nook.toml)"
    }
}
