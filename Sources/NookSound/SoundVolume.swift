/// Nook's volume is 0–100 (B3). AWTRIX sets its player's volume 0–30 (`VOL` in its settings) and
/// LaMetric 0–100: both are read onto Nook's scale and reported back on their own.
public enum SoundVolume {
    public static let range: ClosedRange<Int> = 0...100
    public static let awtrixRange: ClosedRange<Int> = 0...30
    public static let lametricRange: ClosedRange<Int> = 0...100

    /// Nook's volume as given, or an error naming the range.
    public static func nook(_ level: Int) throws(SoundError) -> Int {
        guard range.contains(level) else { throw SoundError("volume \(level) is outside 0–100") }
        return level
    }

    /// AWTRIX's 0–30 onto 0–100, to the nearest step (30 is 100, 15 is 50, 1 is 3).
    public static func fromAWTRIX(_ level: Int) throws(SoundError) -> Int {
        guard awtrixRange.contains(level) else { throw SoundError("AWTRIX volume \(level) is outside 0–30") }
        return (level * 100 + 15) / 30
    }

    /// Nook's 0–100 as AWTRIX reports it, 0–30; reading it back gives the same AWTRIX step.
    public static func toAWTRIX(_ volume: Int) -> Int {
        (min(100, max(0, volume)) * 30 + 50) / 100
    }

    /// LaMetric's 0–100 is Nook's own scale.
    public static func fromLaMetric(_ level: Int) throws(SoundError) -> Int {
        guard lametricRange.contains(level) else { throw SoundError("LaMetric volume \(level) is outside 0–100") }
        return level
    }

    public static func toLaMetric(_ volume: Int) -> Int { min(100, max(0, volume)) }
}
