/// A sound as a sender or nook.toml writes it (B2, B4): a chime's name, or an RTTTL string, told
/// apart by its colons (`name:d=4,o=5,b=100:notes`; no chime's name has one).
public enum SoundText {
    /// The melody `text` plays, or why it plays none: an unknown name, or the RTTTL string's fault
    /// at its character.
    public static func melody(_ text: String) throws(SoundError) -> Melody {
        if text.contains(":") { return try RTTTL.parse(text) }
        guard let melody = Chimes.melody(named: text) else {
            throw SoundError("is not a chime Nook has ('\(text)'; docs/sound.md lists them), nor an RTTTL string (name:d=4,o=5,b=100:notes)")
        }
        return melody
    }
}
