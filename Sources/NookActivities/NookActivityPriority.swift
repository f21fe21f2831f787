/// How urgent an activity is (Q1, Q2). Orders only what is pending, never what is on screen (Q3).
public enum NookActivityPriority: Int, CaseIterable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// A background cue.
    case low = 0
    /// An ordinary activity. The default.
    case normal = 1
    /// Time-sensitive; the only priority a non-foreground module may show (Q9).
    case high = 2

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The spelling used in config files, the protocol and `nookctl --priority`.
    public var description: String {
        switch self {
        case .low: "low"
        case .normal: "normal"
        case .high: "high"
        }
    }

    /// Parses `low`, `normal` or `high`.
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = match
    }
}
