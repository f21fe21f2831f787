import NookActivities
import NookProtocol

/// The retained `state` topic (E4): what is on the glass, how many wait, which blocker holds
/// the queue, whether someone is engaged, whether the queue is suspended, the home content, and
/// the sound output's state (B4: Home Assistant's siren is on while it is `playing`), and the
/// display switched on and its brightness (M1: Home Assistant's light).
public struct BoardState: Sendable, Equatable {
    public var current: NookActivity?
    public var pending: Int
    public var blocker: NookActivity?
    public var engaged: Bool
    public var suspended: Bool
    public var home: String
    /// `none`, `unknown`, `idle`, `playing` or `unavailable` (``StatusAnswer/Sound/state``).
    public var sound: String
    /// `{"on": …, "brightness": 0–255}` (``HomeAssistantLight/state(_:)``).
    public var display: JSONValue

    /// Read from `status`: the modules' sums, or only `module`'s when the bridge has one.
    public init(status: StatusAnswer, module: String?) {
        let modules = status.modules.filter { module == nil || $0.name == module }
        // The foreground module's card is the one on the glass; another's can only be there
        // as a high-priority takeover.
        let ordered = modules.sorted { ($0.name == status.foreground ? 0 : 1) < ($1.name == status.foreground ? 0 : 1) }
        current = ordered.lazy.compactMap(\.current).first
        pending = modules.reduce(0) { $0 + $1.pending }
        blocker = ordered.lazy.compactMap(\.blockedBy).first
        engaged = status.engaged
        suspended = !modules.isEmpty && modules.allSatisfy(\.suspended)
        home = status.home
        sound = status.sound?.state ?? "none"
        display = HomeAssistantLight.state(status)
    }

    /// The states the state topic is sent for this read of status: this one, after it with the
    /// sound `playing` where a sound began and ended since the last read (`plays`, the output's
    /// `played`, grew) and neither read saw it play. A sound shorter than the bridge's reading of
    /// status (a chime of 20 ms) would otherwise never turn Home Assistant's siren on (B4).
    public func afterUnseenSound(plays: Int?, playsBefore: Int?, publishedSound: String?) -> [BoardState] {
        guard Self.soundUnseen(plays: plays, playsBefore: playsBefore, sound: sound, publishedSound: publishedSound) else { return [self] }
        var heard = self
        heard.sound = "playing"
        return [heard, self]
    }

    /// Whether a sound began and ended unseen: more played than at the last read, and neither
    /// the state published last nor this one says `playing`. Nil counts (no output, or the first
    /// read on a connection to nookd) and fewer (nookd started again) are no sound, and so is
    /// one with no state published this session (`publishedSound` nil: the bridge has just come
    /// back to the broker): a sound nobody could hear then is not announced late, when an
    /// automation on the siren would act on it as if it were now.
    static func soundUnseen(plays: Int?, playsBefore: Int?, sound: String, publishedSound: String?) -> Bool {
        guard let plays, let playsBefore, let publishedSound else { return false }
        return plays > playsBefore && sound != "playing" && publishedSound != "playing"
    }

    public var json: JSONValue {
        .object([
            ("current", current.map(ActivityPayload.encode) ?? .null),
            ("pending", .number(Double(pending))),
            ("blocker", blocker.map(ActivityPayload.encode) ?? .null),
            ("engaged", .bool(engaged)),
            ("suspended", .bool(suspended)),
            ("home", .string(home)),
            ("sound", .string(sound)),
            ("display", display),
        ])
    }
}
