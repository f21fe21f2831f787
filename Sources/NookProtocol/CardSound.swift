import NookActivities
import NookSound

/// A card's sound (B4), checked in one place: by nookd at enqueue and update, and by each
/// bridge before it sends a sender's sound, so a sound Nook cannot play is said there and the
/// card kept, never the whole card refused by nookd for it.
public enum CardSound {
    /// nookd's check: a name Nook has no chime for, or an RTTTL string's fault at its character,
    /// refuses the request naming `field`. Empty asks for no sound.
    public static func check(_ sound: String?, field: String) throws(ProtocolError) {
        guard let sound, !sound.isEmpty else { return }
        do throws(SoundError) {
            _ = try SoundText.melody(sound)
        } catch {
            throw ProtocolError(.invalid, field: field, error.message)
        }
    }

    /// A sender's sound name (a freedesktop name, AWTRIX's melody name, a LaMetric id) as the
    /// card's sound: the name itself when Nook has a chime for it (nookd plays it by the same
    /// table), nil when not. It is what nookd's check (``check(_:field:)``) takes as a chime: a
    /// colon would make it an RTTTL string to nookd, `.wav` a file's name, a control character a
    /// refusal, though the naming spec's fallback (`doorbell-…`) finds a chime for each.
    public static func chime(named name: String) -> String? {
        guard !name.isEmpty, !name.contains(":"), (try? SoundText.melody(name)) != nil else { return nil }
        return name
    }

    /// Why the RTTTL string `text` does not play, naming the character at fault; nil when it
    /// plays. A string without a colon is not RTTTL (nookd would read it as a chime's name).
    public static func rtttlFault(_ text: String) -> String? {
        do throws(SoundError) {
            _ = try RTTTL.parse(text)
            return nil
        } catch {
            return error.message
        }
    }
}

extension CardSound {
    /// What plays when a sender's sound does not: the words a bridge's note ends with.
    /// - Parameter priority: the card's, when the bridge knows it here.
    public static func instead(_ priority: NookActivityPriority?) -> String {
        "the card comes with its priority's sound instead (nook.toml's [sound] \(priority.map(String.init(describing:)) ?? "low, normal or high"), if set)"
    }
}

extension CardSound {
    /// B2: how many of `asked` plays of `sound` (a chime or an RTTTL string) nookd plays: at most
    /// 100, and no more than fill 15 minutes, by the rule nookd plays a count by, so a bridge
    /// sends a count nookd never refuses; nil where `sound` does not play.
    public static func plays(_ asked: Int, of sound: String) -> Int? {
        guard let melody = try? SoundText.melody(sound) else { return nil }
        return SoundRepeat(.count(asked)).count(forLength: .milliseconds(melody.milliseconds))
    }
}
