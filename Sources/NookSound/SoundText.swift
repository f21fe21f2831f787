import NookActivities

/// A sound as a sender or nook.toml writes it (B2, B4): a chime's name, an RTTTL string, or a WAV
/// file's name in the sound directory, told apart by their form: an RTTTL string has colons
/// (`name:d=4,o=5,b=100:notes`), a WAV file's name ends in `.wav` and has none, and no chime's
/// name has either.
public enum SoundText {
    /// The melody `text` plays, or why it plays none: an unknown name, the RTTTL string's fault
    /// at its character, or a WAV file's name (a file is read from the sound directory, not here).
    public static func melody(_ text: String) throws(SoundError) -> Melody {
        if text.contains(":"), !namesFile(text) { return try RTTTL.parse(text) }
        // No chime's name has one, and the name is said back to the sender and logged.
        if let (index, control) = text.unicodeScalars.enumerated().first(where: { $0.element.properties.generalCategory == .control }) {
            throw SoundError("is not a chime Nook has: a control character (\(RTTTLReader.shown(control))) at character \(index + 1)")
        }
        let shown = shown(text)
        guard !namesFile(text) else {
            throw SoundError("names a WAV file ('\(shown)'), which plays only as a card's own sound, from sound.directory")
        }
        guard let melody = Chimes.melody(named: text) else {
            throw SoundError("is not a chime Nook has ('\(shown)'; docs/sound.md lists them), nor an RTTTL string (name:d=4,o=5,b=100:notes), "
                             + "nor a WAV file's name (NAME.wav)")
        }
        return melody
    }

    /// `text` as a refusal says it back: its first 60 characters, then `…` (a name may be
    /// thousands of characters long), on one line (SaidText).
    public static func shown(_ text: String) -> String { SaidText.shown(text, scalars: 60) }

    /// A folder as a refusal says it: longer than a name (a folder is the point of the refusal),
    /// still bounded.
    public static func shownFolder(_ folder: String) -> String { SaidText.shown(folder, scalars: 256) }

    /// Whether `text` names a WAV file in the sound directory: it ends in `.wav` (in any case)
    /// and has no colon, or it is an absolute path (a notification's `sound-file`, which may
    /// have one: an RTTTL string ends in a note, never in `.wav`). Whether it is a name or path
    /// that may be looked up there is ``SoundFile``'s.
    public static func namesFile(_ text: String) -> Bool {
        (text.hasPrefix("/") || !text.contains(":")) && text.utf8.count > 4 && text.utf8.suffix(4).map { $0 | 0x20 } == Array(".wav".utf8)
    }
}
