import NookActivities

/// B3: how loud a card's sound plays in the room as it is now. Quiet hours (a schedule, or
/// `nookctl quiet on`, Nook's do-not-disturb) and an empty room (presence says nobody is there)
/// each lower the volume to their own level, 0 being silence; the priorities nook.toml lets
/// through quiet hours keep the full volume. The lowest level that applies wins, and the
/// verdict says why, for the card's history entry and the log.
public struct RoomSoundRules: Equatable, Sendable {
    /// 0–100: a sound's volume with nothing lowering it.
    public var volume: Int
    /// 0–100: while quiet; 0 silences.
    public var quietVolume: Int
    /// Cards at or above this priority keep `volume` while quiet; nil: none do.
    public var quietThrough: NookActivityPriority?
    /// 0–100: while the room is empty; nil: an empty room changes nothing.
    public var awayVolume: Int?

    public init(volume: Int = 80, quietVolume: Int = 0, quietThrough: NookActivityPriority? = nil, awayVolume: Int? = nil) {
        (self.volume, self.quietVolume, self.quietThrough, self.awayVolume) = (volume, quietVolume, quietThrough, awayVolume)
    }

    /// What the room is like when a sound would start.
    public struct Room: Equatable, Sendable {
        public var quiet: Bool
        /// Presence is configured and says nobody is there.
        public var empty: Bool

        public init(quiet: Bool, empty: Bool) { (self.quiet, self.empty) = (quiet, empty) }
    }

    public enum Verdict: Equatable, Sendable, CustomStringConvertible {
        /// Played at `volume`; `loweredBy` names what lowered it from the full volume, if anything did.
        case play(volume: Int, loweredBy: String?)
        /// Not played, and why.
        case silenced(by: String)
        /// Played at the full volume on an output that has none (a beeper sounds or is silent),
        /// though `by` would have lowered it to `volume`.
        case notLowered(volume: Int, by: String)
        /// Played, and cut off when the room changed under it to one that silences it.
        case cutOff(by: String)

        /// For a history entry and the log: `played`, `played at 20 (quiet hours)`, `silenced (nobody there)`.
        public var description: String {
            switch self {
            case .play(_, nil): "played"
            case .play(let volume, let reason?): "played at \(volume) (\(reason))"
            case .silenced(let reason): "silenced (\(reason))"
            case .notLowered(let volume, let reason): "played at full loudness (\(reason) would play it at \(volume); the output has no volume)"
            case .cutOff(let reason): "cut off (\(reason))"
            }
        }

        /// Silenced by quiet hours or an empty room, which `status` counts as the room's doing;
        /// not a volume of 0 set in nook.toml or asked by the sender.
        public var silencedByTheRoom: Bool {
            guard case .silenced(let reason) = self else { return false }
            return reason != RoomSoundRules.volumeZero && reason != RoomSoundRules.askedZero
        }
    }

    /// Why a sound is silent when no room made it so.
    static let volumeZero = "sound.volume is 0", askedZero = "volume 0 asked"

    /// The verdict for a sound of `priority` in `room`, on an output that `hasVolume` (a beeper
    /// has none: a level the room lowers a sound to sounds at full loudness unless it is 0).
    public func verdict(for priority: NookActivityPriority, in room: Room, hasVolume: Bool) -> Verdict {
        let verdict = verdict(for: priority, in: room)
        guard !hasVolume, case .play(let level, let reason?) = verdict else { return verdict }
        return .notLowered(volume: level, by: reason)
    }

    /// The verdict for a sound asked at `asked` (0–100; nil: at `volume`), as a sound with no
    /// card is (B4): never louder than `volume`, and lowered or silenced by the room as any sound.
    /// A level the sender asked below the room's is no lowering: the verdict names none.
    public func verdict(for priority: NookActivityPriority, in room: Room, hasVolume: Bool, asked: Int?) -> Verdict {
        guard let asked, asked < volume else { return verdict(for: priority, in: room, hasVolume: hasVolume) }
        guard asked > 0 else { return .silenced(by: Self.askedZero) }
        var rules = self
        rules.volume = asked
        return rules.verdict(for: priority, in: room, hasVolume: hasVolume)
    }

    /// The verdict for a sound of `priority` in `room`.
    public func verdict(for priority: NookActivityPriority, in room: Room) -> Verdict {
        guard volume > 0 else { return .silenced(by: Self.volumeZero) }
        var level = volume, reasons: [String] = []
        if room.quiet, quietThrough.map({ priority < $0 }) ?? true, quietVolume < level {
            level = quietVolume
            reasons = ["quiet hours"]
        }
        if room.empty, let awayVolume, awayVolume <= level, awayVolume < volume {
            if awayVolume < level { reasons = [] }
            level = awayVolume
            reasons.append("nobody there")
        }
        let reason = reasons.isEmpty ? nil : reasons.joined(separator: ", ")
        return level == 0 ? .silenced(by: reason ?? "volume 0") : .play(volume: level, loweredBy: reason)
    }
}
