import NookActivities
import NookProtocol

/// The spec's sound hints as the card's sound (B4): `sound-name` (a freedesktop sound name,
/// which Nook's chimes cover with the naming spec's fallback), `suppress-sound` (silence, even
/// the priority's sound, winning over a name) and `sound-file` (not played: Nook plays no files
/// from a sender yet). A hint that does not play is a note; the notification is never lost for it.
enum NotificationSound {
    /// The card's sound: a chime's name, "" for silence, nil for its priority's.
    static func sound(for call: NotifyCall, priority: NookActivityPriority, notes: inout [String]) -> String? {
        let suppress = NotificationMapping.flag("suppress-sound", in: call, notes: &notes) ?? false
        var sound: String? = suppress ? "" : nil
        switch call.hints["sound-name"] {
        case .string(let name)? where suppress:
            notes.append("hint sound-name '\(NotificationMapping.clipped(name))' not played: suppress-sound asks for silence, which wins")
        case .string(let name)?:
            if let chime = CardSound.chime(named: name) {
                sound = chime
            } else {
                notes.append("hint sound-name '\(NotificationMapping.clipped(name))' not played: Nook has no chime by that name "
                             + "(docs/sound.md lists them); " + CardSound.instead(priority))
            }
        case nil: break
        case let other?: notes.append("hint sound-name ignored: not a string (\(other)); " + CardSound.instead(priority))
        }
        if case .string(let path)? = call.hints["sound-file"] {
            let instead = suppress ? "the card is silent, as suppress-sound asks" : sound.map { "sound-name '\($0)' plays" } ?? CardSound.instead(priority)
            notes.append("hint sound-file '\(NotificationMapping.clipped(path))' not played: Nook plays no sound files from a sender "
                         + "(WAV files from a sound directory are not built yet); \(instead)")
        } else if let other = call.hints["sound-file"] {
            notes.append("hint sound-file ignored: not a string (\(other))")
        }
        return sound
    }
}
