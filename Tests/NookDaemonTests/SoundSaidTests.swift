import Foundation
@testable import NookDaemon
import NookActivities
import NookLogging
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// B4 said, not dropped: a sound a sender asks for that will never play is named in the answer,
/// whether the board cannot play it (`sound.volume = 0`) or the card has slid in already (a
/// card's sound plays as it slides in, so a new one for the card on the glass never sounds).
@Suite("B4 a sound that will not play is said", .serialized, .ownThreads)
struct SoundSaidTests {
    @Test func b4_aSoundIsSaidNotToPlayWhereTheVolumeIsZero() async throws {
        let scratch = Scratch()
        var settings = Service.Sound.Settings(output: .alsa, device: "file:FILE=\(scratch.path)/played.raw,FORMAT=raw")
        settings.volume = 0
        let service = Service.Sound(queues: [], logger: Logger(label: "test"))
        try await service.start(settings)
        #expect(service.unplayable("doorbell") == ["sound 'doorbell' will not play: sound.volume is 0 in nook.toml"])
        #expect(service.unplayable("") == [], "no sound asked for")
        await service.stop()
    }

    /// The real nookd on alsa-lib's `file` PCM: a new sound for the blocker on the glass is said
    /// not to play; for the card waiting behind it, which has yet to slide in, nothing is said.
    @Test func b4_aNewSoundForACardThatSlidInAlreadyIsSaidNotToPlay() throws {
        let daemon = try SoundCapture().daemon
        let shown = try nookctl(["enqueue", "--title", "On the glass", "--blocker"], socket: daemon.socket)
        let waiting = try nookctl(["enqueue", "--title", "Waiting"], socket: daemon.socket)
        let (onGlass, pending) = (shown.output.trimmingCharacters(in: .whitespacesAndNewlines), waiting.output.trimmingCharacters(in: .whitespacesAndNewlines))
        try eventually("the blocker on the glass") {
            try ListAnswer(json: daemon.request(.list(module: nil))).modules.first?.current?.id.description == onGlass
        }
        let late = try nookctl(["update", onGlass, "--sound", "doorbell"], socket: daemon.socket)
        #expect(late.status == 0 && late.error.contains("sound 'doorbell' will not play for \(onGlass): it slid in already"), "\(late)")
        let early = try nookctl(["update", pending, "--sound", "doorbell"], socket: daemon.socket)
        #expect(early.status == 0 && early.error.isEmpty, "\(early)")
        // A name Nook has no chime for is the request's fault, whether or not its card still lives.
        let gone = try nookctl(["update", NookActivityID().description, "--sound", "gong"], socket: daemon.socket)
        #expect(gone.status != 0 && gone.error.contains("is not a chime Nook has ('gong'"), "\(gone)")
    }

    /// B2 said, not dropped: a repeat for a card with no sound, or a new repeat for the card on
    /// the glass (its sound started as it slid in), is named in the answer; one for a card still
    /// to slide in is not.
    @Test func b2_aRepeatThatWillNotBeHeardIsSaid() throws {
        let daemon = try SoundCapture().daemon
        let silent = try nookctl(["enqueue", "--title", "Silent", "--sound", "", "--sound-repeat", "3", "--transient"], socket: daemon.socket)
        #expect(silent.status == 0 && silent.error.contains("soundRepeat (3 times) will not play: the card has no sound to repeat (sound is empty)"),
                "\(silent)")
        let unsounded = try nookctl(["enqueue", "--title", "No priority sound", "--sound-repeat", "2", "--transient"], socket: daemon.socket)
        #expect(unsounded.status == 0 && unsounded.error.contains("the card has no sound to repeat (none given, and its priority has none"),
                "\(unsounded)")
        let shown = try nookctl(["enqueue", "--title", "On the glass", "--blocker", "--priority", "high"], socket: daemon.socket)
        let onGlass = shown.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let waiting = try nookctl(["enqueue", "--title", "Waiting"], socket: daemon.socket)
        let pending = waiting.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try eventually("the blocker on the glass") {
            try ListAnswer(json: daemon.request(.list(module: nil))).modules.first?.current?.id.description == onGlass
        }
        let late = try nookctl(["update", onGlass, "--sound-repeat", "until-engaged"], socket: daemon.socket)
        #expect(late.status == 0 && late.error.contains("soundRepeat (until engaged) will not play for \(onGlass): it slid in already"), "\(late)")
        let early = try nookctl(["update", pending, "--sound", "doorbell", "--sound-repeat", "2"], socket: daemon.socket)
        #expect(early.status == 0 && early.error.isEmpty, "\(early)")
        // A new count is checked with the sound the card has, as enqueue checks it: 100 plays of 24 s pass 15 minutes.
        let long = try nookctl(["update", pending, "--sound", "long:d=1,o=5,b=30:c,c,c"], socket: daemon.socket)
        #expect(long.status == 0, "\(long)")
        let tooMany = try nookctl(["update", pending, "--sound-repeat", "100"], socket: daemon.socket)
        #expect(tooMany.status != 0 && tooMany.error.contains("100 plays of 'long' last"), "\(tooMany)")
    }
}
