/// Ring Tone Text Transfer Language, as AWTRIX, ESPHome and the ringtone collections write it:
/// `name:d=4,o=6,b=63:8c6,8e6,4g.6,p`.
///
/// - The name may be empty; the settings `d=` (default duration), `o=` (default octave) and
///   `b=` (beats of a quarter note per minute) may be left out, in any order, each at most once.
/// - A note is `[duration] letter [#] [.] [octave] [.]`: durations 1, 2, 4, 8, 16 and 32;
///   letters c d e f g a b (h is b, as German collections write it) and p for a pause; a dot
///   makes a note half as long again, written before or after the octave as senders do.
/// - Whitespace between the parts and letter case are not significant; a trailing comma is
///   allowed. Anything else is an error naming the character (counted from 1) and the fault.
public enum RTTTL {
    /// The longest string read, in characters.
    public static let maximumLength = 4096
    /// The most notes (pauses included) in one melody.
    public static let maximumNotes = 1024
    /// The longest melody: a chime, not a concert.
    public static let maximumMilliseconds = 60_000
    public static let durations: [Int] = [1, 2, 4, 8, 16, 32]
    /// Nokia's scale is 4–7; ringtone collections and AWTRIX's melodies reach one further each way.
    public static let octaves: ClosedRange<Int> = 3...8
    public static let tempos: ClosedRange<Int> = 1...900
    public static let defaultDuration = 4
    public static let defaultOctave = 6
    public static let defaultTempo = 63

    public static func parse(_ text: String) throws(SoundError) -> Melody {
        let scalars = Array(text.unicodeScalars.prefix(maximumLength + 1))
        guard scalars.count <= maximumLength else {
            throw SoundError("RTTTL: longer than \(maximumLength) characters", position: maximumLength + 1)
        }
        var reader = RTTTLReader(scalars: scalars)
        return try reader.melody()
    }
}

/// One pass over the characters, each error naming where it is.
struct RTTTLReader {
    let scalars: [Unicode.Scalar]

    func failure(_ what: String, at index: Int) -> SoundError {
        SoundError("RTTTL: \(what) at character \(index + 1)", position: index + 1)
    }

    mutating func melody() throws(SoundError) -> Melody {
        guard let nameEnd = scalars.firstIndex(of: ":") else {
            throw failure("no ':' after the name (the form is name:d=4,o=6,b=63:notes)", at: scalars.count)
        }
        guard let settingsEnd = scalars[(nameEnd + 1)...].firstIndex(of: ":") else {
            // `d=4,o=5,b=100:c,d` is a string whose name was left out, colon and all.
            if scalars[..<nameEnd].contains("=") {
                throw failure("settings where the name should be (the form is name:d=4,o=6,b=63:notes; the name may be empty)", at: 0)
            }
            throw failure("no ':' after the settings (the form is name:d=4,o=6,b=63:notes)", at: scalars.count)
        }
        // The name goes into logs and history: no control characters.
        if let control = scalars[..<nameEnd].firstIndex(where: { $0.properties.generalCategory == .control }) {
            throw failure("a control character (\(shown(scalars[control]))) in the name", at: control)
        }
        let name = String(String.UnicodeScalarView(scalars[..<nameEnd])).trimmingSpace()
        let settings = try self.settings(in: (nameEnd + 1)..<settingsEnd)
        let tones = try notes(in: (settingsEnd + 1)..<scalars.count, settings)
        return Melody(name: name, tones: tones)
    }

    struct Settings {
        var duration = RTTTL.defaultDuration
        var octave = RTTTL.defaultOctave
        var tempo = RTTTL.defaultTempo
    }

    func settings(in range: Range<Int>) throws(SoundError) -> Settings {
        var settings = Settings()
        var seen: Set<Character> = []
        for item in fields(in: range) where !item.isEmpty {
            var at = item.lowerBound
            let key = Character(scalars[at]).lowercased().first ?? " "
            guard "dob".contains(key) else {
                throw failure("\(shown(scalars[at])) is not a setting (d=, o= and b= are)", at: at)
            }
            guard seen.insert(key).inserted else { throw failure("\(key)= is given twice", at: at) }
            at = skipSpace(from: at + 1, to: item.upperBound)
            guard at < item.upperBound, scalars[at] == "=" else { throw failure("no '=' after \(key)", at: at) }
            at = skipSpace(from: at + 1, to: item.upperBound)
            let (value, end) = try number(from: at, to: item.upperBound)
            guard let value else { throw failure("\(key)= has no number", at: at) }
            guard end == item.upperBound else { throw failure("\(shown(scalars[end])) after \(key)=\(value)", at: end) }
            switch key {
            case "d":
                guard RTTTL.durations.contains(value) else { throw failure("d=\(value) is not a duration (1, 2, 4, 8, 16 or 32)", at: at) }
                settings.duration = value
            case "o":
                guard RTTTL.octaves.contains(value) else { throw failure("o=\(value) is not an octave (3 to 8)", at: at) }
                settings.octave = value
            default:
                guard RTTTL.tempos.contains(value) else { throw failure("b=\(value) is not a tempo (1 to 900 beats a minute)", at: at) }
                settings.tempo = value
            }
        }
        return settings
    }

    func notes(in range: Range<Int>, _ settings: Settings) throws(SoundError) -> [Tone] {
        var tones: [Tone] = []
        var total = 0
        let items = fields(in: range)
        for (number, item) in items.enumerated() {
            if item.isEmpty {
                // A trailing comma is common in collections; an empty note between two is not.
                if number == items.count - 1, !tones.isEmpty { break }
                throw failure(tones.isEmpty && number == items.count - 1 ? "no notes" : "an empty note", at: item.lowerBound)
            }
            guard tones.count < RTTTL.maximumNotes else {
                throw failure("more than \(RTTTL.maximumNotes) notes", at: item.lowerBound)
            }
            let tone = try note(in: item, settings)
            total += tone.milliseconds
            guard total <= RTTTL.maximumMilliseconds else {
                throw failure("the melody passes \(RTTTL.maximumMilliseconds / 1000) s with note \(number + 1)", at: item.lowerBound)
            }
            tones.append(tone)
        }
        return tones
    }

    func note(in item: Range<Int>, _ settings: Settings) throws(SoundError) -> Tone {
        var at = item.lowerBound
        let (given, afterDuration) = try number(from: at, to: item.upperBound)
        if let given, !RTTTL.durations.contains(given) {
            throw failure("\(given) is not a duration (1, 2, 4, 8, 16 or 32)", at: at)
        }
        at = skipSpace(from: afterDuration, to: item.upperBound)
        guard at < item.upperBound else { throw failure("a duration without a note", at: at) }
        let letter = Character(scalars[at]).lowercased().first ?? " "
        let semitones: [Character: Int] = ["c": 0, "d": 2, "e": 4, "f": 5, "g": 7, "a": 9, "b": 11, "h": 11]
        guard letter == "p" || semitones[letter] != nil else {
            throw failure("\(shown(scalars[at])) is not a note (c, d, e, f, g, a, b, h or p)", at: at)
        }
        var semitone = semitones[letter] ?? 0
        at = skipSpace(from: at + 1, to: item.upperBound)
        if at < item.upperBound, scalars[at] == "#" {
            guard letter != "p" else { throw failure("a pause cannot be sharp", at: at) }
            semitone += 1
            at = skipSpace(from: at + 1, to: item.upperBound)
        }
        var dotted = false
        if at < item.upperBound, scalars[at] == "." {
            dotted = true
            at = skipSpace(from: at + 1, to: item.upperBound)
        }
        let octaveAt = at
        let (octaveGiven, afterOctave) = try number(from: at, to: item.upperBound)
        if let octaveGiven, !RTTTL.octaves.contains(octaveGiven) {
            throw failure("octave \(octaveGiven) is outside 3 to 8", at: octaveAt)
        }
        at = skipSpace(from: afterOctave, to: item.upperBound)
        if at < item.upperBound, scalars[at] == "." {
            guard !dotted else { throw failure("a note dotted twice", at: at) }
            dotted = true
            at = skipSpace(from: at + 1, to: item.upperBound)
        }
        guard at == item.upperBound else { throw failure("\(shown(scalars[at])) in a note", at: at) }
        let whole = 240_000.0 / Double(settings.tempo)
        var milliseconds = whole / Double(given ?? settings.duration)
        if dotted { milliseconds *= 1.5 }
        let frequency = letter == "p" ? 0 : Pitch.frequency(semitone: semitone, octave: octaveGiven ?? settings.octave)
        return Tone(frequency: frequency, milliseconds: Int(milliseconds.rounded()))
    }

    // MARK: Characters

    func shown(_ scalar: Unicode.Scalar) -> String { Self.shown(scalar) }

    /// A character as an error shows it: quoted, or as U+XXXX where quoting would not show it.
    static func shown(_ scalar: Unicode.Scalar) -> String {
        guard scalar.properties.generalCategory == .control || scalar.properties.isWhitespace else { return "'\(scalar)'" }
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// The comma-separated fields of `range`, each without its surrounding whitespace.
    func fields(in range: Range<Int>) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = range.lowerBound
        for index in range where scalars[index] == "," {
            result.append(trimmed(start..<index))
            start = index + 1
        }
        result.append(trimmed(start..<range.upperBound))
        return result
    }

    func trimmed(_ range: Range<Int>) -> Range<Int> {
        var (lower, upper) = (range.lowerBound, range.upperBound)
        while lower < upper, scalars[lower].properties.isWhitespace { lower += 1 }
        while upper > lower, scalars[upper - 1].properties.isWhitespace { upper -= 1 }
        // An empty field keeps its place, so an error about it names where it is.
        return lower == upper ? range.lowerBound..<range.lowerBound : lower..<upper
    }

    func skipSpace(from index: Int, to end: Int) -> Int {
        var index = index
        while index < end, scalars[index].properties.isWhitespace { index += 1 }
        return index
    }

    /// The decimal number starting at `index` (nil if none) and where it ends; at most four digits.
    func number(from index: Int, to end: Int) throws(SoundError) -> (Int?, Int) {
        var value = 0
        var cursor = index
        while cursor < end, ("0"..."9").contains(scalars[cursor]) {
            guard cursor - index < 4 else { throw failure("a number longer than four digits", at: index) }
            value = value * 10 + Int(scalars[cursor].value - 48)
            cursor += 1
        }
        return (cursor == index ? nil : value, cursor)
    }
}

extension String {
    func trimmingSpace() -> String {
        let scalars = Array(unicodeScalars)
        var (lower, upper) = (0, scalars.count)
        while lower < upper, scalars[lower].properties.isWhitespace { lower += 1 }
        while upper > lower, scalars[upper - 1].properties.isWhitespace { upper -= 1 }
        return String(String.UnicodeScalarView(scalars[lower..<upper]))
    }
}
