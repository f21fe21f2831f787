import NookActivities
import NookProtocol

/// The spec's sound hints as the card's sound (B4): `sound-file` (a WAV file in nookd's
/// `sound.directory`, by its path; it wins over a name, as GNOME Shell plays it), `sound-name` (a
/// freedesktop sound name, which Nook's chimes cover with the naming spec's fallback) and
/// `suppress-sound` (silence, even the priority's sound, winning over both). A hint that does
/// not play is a note; the notification is never lost for it. Whether the file plays is nookd's
/// to say: the bridge sends its path, and where nookd refuses it, the card again without it
/// (``withoutFile(_:_:)``).
enum NotificationSound {
    /// The card's sound: a chime's name, a WAV file's path, "" for silence, nil for its priority's.
    static func sound(for call: NotifyCall, priority: NookActivityPriority, notes: inout [String], withFile: Bool = true) -> String? {
        let suppress = NotificationMapping.flag("suppress-sound", in: call, notes: &notes) ?? false
        let file = withFile ? self.file(in: call, suppress: suppress, priority: priority, notes: &notes) : nil
        var sound: String? = suppress ? "" : file
        switch call.hints["sound-name"] {
        case .string(let name)? where suppress:
            notes.append("hint sound-name '\(NotificationMapping.clipped(name))' not played: suppress-sound asks for silence, which wins")
        case .string(let name)?:
            if let chime = CardSound.chime(named: name) {
                if let file {
                    notes.append("hint sound-name '\(NotificationMapping.clipped(name))' plays only if nookd does not play "
                                 + "sound-file '\(NotificationMapping.clipped(file))': a file wins")
                } else {
                    sound = chime
                }
            } else {
                notes.append("hint sound-name '\(NotificationMapping.clipped(name))' not played: Nook has no chime by that name "
                             + "(docs/sound.md lists them); " + (file.map { "sound-file '\(NotificationMapping.clipped($0))' plays" }
                                                                   ?? CardSound.instead(priority)))
            }
        case nil: break
        case let other?: notes.append("hint sound-name ignored: not a string (\(other)); " + CardSound.instead(priority))
        }
        return sound
    }

    /// `sound-file` as the path nookd is sent, or nil with a note: silenced, not a local path,
    /// not a WAV file. Whether it is in `sound.directory` and plays is nookd's check.
    private static func file(in call: NotifyCall, suppress: Bool, priority: NookActivityPriority, notes: inout [String]) -> String? {
        switch call.hints["sound-file"] {
        case nil: return nil
        case .string(let given)?:
            let shown = "hint sound-file '\(NotificationMapping.clipped(given))' not played"
            if suppress {
                notes.append("\(shown): suppress-sound asks for silence, which wins")
            } else if let path = NotificationMapping.localPath(given), path.lowercased().hasSuffix(".wav") {
                return path
            } else {
                notes.append("\(shown): Nook plays a WAV file from its sound directory (sound.directory in nook.toml), named by its "
                             + "absolute path or file:// URI; \(fallback(call, priority))")
            }
        case let other?: notes.append("hint sound-file ignored: not a string (\(other))")
        }
        return nil
    }

    /// The card's sound where nookd refused the file: the other hints' (their notes said already).
    static func withoutFile(_ call: NotifyCall, _ priority: NookActivityPriority) -> String? {
        var said: [String] = []
        return sound(for: call, priority: priority, notes: &said, withFile: false)
    }

    /// What plays where the file does not: the words a note ends with.
    static func fallback(_ call: NotifyCall, _ priority: NookActivityPriority) -> String {
        switch withoutFile(call, priority) {
        case ""?: "the card is silent, as suppress-sound asks"
        case let chime?: "sound-name '\(chime)' plays instead"
        case nil: CardSound.instead(priority)
        }
    }
}
