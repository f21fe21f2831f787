import Foundation
@testable import NookDaemon
import NookConfig
import NookProtocol
import NookTestTraits
import Testing

/// B1 in nookd: `[sound]` names the output, chosen once at start; `status` and `nookctl status`
/// say how it fares; a missing device is a log line and a status field, never a failed start or
/// a card that does not show.
@Suite("B1 nookd's sound output", .serialized, .ownThreads)
struct SoundServiceTests {
    func parse(_ text: String) throws -> DaemonConfig {
        try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml")))
    }

    @Test func b1_theOutputIsNoneUnlessNookTomlNamesOneAndADeviceNeedsAnOutput() throws {
        #expect(try parse("").sound == Service.Sound.Settings(output: .none, device: nil))
        #expect(try parse("[sound]\noutput = \"beeper\"\n").sound == Service.Sound.Settings(output: .beeper, device: nil))
        #expect(try parse("[sound]\noutput = \"alsa\"\ndevice = \"plughw:CARD=Device\"\n").sound
            == Service.Sound.Settings(output: .alsa, device: "plughw:CARD=Device"))
        let refusals = [
            ("[sound]\noutput = \"speaker\"\n", "sound.output"),
            ("[sound]\ndevice = \"hw:0\"\n", "names a device for no output"),
            ("[sound]\noutput = \"alsa\"\ndevice = \"\"\n", "must name an ALSA PCM or an event device"),
        ]
        for (text, words) in refusals {
            #expect(throws: ConfigError.self, "\(text)") { try parse(text) }
            do { _ = try parse(text) } catch { #expect("\(error)".contains(words), "\(error)") }
        }
    }

    @Test func b1_statusCarriesTheSoundMemberBothWaysAndNookctlSaysIt() throws {
        let sound = StatusAnswer.Sound(output: "alsa", device: "hw:1,0", state: "unavailable",
                                       problem: "'snd_pcm_open' failed for hw:1,0: (16) Device or resource busy", played: 2, failed: 1)
        let answer = StatusAnswer(foreground: nil, display: .init(backend: "mock", mode: "320x240", rotation: 0, theme: "default", refreshHz: 60),
                                  home: "clock", engaged: false, inputs: [], gpio: nil, modules: [], connections: 1, sound: sound)
        #expect(try StatusAnswer(json: answer.json).sound == sound)
        #expect(sound.line == "sound: alsa on hw:1,0, unavailable ('snd_pcm_open' failed for hw:1,0: (16) Device or resource busy), 2 played, 1 failed")
        #expect(StatusAnswer.Sound(output: "none", device: nil, state: "none", problem: nil, played: 0, failed: 0).line == "sound: none (no output configured)")
    }

    /// The real nookd: a PCM that does not exist is one warning and the status says why; the
    /// card still shows. Without `[sound]`, status says there is no output.
    @Test func b1_nookdWithAMissingDeviceStartsShowsCardsAndSaysWhyInStatus() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", """
            [sound]
            output = "alsa"
            device = "nook_test_no_such_pcm"

            """)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config, "--journal", "none"])
        try eventually("the output's first try") {
            try nookctl(["status"], socket: daemon.socket).output.contains("sound: alsa on nook_test_no_such_pcm, unavailable")
        }
        let status = try nookctl(["status"], socket: daemon.socket).output
        #expect(status.contains("('snd_pcm_open' failed for nook_test_no_such_pcm: (2) No such file or directory (alsa-lib: Unknown PCM nook_test_no_such_pcm))"),
                "\(status)")
        let shown = try nookctl(["enqueue", "--title", "Doorbell", "--wait"], socket: daemon.socket)
        #expect(shown.status == 0, "\(shown.error)")
        let log = try String(contentsOfFile: daemon.logPath, encoding: .utf8)
        #expect(log.components(separatedBy: "sound: alsa output unavailable").count == 2, "one line for the problem: \(log)")
        #expect(!log.contains("ALSA lib"), "alsa-lib printed beside nookd's own line: \(log)")

        let plain = try DaemonProcess(scratch: Scratch(), arguments: ["--journal", "none"])
        #expect(try nookctl(["status"], socket: plain.socket).output.contains("sound: none (no output configured)"))
    }
}
