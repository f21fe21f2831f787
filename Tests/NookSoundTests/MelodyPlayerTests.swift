import NookActivities
import NookSound
import NookTestSupport
import Testing

/// What a sink was told, in order.
struct RecordingSink: MelodySink {
    enum Event: Equatable {
        case play(MelodyStep)
        case end(MelodyEnding)
    }

    var events: [Event] = []
    var steps: [MelodyStep] { events.compactMap { if case .play(let step) = $0 { step } else { nil } } }
    mutating func play(_ step: MelodyStep) { events.append(.play(step)) }
    mutating func end(_ ending: MelodyEnding) { events.append(.end(ending)) }
}

/// The melody player on a test clock (B2): which tone starts when, repeats, stopping.
@Suite("B2 the melody player")
struct MelodyPlayerTests {
    static let melody = Melody(name: "three", tones: [
        Tone(frequency: 440, milliseconds: 100), Tone(frequency: 0, milliseconds: 50), Tone(frequency: 880, milliseconds: 200),
    ])

    static func at(_ milliseconds: Int) -> NookInstant { .origin + .milliseconds(milliseconds) }

    /// Runs `player` the way a service does: update, then sleep on the clock to the next deadline.
    static func run(_ player: inout MelodyPlayer, on clock: ManualClock, sink: inout RecordingSink, until stop: Int? = nil) {
        player.update(now: clock.now, sink: &sink)
        // Bounded, so a player that stops moving fails the test instead of hanging it.
        for _ in 0..<1_000 {
            guard let deadline = player.nextDeadline(after: clock.now) else { return }
            if let stop, deadline > at(stop) { return }
            clock.advance(by: deadline - clock.now)
            player.update(now: clock.now, sink: &sink)
        }
        Issue.record("the player was still playing after 1000 deadlines")
    }

    @Test func b2_eachToneIsHandedOverWhenItIsDue() throws {
        let clock = ManualClock()
        var player = try MelodyPlayer(Self.melody, startingAt: clock.now)
        var sink = RecordingSink()
        #expect(player.nextDeadline(after: clock.now) == clock.now)
        Self.run(&player, on: clock, sink: &sink)
        #expect(sink.events == [
            .play(MelodyStep(tone: Self.melody.tones[0], index: 0, play: 1, start: Self.at(0), end: Self.at(100), skipped: 0)),
            .play(MelodyStep(tone: Self.melody.tones[1], index: 1, play: 1, start: Self.at(100), end: Self.at(150), skipped: 0)),
            .play(MelodyStep(tone: Self.melody.tones[2], index: 2, play: 1, start: Self.at(150), end: Self.at(350), skipped: 0)),
            .end(MelodyEnding(reason: .finished, at: Self.at(350), skipped: 0)),
        ])
        #expect(clock.now == Self.at(350))
        #expect(player.isFinished && player.nextDeadline(after: clock.now) == nil)
    }

    @Test func b2_repeatsPlayWithAPauseBetweenAndNotAfter() throws {
        let clock = ManualClock()
        var player = try MelodyPlayer(Self.melody, plays: 3, pause: .milliseconds(500), startingAt: clock.now)
        var sink = RecordingSink()
        Self.run(&player, on: clock, sink: &sink)
        let steps = sink.steps
        #expect(steps.count == 3 * 3 + 2)
        #expect(steps.map(\.play) == [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3])
        #expect(steps.map(\.index) == [0, 1, 2, nil, 0, 1, 2, nil, 0, 1, 2])
        #expect(steps[3] == MelodyStep(tone: Tone(frequency: 0, milliseconds: 500), index: nil, play: 1, start: Self.at(350), end: Self.at(850), skipped: 0))
        #expect(steps[4].start == Self.at(850))
        #expect(player.end == Self.at(3 * 350 + 2 * 500))
        #expect(sink.events.last == .end(MelodyEnding(reason: .finished, at: player.end, skipped: 0)))
    }

    @Test func b2_stopEndsItAndNothingMorePlays() throws {
        let clock = ManualClock()
        var player = try MelodyPlayer(Self.melody, plays: 50, startingAt: clock.now)
        var sink = RecordingSink()
        Self.run(&player, on: clock, sink: &sink, until: 400)
        #expect(sink.steps.count == 4)
        clock.advance(by: .milliseconds(20))
        player.stop(now: clock.now, sink: &sink)
        #expect(sink.events.last == .end(MelodyEnding(reason: .stopped, at: clock.now, skipped: 0)))
        let told = sink.events.count
        player.update(now: Self.at(10_000), sink: &sink)
        player.stop(now: Self.at(10_000), sink: &sink)
        #expect(sink.events.count == told)
        #expect(player.nextDeadline(after: clock.now) == nil)
    }

    @Test func b2_tonesThatEndedBeforeAnUpdateArePassedOverAndSaid() throws {
        var player = try MelodyPlayer(Self.melody, startingAt: .origin)
        var sink = RecordingSink()
        // Woken late, in the third tone: the first two are over.
        player.update(now: Self.at(200), sink: &sink)
        #expect(sink.steps.map(\.index) == [2])
        #expect(sink.steps.first?.skipped == 2)
        #expect(player.skippedTones == 2)
        var late = try MelodyPlayer(Self.melody, startingAt: .origin)
        var lateSink = RecordingSink()
        late.update(now: Self.at(1_000), sink: &lateSink)
        #expect(lateSink.events == [.end(MelodyEnding(reason: .finished, at: Self.at(350), skipped: 3))])
    }

    @Test func b2_aLeadHandsEachToneOverEarly() throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(5))
        let start = clock.now + .milliseconds(40)
        var player = try MelodyPlayer(Self.melody, lead: .milliseconds(40), startingAt: start)
        var sink = RecordingSink()
        #expect(player.nextDeadline(after: clock.now) == clock.now)
        player.update(now: clock.now, sink: &sink)
        #expect(sink.steps.map(\.start) == [start])
        #expect(player.nextDeadline(after: clock.now) == start + .milliseconds(60))
    }

    @Test func b2_nothingRepeatsForEver() throws {
        #expect(throws: SoundError("0 plays of a melody: 1 to 100 are played")) { try MelodyPlayer(Self.melody, plays: 0, startingAt: .origin) }
        #expect(throws: SoundError("101 plays of a melody: 1 to 100 are played")) { try MelodyPlayer(Self.melody, plays: 101, startingAt: .origin) }
        let minute = Melody(name: "minute", tones: [Tone(frequency: 440, milliseconds: 60_000)])
        #expect(throws: SoundError("16 plays of 'minute' last 960.0 seconds, longer than 900.0 seconds")) {
            try MelodyPlayer(minute, plays: 16, startingAt: .origin)
        }
        #expect(throws: SoundError("a pause of 61.0 seconds between plays: 0 to 60.0 seconds is kept")) {
            try MelodyPlayer(Self.melody, plays: 2, pause: .seconds(61), startingAt: .origin)
        }
        // A repeat until someone engages, asked for an hour, is capped.
        #expect(MelodyPlayer.plays(filling: .seconds(3_600), with: Self.melody) == 100)
        #expect(MelodyPlayer.plays(filling: .seconds(3_600), with: minute) == 15)
        #expect(MelodyPlayer.plays(filling: .seconds(Int64.max / 2), with: Self.melody) == 100)
        #expect(MelodyPlayer.plays(filling: .zero, with: Self.melody) == 1)
        // Two plays and the pause between last 350 + 150 + 350 ms.
        #expect(MelodyPlayer.plays(filling: .milliseconds(850), with: Self.melody, pause: .milliseconds(150)) == 2)
        #expect(MelodyPlayer.plays(filling: .milliseconds(851), with: Self.melody, pause: .milliseconds(150)) == 3)
    }

    @Test func b2_anEmptyMelodyEndsAtOnce() throws {
        var player = try MelodyPlayer(Melody(name: "none", tones: []), plays: 3, pause: .seconds(1), startingAt: .origin)
        var sink = RecordingSink()
        player.update(now: .origin, sink: &sink)
        // Its pauses come between plays of nothing: they still keep the time.
        #expect(sink.steps.map(\.index) == [nil])
        #expect(player.end == Self.at(2_000))
    }
}
