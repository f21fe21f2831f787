import NookActivities

/// The sound keys of an AWTRIX notification as its card's sound (B4), as AWTRIX 3 plays them
/// (`Overlays.cpp`): `sound` names a melody file on the clock, `rtttl` is a melody's text, and
/// with both `rtttl` plays (it starts after `sound` and cuts it off). A sound Nook cannot play is
/// a note, never a refusal: the card is shown without it. `loopSound` repeats the sound until the
/// card is engaged (B2: AWTRIX repeats it until the notification is dismissed). AWTRIX plays no
/// sound for a custom app, and says nothing; Nook says so (``customAppNote(_:)``).
enum AWTRIXSound {
    static let fields = ["sound", "rtttl", "loopSound"]

    /// The card's sound from `value`'s keys, nil for none (the card's priority's sound), and its
    /// repeat; what does not play is a note.
    static func read(_ value: JSONValue, notes: inout [String]) -> (sound: String?, soundRepeat: NookSoundRepeat?) {
        let instead = CardSound.instead(.normal)
        let name = text(value["sound"], field: "sound", notes: &notes)
        let melody = text(value["rtttl"], field: "rtttl", notes: &notes)
        var sound: String?
        if let melody {
            if let fault = CardSound.rtttlFault(melody) {
                notes.append("rtttl not played: \(fault)" + (name == nil ? "; " + instead : ""))
            } else {
                sound = melody
            }
        }
        if let name {
            if sound != nil {
                notes.append("sound '\(AWTRIXApp.shown(name))' not played: rtttl was given too, which AWTRIX plays instead")
            } else if let chime = CardSound.chime(named: name) {
                sound = chime
            } else {
                // AWTRIX's MELODIES are the clock's own files (a DFPlayer's, numbered MP3s).
                notes.append("sound '\(AWTRIXApp.shown(name))' not played: Nook has no chime by that name (docs/sound.md lists them;"
                             + " a melody of the clock's own comes as rtttl); " + instead)
            }
        }
        var soundRepeat: NookSoundRepeat?
        switch value["loopSound"] {
        case .bool(true)? where name == nil && melody == nil:
            notes.append("loopSound ignored: no sound or rtttl to repeat")
        case .bool(true)? where sound == nil:
            // The priority's sound is not the one the sender asked to hear again and again.
            notes.append("loopSound ignored: the sound it would repeat does not play")
        case .bool(true)?: soundRepeat = .untilEngaged
        case .bool(false)?, nil, .null?: break
        case let other?: notes.append("loopSound ignored: must be true or false, got \(other.typeName)")
        }
        return (sound, soundRepeat)
    }

    /// A key's text: a string (empty is none, as AWTRIX reads it), a number as its digits (a
    /// DFPlayer's MP3 is a number); any other value is a note.
    private static func text(_ value: JSONValue?, field: String, notes: inout [String]) -> String? {
        switch value {
        case .string(let text)?: return text.isEmpty ? nil : text
        case .number(let number)? where number == number.rounded() && abs(number) < 1e9: return String(Int(number))
        case nil, .null?: return nil
        case let other?:
            notes.append("\(field) ignored: must be a string, got \(other.typeName)")
            return nil
        }
    }

    /// What a custom app's sound keys get: AWTRIX plays a sound with a notification only.
    static func customAppNote(_ keys: [String]) -> String? {
        let given = keys.filter(fields.contains)
        guard !given.isEmpty else { return nil }
        return "\(given.joined(separator: ", ")) not played: AWTRIX plays a sound with a notification only, never with a custom app "
            + "(send it to /api/notify or PREFIX/notify with the card it comes with)"
    }
}
