import NookActivities

/// A sound played with no card (B4): a chime's name or an RTTTL string, at a priority the room's
/// rules read as they read a card's (quiet hours, `sound.quiet_through`, presence), and at
/// `volume` (0–100; nil: `sound.volume`), never louder than the room allows.
public struct SoundRequest: Hashable, Sendable {
    public var sound: String
    public var priority: NookActivityPriority
    public var volume: Int?
    /// The play's own id, for a sender that may send it twice (an MQTT broker's redelivery to a
    /// bridge that restarted before it acknowledged it): nookd carries out an id once (its last
    /// 256), and answers a second request with it that it was asked for before, playing nothing
    /// (``SoundPlayAnswer/again``).
    public var playID: NookActivityID?

    public init(sound: String, priority: NookActivityPriority = .normal, volume: Int? = nil, playID: NookActivityID? = nil) {
        (self.sound, self.priority, self.volume, self.playID) = (sound, priority, volume, playID)
    }

    /// The volume's scale, Nook's (B3).
    public static let volumes = 0...100
}

/// The sounds that come with no card (B4): played now, or the one playing stopped. Neither
/// touches a queue or the glass.
public struct SoundOperations: Sendable {
    typealias Row = NookOperation.Row

    /// Plays a sound now, as the room allows: anyone who may send a card may, as a card may
    /// come with a sound.
    public let soundPlay = Row<SoundRequest>(
        .soundPlay, fields: ["sound", "priority", "volume", "playID"], answer: SoundPlayAnswer.self, command: .grouped("sound", "play"),
        make: { .soundPlay($0) },
        decode: { reader throws(ProtocolError) in
            let sound = try reader.requiredString("sound")
            guard !sound.isEmpty else { throw ProtocolError(.invalid, field: "sound", "must be a chime's name or an RTTTL string, not empty") }
            if let problem = NookActivity.Limits.sound.problem(with: sound) { throw ProtocolError(.invalid, field: "sound", problem) }
            var request = SoundRequest(sound: sound)
            if let name = try reader.string("priority") {
                guard let priority = NookActivityPriority(name: name) else {
                    throw ProtocolError(.invalid, field: "priority", "must be low, normal or high; got '\(name)'")
                }
                request.priority = priority
            }
            if let volume = try reader.number("volume") {
                guard volume >= 0, volume <= 100, volume == volume.rounded() else {
                    throw ProtocolError(.invalid, field: "volume", "must be a whole number from 0 to 100, got \(FieldReader.text(volume))")
                }
                request.volume = Int(volume)
            }
            if try reader.string("playID") != nil { request.playID = try reader.requiredID("playID") }
            return request
        },
        encode: { request in
            var fields: [(String, JSONValue)] = [("sound", .string(request.sound))]
            if request.priority != .normal { fields.append(("priority", .string(request.priority.description))) }
            if let volume = request.volume { fields.append(("volume", .number(Double(volume)))) }
            if let id = request.playID { fields.append(("playID", .string(id.description))) }
            return fields
        })

    /// Stops the sound playing, whichever it is (a card's too).
    public let soundStop = Row<Void>(.soundStop, answer: SoundStopAnswer.self, command: .grouped("sound", "stop"), .soundStop)

    /// The volume every sound starts from, set or given back to nook.toml's (a whole-device
    /// change); with no `volume`, read, which anyone may.
    public let soundVolume = Row<SoundVolumeSetting>(
        .soundVolume, fields: ["volume"], answer: SoundVolumeAnswer.self, command: .grouped("sound", "volume"),
        scope: .device("set the volume"),
        scopeOf: { $0 == .read ? .anyone : nil },
        reads: { $0 == .read },
        make: { .soundVolume($0) },
        decode: { reader throws(ProtocolError) in try SoundVolumeSetting.decode(reader) },
        encode: { $0.encoded })
}

/// `sound-play`: whether the sound was handed to the output (it then plays unless a newer sound
/// or a stop cuts it off), at what volume, and in words what became of it: `played`, `played at
/// 20 (quiet hours)`, or why it was not played (`silenced (quiet hours)`, no output, volume 0).
/// A sound Nook cannot read is no answer but a refusal naming `sound`.
public struct SoundPlayAnswer: NookAnswer, NookWarningAnswer {
    /// The melody's name: the chime's as asked, or the RTTTL string's own.
    public var sound: String
    public var played: Bool
    /// The level it started at (0–100); nil when not played.
    public var volume: Int?
    public var outcome: String
    /// Played otherwise than asked: a volume above what nook.toml allows, a beeper's one loudness.
    public var warnings: [String]
    /// The request's `playID` was asked for before (a redelivery): nothing played now.
    public var again: Bool

    public init(sound: String, played: Bool, volume: Int?, outcome: String, warnings: [String] = [], again: Bool = false) {
        (self.sound, self.played, self.volume, self.outcome, self.warnings, self.again) = (sound, played, volume, outcome, warnings, again)
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("sound", .string(sound)), ("played", .bool(played))]
        if let volume { members.append(("volume", .number(Double(volume)))) }
        members.append(("outcome", .string(outcome)))
        if again { members.append(("again", .bool(true))) }
        return .object(members + warningsMember(warnings))
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        sound = try reader.string("sound") ?? ""
        guard let played = try reader.bool("played") else { throw ProtocolError(.missingField, field: reader.name("played"), "is required") }
        self.played = played
        volume = try reader.count("volume")
        outcome = try reader.requiredString("outcome")
        again = try reader.bool("again") ?? false
        warnings = reader.warnings()
    }

    /// One line for a person: `sound 'doorbell': played at 20 (quiet hours)`,
    /// `sound 'doorbell' not played: silenced (quiet hours)`.
    public var summary: String {
        let name = sound.isEmpty ? "sound" : "sound '\(SaidText.shown(sound, scalars: 60))'"
        return played ? "\(name): \(outcome)" : "\(name) not played: \(outcome)"
    }
}

/// `sound-stop`: the sound cut off, by its melody's name, or nil when nothing was playing.
public struct SoundStopAnswer: NookAnswer {
    public var stopped: String?

    public init(stopped: String?) { self.stopped = stopped }

    public var json: JSONValue { .object([("stopped", stopped.map(JSONValue.string) ?? .null)]) }

    public init(json: JSONValue) throws(ProtocolError) {
        stopped = try FieldReader(json, path: "result").string("stopped")
    }

    public var summary: String {
        guard let stopped else { return "no sound was playing" }
        return stopped.isEmpty ? "stopped the sound playing" : "stopped '\(SaidText.shown(stopped, scalars: 60))'"
    }
}
