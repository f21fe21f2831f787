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
