/// The built-in named sounds (B2): the freedesktop sound names notification senders set
/// (`sound-name`), LaMetric's sound ids and AWTRIX's example names, each a short melody.
public enum Chimes {
    /// Every name a sender may give, sorted: the chimes, then the names played as one of them.
    public static let names: [String] =
        (Array(melodies.keys) + Array(freedesktopAliases.keys) + Array(awtrixExamples.keys) + Array(lametricSounds.keys)).sorted()

    /// The chimes themselves, sorted, without the names played as one of them: what a list to
    /// choose from offers (Home Assistant's siren tones).
    public static var chimeNames: [String] { melodies.keys.sorted() }

    /// The chime a name plays, or nil for an unknown name. Case is not significant. A name not
    /// listed falls back as the freedesktop sound naming spec says, dropping its last
    /// `-part` until one is found (`message-new-instant-work` plays `message-new-instant`).
    public static func chime(for name: String) -> String? {
        var candidate = name.lowercased()
        while true {
            if melodies[candidate] != nil { return candidate }
            if let chime = freedesktopAliases[candidate] ?? awtrixExamples[candidate] ?? lametricSounds[candidate] { return chime }
            guard let dash = candidate.lastIndex(of: "-") else { return nil }
            candidate = String(candidate[..<dash])
        }
    }

    /// The melody a name plays, named as asked; nil for an unknown name.
    public static func melody(named name: String) -> Melody? {
        guard let chime = chime(for: name), let text = melodies[chime], var melody = try? RTTTL.parse(text) else { return nil }
        melody.name = name
        return melody
    }
}
