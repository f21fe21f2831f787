import NookActivities
import NookProtocol

/// LaMetric's `model.sound` as the card's sound (B4), in demetriek's two shapes: `Sound`
/// (`{category, id, repeat}`, a sound of LaMetric's own, played as the nearest chime) and
/// `SoundURL` (`{url, type, fallback}`, an MP3 to fetch, with a `Sound` for when it cannot be
/// played). What does not play is a note; the card is kept, with its priority's sound then.
/// `repeat` is a count of plays, 0 until dismissed: the card's `soundRepeat` (B2), a count cut to
/// what nookd plays (100, and 15 minutes in all), 0 until the card is engaged.
enum LaMetricSound {
    /// The categories LaMetric's sound ids come in (demetriek's `NotificationSoundCategory`).
    static let categories = ["notifications", "alarms"]

    /// The card's sound, nil for its priority's, and its repeat; `path` names the object in notes.
    static func read(_ value: JSONValue, path: String = "model.sound", priority: NookActivityPriority,
                     notes: inout [String]) -> (sound: String?, soundRepeat: NookSoundRepeat?) {
        let instead = CardSound.instead(priority)
        guard case .object(let members) = value else {
            notes.append("\(path) ignored: must be an object ({\"category\", \"id\", \"repeat\"} or {\"url\", \"fallback\"}), got \(value.typeName); " + instead)
            return (nil, nil)
        }
        let known = path == "model.sound" ? ["category", "id", "repeat", "url", "type", "fallback"] : ["category", "id", "repeat"]
        for (key, _) in members where !known.contains(key) {
            notes.append("\(path).\(SaidText.shown(key, scalars: 40)) is not a field Nook reads: ignored")
        }
        if let url = value["url"], url != .null {
            // LaMetric plays the fallback when the URL cannot be played; Nook never can.
            let shown = url.text.map { "'\(SaidText.shown($0, scalars: 60))'" } ?? url.typeName
            guard let fallback = value["fallback"], fallback != .null else {
                notes.append("\(path).url \(shown) not played: Nook fetches no sound from the network (nor plays MP3); no fallback given, so " + instead)
                return (nil, nil)
            }
            notes.append("\(path).url \(shown) not played: Nook fetches no sound from the network (nor plays MP3); its fallback plays instead")
            return read(fallback, path: path + ".fallback", priority: priority, notes: &notes)
        }
        guard let id = value["id"]?.text, !id.isEmpty else {
            notes.append("\(path).id missing or not a string: no sound of LaMetric's named; " + instead)
            return (nil, nil)
        }
        let shownID = "'\(SaidText.shown(id, scalars: 60))'"
        if let category = value["category"], category != .null {
            guard let word = category.text, categories.contains(word) else {
                let given = category.text.map { "'\(SaidText.shown($0, scalars: 40))'" } ?? category.typeName
                notes.append("\(path) \(shownID) not played: category \(given) is not one of LaMetric's (notifications, alarms); " + instead)
                return (nil, nil)
            }
        }
        guard let chime = CardSound.chime(named: id) else {
            notes.append("\(path).id \(shownID) not played: Nook has no chime for it (docs/sound.md lists LaMetric's ids); " + instead)
            return (nil, nil)
        }
        return (chime, soundRepeat(value["repeat"], of: chime, path: path, shownID: shownID, notes: &notes))
    }

    /// `repeat` for `chime`: nil for once; a count more than nookd plays is cut, said.
    private static func soundRepeat(_ value: JSONValue?, of chime: String, path: String, shownID: String,
                                    notes: inout [String]) -> NookSoundRepeat? {
        switch value {
        case nil, .null?: return nil
        case .number(let times)? where times == 0: return .untilEngaged
        case .number(let times)? where times >= 1 && times == times.rounded():
            let asked = Int(min(times, 1e9))
            // A chime always plays; were it ever not to, once is what nookd never refuses.
            let plays = CardSound.plays(asked, of: chime) ?? 1
            guard plays < asked else { return asked == 1 ? nil : .times(asked) }
            let given = times < 1e9 ? String(asked) : String(times)
            notes.append("\(path).repeat \(given): \(shownID) played \(NookSoundRepeat.times(plays)), "
                         + "as many as nookd plays (at most \(NookSoundRepeat.maximumPlays), and 15 minutes in all)")
            return plays == 1 ? nil : .times(plays)
        case let other?:
            notes.append("\(path).repeat ignored: must be a whole number (0 until dismissed), got \(other.numberValue.map { String($0) } ?? other.typeName); played once")
            return nil
        }
    }
}
