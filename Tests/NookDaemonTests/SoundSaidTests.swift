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
}
