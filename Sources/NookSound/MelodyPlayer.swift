import NookActivities

/// A melody played on an injected clock (habit 4): ``update(now:sink:)`` hands the sink every
/// tone that is due, ``nextDeadline(after:)`` says when to call it next. A value, no task and
/// no sleeping, so a test steps it on a manual clock and a service runs it in its own loop.
///
/// A melody may be played several times (AWTRIX's `loopSound`, LaMetric's `repeat`), with a
/// pause between plays, but never for ever: at most ``maximumPlays`` plays and
/// ``maximumLength`` in all. ``stop(now:sink:)`` ends it early.
public struct MelodyPlayer: Sendable {
    public static let maximumPlays = 100
    public static let maximumLength: Duration = .seconds(15 * 60)
    public static let maximumPause: Duration = .seconds(60)

    public let melody: Melody
    public let plays: Int
    public let pause: Duration
    public let started: NookInstant
    /// How long before it is due a step is handed over: zero for a beeper, an output buffer's
    /// worth for a PCM writer.
    public let lead: Duration
    /// Each tone's start from the start of a play, and last the play's length.
    private let offsets: [Duration]
    private var play = 1
    /// The next step to hand over: a tone's index, or `melody.tones.count` for the pause.
    private var index = 0
    public private(set) var isFinished = false
    /// Tones passed over because the player was updated after they had ended.
    public private(set) var skippedTones = 0
    /// Tones passed over and not yet said to the sink.
    private var pendingSkipped = 0

    public init(_ melody: Melody, plays: Int = 1, pause: Duration = .zero, lead: Duration = .zero,
                startingAt start: NookInstant) throws(SoundError) {
        guard (1...Self.maximumPlays).contains(plays) else {
            throw SoundError("\(plays) plays of a melody: 1 to \(Self.maximumPlays) are played")
        }
        guard pause >= .zero, pause <= Self.maximumPause else {
            throw SoundError("a pause of \(pause) between plays: 0 to \(Self.maximumPause) is kept")
        }
        let length = Self.length(of: melody)
        let total = length * plays + pause * (plays - 1)
        guard total <= Self.maximumLength else {
            throw SoundError("\(plays) plays of '\(melody.name)' last \(total), longer than \(Self.maximumLength)")
        }
        (self.melody, self.plays, self.pause, self.lead, started) = (melody, plays, pause, max(.zero, lead), start)
        var offsets: [Duration] = []
        var elapsed = Duration.zero
        for tone in melody.tones {
            offsets.append(elapsed)
            elapsed += .milliseconds(max(0, tone.milliseconds))
        }
        self.offsets = offsets + [elapsed]
        skipEmptyPlays()
    }

    /// How many plays (with `pause` between) fill `duration`, within the bounds: a melody
    /// repeated until someone engages or an escalation ends, which is stopped then.
    public static func plays(filling duration: Duration, with melody: Melody, pause: Duration = .zero) -> Int {
        plays(filling: duration, length: length(of: melody), pause: pause)
    }

    /// The same for a sound `length` long (a WAV file's samples).
    public static func plays(filling duration: Duration, length: Duration, pause: Duration = .zero) -> Int {
        guard length + pause > .zero else { return 1 }
        // Capped before it becomes an Int: an hour, or a year, asked for is still 100 plays at most.
        let wanted = ((duration + pause) / (length + pause)).rounded(.up)
        var count = wanted >= Double(maximumPlays) ? maximumPlays : max(1, Int(wanted))
        while count > 1, length * count + pause * (count - 1) > maximumLength { count -= 1 }
        return count
    }

    static func length(of melody: Melody) -> Duration { .milliseconds(melody.tones.reduce(0) { $0 + max(0, $1.milliseconds) }) }

    /// When the last play ends, unless stopped.
    public var end: NookInstant { started + playLength * plays + pause * (plays - 1) }

    private var playLength: Duration { offsets[melody.tones.count] }

    /// Hands `sink` every step due by `now` (less the lead), passing over those already ended,
    /// and the ending once the last has ended.
    public mutating func update(now: NookInstant, sink: inout some MelodySink) {
        guard !isFinished else { return }
        while var step = current(), step.start - lead <= now {
            advance()
            guard step.end > step.start else { continue }
            guard step.end > now else {
                // Passed over, but said with the next step or the ending, never dropped.
                (pendingSkipped, skippedTones) = (pendingSkipped + 1, skippedTones + 1)
                continue
            }
            (step.skipped, pendingSkipped) = (pendingSkipped, 0)
            sink.play(step)
        }
        if current() == nil, now >= end {
            isFinished = true
            sink.end(MelodyEnding(reason: .finished, at: end, skipped: pendingSkipped))
            pendingSkipped = 0
        }
    }

    /// When ``update(now:sink:)`` has something to do: the next step's hand-over, or the end;
    /// `now` if that has passed; nil once finished.
    public func nextDeadline(after now: NookInstant) -> NookInstant? {
        guard !isFinished else { return nil }
        let due = current().map { $0.start - lead } ?? end
        return max(due, now)
    }

    /// Ends the melody now: the sink is told, and nothing more plays.
    public mutating func stop(now: NookInstant, sink: inout some MelodySink) {
        guard !isFinished else { return }
        isFinished = true
        sink.end(MelodyEnding(reason: .stopped, at: now, skipped: pendingSkipped))
        pendingSkipped = 0
    }

    /// The step at the cursor, or nil when every play has been handed over.
    private func current() -> MelodyStep? {
        guard play <= plays else { return nil }
        let playStart = started + (playLength + pause) * (play - 1)
        if index < melody.tones.count {
            return MelodyStep(tone: melody.tones[index], index: index, play: play, start: playStart + offsets[index],
                              end: playStart + offsets[index + 1], skipped: 0)
        }
        let pauseStart = playStart + playLength
        return MelodyStep(tone: Tone(frequency: 0, milliseconds: Int(pause / .milliseconds(1))), index: nil, play: play,
                          start: pauseStart, end: pauseStart + pause, skipped: 0)
    }

    private mutating func advance() {
        index += 1
        skipEmptyPlays()
    }

    /// Moves the cursor past the end of a play: a play is its tones, then the pause if another
    /// play follows and there is a pause.
    private mutating func skipEmptyPlays() {
        while play <= plays, index >= melody.tones.count + (play < plays && pause > .zero ? 1 : 0) {
            (play, index) = (play + 1, 0)
        }
    }
}
