import NookActivities

/// What a ``MelodyPlayer`` drives. A beeper sets its tone at each step (0 Hz for a rest) and
/// silences at the end; a PCM writer synthesises each step's samples (silence for a rest) and
/// at the end lets its buffer drain, or drops it when the melody was stopped.
public protocol MelodySink {
    /// `step.tone` is due from `step.start` to `step.end`. A player with a lead hands a step
    /// over that long before it is due, so samples can be in an output's buffer in time.
    mutating func play(_ step: MelodyStep)
    /// Nothing more plays.
    mutating func end(_ ending: MelodyEnding)
}

/// One tone of a playing melody, placed on the clock.
public struct MelodyStep: Sendable, Equatable {
    public var tone: Tone
    /// The tone's place in the melody; nil for the pause between two plays.
    public var index: Int?
    /// Which play of the melody this is, from 1.
    public var play: Int
    public var start: NookInstant
    public var end: NookInstant
    /// Tones passed over just before this one: they had ended before the player was updated.
    public var skipped: Int

    public init(tone: Tone, index: Int?, play: Int, start: NookInstant, end: NookInstant, skipped: Int) {
        (self.tone, self.index, self.play, self.start, self.end, self.skipped) = (tone, index, play, start, end, skipped)
    }
}

/// How a melody ended, and when.
public struct MelodyEnding: Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// Every play played (some tones may have been skipped: see ``MelodyPlayer/skippedTones``).
        case finished
        /// ``MelodyPlayer/stop(now:sink:)`` was called: engagement, dismissal, the room.
        case stopped
    }

    public var reason: Reason
    /// When it finished as scheduled, or when it was stopped.
    public var at: NookInstant
    /// Tones passed over at the end, after the last step played.
    public var skipped: Int

    public init(reason: Reason, at: NookInstant, skipped: Int) {
        (self.reason, self.at, self.skipped) = (reason, at, skipped)
    }
}
