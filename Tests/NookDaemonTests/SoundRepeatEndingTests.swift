@testable import NookDaemon
import NookActivities
import NookAudio
import NookLogging
import NookSound
import NookTestSupport
import Testing

/// B2: what ends a repeat, and what its entry says: a card's end stops its own repeat, never the
/// newer sound that cut it off, even when the end comes between the newer sound's start and the
/// noting of its own repeat.
@Suite("B2 what ends a repeat, and its entry")
struct SoundRepeatEndingTests {
    /// An output that runs `during` as it is handed a sound: what another task does meanwhile.
    final class HandingOutput: SoundOutput, @unchecked Sendable {
        var during: () -> Void = {}
        var played: [String] = []
        func play(_ program: SoundProgram, volume: Int) -> Bool {
            played.append(program.name)
            during()
            return true
        }
        func stop() -> Bool { true }
        func close(within bound: Duration) -> Bool { true }
        var status: SoundOutputStatus { SoundOutputStatus(output: "test", state: .playing) }
        func cannotPlay(_ program: SoundProgram) -> String? { nil }
    }

    @Test func b2_aCardDismissedAsANewerSoundStartsCutsOffNothingOfIt() async {
        let logger = Logger(label: "test")
        let repeats = SoundRepeats(escalation: nil, engagement: nil, clock: ManualClock(), logger: logger)
        let service = Service.Sound(queues: [], logger: logger, repeats: repeats)
        let output = HandingOutput()
        var first = NookActivity(priority: .normal, title: "First", presentation: .timed)
        first.soundRepeat = .times(5)
        let bell = SoundProgram.tones(Melody(name: "bell", tones: [Tone(frequency: 880, milliseconds: 500)]))
        let repeated = repeats.program(bell, for: first)
        _ = await service.play(repeated, for: .card(first.id), priority: .normal, on: output)
        repeats.started(repeated, for: first.id, activity: first, verdict: .play(volume: 80, loweredBy: nil))

        let second = NookActivity(priority: .normal, title: "Second", presentation: .timed)
        let cuts = Locked(0)
        output.during = {
            repeats.observe(NookActivityEvent(activity: first, kind: .hidden(.dismissed), at: .origin, module: "main"), cut: { cuts.withLock { $0 += 1 }; return true })
        }
        _ = await service.play(.tones(Melody(name: "chime", tones: [Tone(frequency: 440, milliseconds: 100)])), for: .card(second.id),
                               priority: .normal, on: output)
        #expect(output.played == ["bell", "chime"])
        #expect(cuts.withLock { $0 } == 0, "the first card's dismissal cut off the second card's sound")
    }

    /// B2: a repeat until engaged ends with engagement; someone engaged already as the card
    /// slides in hears it once, and the entry says why, rather than for up to 15 minutes.
    @Test func b2_aRepeatUntilEngagedPlaysOnceWhereSomeoneIsEngagedAlready() {
        let engagement = NookEngagement()
        let notes = Locked<[String]>([])
        let repeats = SoundRepeats(escalation: nil, engagement: engagement, clock: ManualClock(), logger: Logger(label: "test"),
                                   note: { _, note in notes.withLock { $0.append(note) } })
        var card = NookActivity(priority: .high, title: "Doorbell", presentation: .blocker(timeout: nil))
        card.soundRepeat = .untilEngaged
        let bell = SoundProgram.tones(Melody(name: "bell", tones: [Tone(frequency: 880, milliseconds: 500)]))
        #expect(repeats.program(bell, for: card) == .repeated(bell, SoundRepeat(.filling(NookSoundRepeat.longest))))
        engagement.set(.hover, active: true)
        let program = repeats.program(bell, for: card)
        #expect(program == bell)
        repeats.started(program, for: card.id, activity: card, verdict: .play(volume: 80, loweredBy: nil))
        #expect(notes.withLock { $0 } == ["played, once (someone was engaged already)"])
    }

    /// A dismissed card leaves the glass before it ends: its repeat until engaged, stopped as it
    /// left, is said stopped by the dismissal; one that left for another reason stays so.
    @Test func b2_aDismissedRepeatUntilEngagedIsSaidStoppedByTheDismissal() {
        let notes = Locked<[String]>([])
        let repeats = SoundRepeats(escalation: nil, engagement: nil, clock: ManualClock(), logger: Logger(label: "test"),
                                   note: { _, note in notes.withLock { $0.append(note) } })
        let bell = SoundProgram.tones(Melody(name: "bell", tones: [Tone(frequency: 880, milliseconds: 500)]))
        func event(_ card: NookActivity, _ kind: NookActivityEvent.Kind) -> NookActivityEvent {
            NookActivityEvent(activity: card, kind: kind, at: .origin, module: "main")
        }
        for (end, said) in [(NookEndReason.dismissed, "dismissed"), (.completed, "the card left the glass")] {
            var card = NookActivity(priority: .high, title: "Doorbell", presentation: .timed)
            card.soundRepeat = .untilEngaged
            repeats.started(repeats.program(bell, for: card), for: card.id, activity: card, verdict: .play(volume: 80, loweredBy: nil))
            repeats.observe(event(card, .animateOut), cut: { true })
            repeats.observe(event(card, .hidden(end)), cut: { true })
            #expect(notes.withLock { $0.last } == "played, until engaged, stopped (\(said))")
        }
    }
}
