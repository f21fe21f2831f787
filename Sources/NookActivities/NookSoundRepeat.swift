/// How many times a card's sound plays (B2): a count (LaMetric's `repeat`), or until someone
/// engages (AWTRIX's `loopSound`): until the card is engaged, dismissed, leaves the glass or its
/// escalation ends. Never for ever: at most ``maximumPlays`` plays and ``longest`` in all.
public enum NookSoundRepeat: Hashable, Sendable, CustomStringConvertible {
    /// Played this many times in all, one play after another.
    case times(Int)
    /// Played again and again until the card is engaged, dismissed or leaves the glass, or its
    /// escalation ends; within the bounds.
    case untilEngaged

    public static let maximumPlays = 100
    public static let longest: Duration = .seconds(15 * 60)
    /// The wire's and the command line's word for ``untilEngaged``.
    public static let untilEngagedWord = "until-engaged"

    /// Its wire value read from a count or a word: nil where it is neither.
    public init?(count: Double) {
        guard let whole = Int(exactly: count) else { return nil }
        self = .times(whole)
    }

    /// What is wrong with it, or nil: a count outside 1 to ``maximumPlays``.
    public var problem: String? {
        guard case .times(let count) = self, !(1...Self.maximumPlays).contains(count) else { return nil }
        return "must be a count of plays from 1 to \(Self.maximumPlays), or \"\(Self.untilEngagedWord)\"; got \(count)"
    }

    /// `3 times`, `until engaged`.
    public var description: String {
        switch self {
        case .times(let count): count == 1 ? "once" : "\(count) times"
        case .untilEngaged: "until engaged"
        }
    }
}
