/// A sound as a sender or nook.toml writes it (B2, B4): a chime's name, or an RTTTL string, told
/// apart by its colons (`name:d=4,o=5,b=100:notes`; no chime's name has one).
public enum SoundText {
    /// The melody `text` plays, or why it plays none: an unknown name, or the RTTTL string's fault
    /// at its character.
    public static func melody(_ text: String) throws(SoundError) -> Melody {
        if text.contains(":") { return try RTTTL.parse(text) }
        // No chime's name has one, and the name is said back to the sender and logged.
        if let (index, control) = text.unicodeScalars.enumerated().first(where: { $0.element.properties.generalCategory == .control }) {
            throw SoundError("is not a chime Nook has: a control character (\(RTTTLReader.shown(control))) at character \(index + 1)")
        }
        guard let melody = Chimes.melody(named: text) else {
            // Said back in part: a name may be thousands of characters long.
            let shown = text.unicodeScalars.count > 60 ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(60))) + "…" : text
            throw SoundError("is not a chime Nook has ('\(shown)'; docs/sound.md lists them), nor an RTTTL string (name:d=4,o=5,b=100:notes)")
        }
        return melody
    }
}
