#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import NookDaemon
import NookActivities
import NookLogging
import NookProtocol
import NookSound
import NookSystem
import NookTestSupport
import NookTestTraits
import Testing

/// B3 and B4 in the sound service: what a sound with no card does to a card's sound it cuts
/// off, and what its sender is told when the output failed.
@Suite("B4 a sound with no card in the sound service", .serialized, .ownThreads)
struct SoundWithoutCardServiceTests {
    /// A minute-long note, so the card's sound is still playing when the other comes.
    let long = Melody(name: "long", tones: [Tone(frequency: 523, milliseconds: 60_000)])

    func service(_ settings: Service.Sound.Settings, notes: Locked<[(NookActivityID, String)]>) async throws -> Service.Sound {
        let service = Service.Sound(queues: [], note: { id, verdict in notes.withLock { $0.append((id, "\(verdict)")) } }, logger: Logger(label: "test"))
        try await service.start(settings)
        return service
    }

    /// A sound service on a beeper that is a FIFO (``BeeperFIFO``: a card's note still sounds
    /// when the next comes), and the notes of each card's entry.
    struct OnBeeper {
        let scratch = Scratch()
        let reader: FileDescriptor
        let notes = Locked<[(NookActivityID, String)]>([])
        let service: Service.Sound

        init(_ test: SoundWithoutCardServiceTests) async throws {
            let beeper = try BeeperFIFO(in: scratch)
            reader = beeper.reader
            service = try await test.service(Service.Sound.Settings(output: .beeper, device: beeper.path), notes: notes)
            #expect(service.current.withLock { $0 } != nil)
        }

        /// `melody` as the card `card`'s sound, as the card slides in.
        func play(_ melody: Melody, for card: NookActivityID) async {
            guard let output = service.current.withLock({ $0 }) else { return }
            _ = await service.play(.tones(melody), for: .card(card), priority: .normal, on: output)
        }

        func said(by card: NookActivityID) -> [String] { notes.withLock { $0 }.filter { $0.0 == card }.map { $0.1 } }
    }

    /// The card's entry said `played` while a sound-play had cut it off after a moment.
    @Test func b4_b3_aSoundWithNoCardThatCutsOffACardsSoundIsSaidInTheCardsEntry() async throws {
        let beeper = try await OnBeeper(self)
        let (service, notes, reader) = (beeper.service, beeper.notes, beeper.reader)
        let card = NookActivityID()
        await beeper.play(long, for: card)
        let answer = try await service.playNow(SoundRequest(sound: "doorbell"), from: 1000)
        #expect(answer.played)
        let said = notes.withLock { $0 }.filter { $0.0 == card }.map(\.1)
        #expect(said == ["played", "cut off (a sound with no card)"], "\(said)")
        // The doorbell's own end or stop is not the card's.
        #expect(service.stopPlaying(by: 1000) == "doorbell")
        #expect(notes.withLock { $0 }.filter { $0.0 == card }.count == 2)
        await service.stop()
        withExtendedLifetime(reader) {}
    }

    /// A card's sound that a newer card's cut off said `played` in its entry: it says cut off,
    /// and the newer card's says played.
    @Test func b3_aCardsSoundCutOffByANewerCardsIsSaidInItsEntry() async throws {
        let beeper = try await OnBeeper(self)
        let (first, second) = (NookActivityID(), NookActivityID())
        await beeper.play(long, for: first)
        await beeper.play(long, for: second)
        #expect(beeper.said(by: first) == ["played", "cut off (a newer card's sound)"], "\(beeper.said(by: first))")
        #expect(beeper.said(by: second) == ["played"], "\(beeper.said(by: second))")
        await beeper.service.stop()
        withExtendedLifetime(beeper.reader) {}
    }

    /// A sound handed to an output that failed the last time (alsa-lib's `file` PCM into a
    /// directory that does not exist) was answered `played`, and the sender heard nothing; it
    /// is now a warning naming the failure.
    @Test func b4_b1_aSoundHandedToAnOutputThatFailedIsSaidLikelyNotToPlay() async throws {
        let scratch = Scratch()
        let notes = Locked<[(NookActivityID, String)]>([])
        let service = try await service(Service.Sound.Settings(output: .alsa, device: "file:FILE=\(scratch.path)/missing/played.raw,FORMAT=raw"), notes: notes)
        let output = try #require(service.current.withLock { $0 })
        // alsa-lib opens the file as the first sound plays: that one fails, unknown beforehand.
        #expect(try await service.playNow(SoundRequest(sound: "doorbell"), from: 1000).warnings.isEmpty)
        try eventually("the first sound failed") { output.status.state == .unavailable }
        let answer = try await service.playNow(SoundRequest(sound: "doorbell"), from: 1000)
        #expect(answer.played, "handed over: the device is tried again")
        #expect(answer.warnings.contains { $0.hasPrefix("the alsa output on ") && $0.contains("failed the last time it was tried (")
            && $0.contains("this sound likely did not play either") }, "\(answer.warnings)")
        await service.stop()
    }
}
