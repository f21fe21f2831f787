import NookActivities

extension AWTRIXDevice.Request {
    /// Whether this request plays a sound (`sound`, `rtttl`): nookd's `sound-play`.
    public var playsSound: Bool { self == .sound || self == .rtttl }
}

extension AWTRIXDevice {
    /// The priority AWTRIX's sounds are played at: an AWTRIX clock has none, and a sound sent on
    /// its own is no more urgent than a notification sent without one.
    public static let soundPriority = NookActivityPriority.normal

    /// A `sound` or `rtttl` body read as AWTRIX reads it (M1, B4), as the sound nookd plays, at
    /// ``soundPriority`` and the volume nook.toml sets (AWTRIX's routes take none), with the
    /// remarks for the answer. `sound` takes `{"sound": "alarm"}` or, as AWTRIX's `parseSound`
    /// falls back to when the body is not JSON, the name as plain text; a name plays Nook's chime
    /// of that name (docs/sound.md: AWTRIX's example names are among them). `rtttl` takes the
    /// RTTTL string as the body, or `{"rtttl": "…"}` as the `awtrix-light-client` package sends it.
    /// An empty body asks for nothing: nil, which is not done (``nothingToPlay(_:)``).
    public static func sound(_ request: Request, body: [UInt8]) throws(ProtocolError) -> (request: SoundRequest?, remarks: [String]) {
        // Read otherwise (U+FFFD for each bad byte), a name or melody would not be the one sent.
        guard let decoded = String(validating: body, as: UTF8.self) else {
            throw ProtocolError(.invalid, field: "body", "is not UTF-8 text: send \(shape(of: request))")
        }
        let text = decoded.trimmingWhitespace
        guard !text.isEmpty else { return (nil, []) }
        let field = request.label
        var (sound, remarks) = (text, [String]())
        if text.hasPrefix("{") {
            let value: JSONValue
            (value, remarks) = try AWTRIXFields.parse(body, kind: "a \(field) request is {\"\(field)\": \"…\"}")
            guard case .object(let members) = value else { throw ProtocolError(.wrongType, field: "body", "must be a JSON object, got \(value.typeName)") }
            switch value[field] {
            case .string(let given)?: sound = given.trimmingWhitespace
            case .number(let number)? where request == .sound: sound = FieldReader.text(number)
            case nil, .null?: throw ProtocolError(.missingField, field: field, "is required: \(shape(of: request))")
            case let other?: throw ProtocolError(.wrongType, field: field, "must be a string, got \(other.typeName)")
            }
            let unknown = members.map(\.0).filter { $0 != field }
            if !unknown.isEmpty { remarks.append("unknown fields (not AWTRIX's), ignored: \(unknown.map(AWTRIXApp.shown).joined(separator: ", "))") }
        } else if text.hasPrefix("\"") || text.hasPrefix("[") {
            // Quoted, it looks like the name alone; it is JSON, and AWTRIX finds no sound in it.
            let kind = text.hasPrefix("[") ? "a JSON array" : "a JSON string, quotes and all"
            throw ProtocolError(.wrongType, field: "body", "is \(kind): send \(shape(of: request))\(request == .sound ? " (no quotes)" : "")")
        }
        guard !sound.isEmpty else { throw ProtocolError(.missingField, field: field, "is required: \(shape(of: request))") }
        // nookd's protocol carries no NUL: the sender is told, not a 502 blaming nookd.
        if let at = sound.unicodeScalars.firstIndex(of: "\u{0}") {
            throw ProtocolError(.invalid, field: field, "has a NUL (U+0000) at character \(sound.unicodeScalars.distance(from: sound.unicodeScalars.startIndex, to: at) + 1)")
        }
        // A colon is what tells an RTTTL string from a name (SoundText): each route plays its own.
        if request == .sound, sound.contains(":") {
            throw ProtocolError(.invalid, field: field, "names a melody ('\(AWTRIXApp.shown(sound))' has a colon): an RTTTL string goes to rtttl")
        }
        if request == .rtttl, !sound.contains(":") {
            throw ProtocolError(.invalid, field: field, "is not an RTTTL string (name:d=4,o=5,b=100:notes): a melody's name ('\(AWTRIXApp.shown(sound))') goes to sound")
        }
        return (SoundRequest(sound: sound, priority: soundPriority), remarks)
    }

    /// The line an empty body is answered with.
    public static func nothingToPlay(_ request: Request) -> String { "\(request.label): nothing to play: send \(shape(of: request))" }

    static func shape(of request: Request) -> String {
        request == .sound ? "{\"sound\": \"alarm\"}, or the name alone as the body" : "the RTTTL string as the body (name:d=4,o=5,b=100:notes)"
    }

    /// What nookd's answer to an AWTRIX sound is: played is AWTRIX's `OK`, with a line where it
    /// played otherwise than at the full volume; not played is not done, saying why.
    public static func outcome(of answer: SoundPlayAnswer, for request: Request, remarks: [String]) -> Outcome {
        guard answer.played else { return .notDone(remarks + ["\(request.label): not played: \(answer.outcome)"]) }
        return .done(remarks: remarks + (answer.outcome == "played" ? [] : ["\(request.label): \(answer.outcome)"]) + answer.warnings)
    }

    /// nookd's refusal of the sound, naming the route's own field (`rtttl`) where nookd names its `sound`.
    public static func refusal(_ error: ProtocolError, for request: Request) -> ProtocolError {
        guard error.field == "sound" else { return error }
        var named = error
        named.field = request.label
        return named
    }
}
