#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import NookDaemon
import NookActivities
import NookConfig
import NookLogging
import NookProtocol
import NookSystem
import NookTestSupport
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

    /// `auto` finds its own device: a device named with it would be a PCM on one board and
    /// ignored on another, so it is refused, saying how to name one.
    @Test func b1_aDeviceNamedWithAutoIsRefusedRatherThanUsedAsAPCMOrIgnored() {
        for device in ["/dev/input/event3", "plughw:CARD=Device"] {
            let text = "[sound]\noutput = \"auto\"\ndevice = \"\(device)\"\n"
            do { _ = try parse(text); Issue.record("accepted: \(text)") } catch {
                #expect("\(error)".hasPrefix("nook.toml:3: sound.device: auto finds its own device"), "\(error)")
            }
        }
    }

    /// A NUL would cut the name short where it reaches open(2) or alsa-lib: another device opened
    /// than the one written. Control characters and a blank name are refused where they are read.
    @Test func b1_aDeviceWithAControlCharacterOrOnlySpacesIsRefusedNotCutShort() {
        let refusals = [("/dev/input/event0\\u0000x", "U+0000"), ("hw:0\\u000A", "U+000A"), ("   ", "must name an ALSA PCM or an event device")]
        for (device, words) in refusals {
            let text = "[sound]\noutput = \"beeper\"\ndevice = \"\(device)\"\n"
            do { _ = try parse(text); Issue.record("accepted: \(text)") } catch {
                #expect("\(error)".hasPrefix("nook.toml:3: sound.device: ") && "\(error)".contains(words), "\(error)")
            }
        }
    }

    @Test func b1_nookctlStatusSaysWhatAutoFoundRatherThanNoOutputConfigured() {
        let sound = StatusAnswer.Sound(output: "none", device: nil, state: "none", problem: "[sound] output = \"auto\" found no sound card",
                                       played: 0, failed: 0)
        #expect(sound.line == "sound: none ([sound] output = \"auto\" found no sound card)")
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

/// B2 in nookd: each priority's sound, checked when nook.toml is read and played as its card
/// slides in.
@Suite("B1 B2 a card's sound by its priority", .serialized, .ownThreads)
struct SoundByPriorityTests {
    func parse(_ text: String) throws -> DaemonConfig {
        try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml")))
    }

    func refusal(_ text: String) -> String {
        do { _ = try parse(text); return "" } catch { return "\(error)" }
    }

    @Test func b2_eachPrioritysSoundIsAChimeOrAnRTTTLStringCheckedWhenReadAndNamedWhenWrong() throws {
        let sound = try parse("[sound]\noutput = \"alsa\"\nvolume = 40\nhigh = \"doorbell\"\nlow = \"tick:d=16,o=6,b=120:c\"\n").sound
        #expect(sound.volume == 40)
        #expect(sound.byPriority[.high]?.name == "doorbell" && sound.byPriority[.high]?.tones.isEmpty == false)
        #expect(sound.byPriority[.low]?.name == "tick" && sound.byPriority[.low]?.tones.count == 1)
        #expect(sound.byPriority[.normal] == nil)
        #expect(refusal("[sound]\noutput = \"alsa\"\nhigh = \"gong\"\n").contains("sound.high: is not a chime Nook has ('gong'"))
        #expect(refusal("[sound]\nhigh = \"doorbell\"\n").contains("sound.high: plays nowhere: set sound.output"))
        let bad = refusal("[sound]\noutput = \"beeper\"\nnormal = \"x:d=4,o=5,b=100:c,z\"\n")
        #expect(bad.hasPrefix("nook.toml:3: sound.normal: ") && bad.contains("z"), "the RTTTL error names the note: \(bad)")
        #expect(refusal("[sound]\noutput = \"alsa\"\nvolume = 101\n").contains("sound.volume"))
    }

    @Test func b2_theRecentIDsAnnounceACardOnceAndForgetTheOldest() {
        var recent = Service.RecentIDs()
        let ids = (0...Service.RecentIDs.kept).map { _ in NookActivityID() }
        let first = recent.insert(ids[0]), again = recent.insert(ids[0])
        #expect(first && !again)
        let rest = ids.dropFirst().map { recent.insert($0) }
        #expect(rest.allSatisfy { $0 })
        let forgotten = recent.insert(ids[0])
        #expect(forgotten, "the oldest is forgotten once more than \(Service.RecentIDs.kept) came after it")
    }

    /// The real nookd on alsa-lib's `file` PCM: a high card's chime reaches the samples, a
    /// normal card (no sound set) adds none.
    @Test func b2_aHighCardsChimeIsPlayedAsItSlidesIn() throws {
        let scratch = Scratch()
        let capture = scratch.path + "/played.raw"
        let config = scratch.file("nook.toml", """
            [sound]
            output = "alsa"
            device = "file:FILE=\(capture),FORMAT=raw"
            high = "doorbell"

            """)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config, "--journal", "none"])
        #expect(try nookctl(["enqueue", "--title", "Quiet", "--wait"], socket: daemon.socket).status == 0)
        #expect(try nookctl(["status"], socket: daemon.socket).output.contains(", idle"), "no sound for a normal card")
        #expect(try nookctl(["enqueue", "--title", "Doorbell", "--priority", "high", "--wait"], socket: daemon.socket).status == 0)
        try eventually("the chime played") { try nookctl(["status"], socket: daemon.socket).output.contains("1 played, 0 failed") }
        let bytes = (try? Data(contentsOf: URL(fileURLWithPath: capture))) ?? Data()
        let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        // The doorbell's two notes (a quarter and a half at 100 bpm) at 48 kHz: 1.8 s of samples.
        #expect(samples.count == 48_000 * 18 / 10, "\(samples.count) samples")
        #expect(samples.contains { $0 != 0 }, "the samples are silent")
    }
}

/// B1 at nookd's stop: the beeper is silenced before the sound service's stop returns, so the
/// process that exits after it never leaves a piezo sounding.
@Suite("B1 the sound service's stop", .serialized, .ownThreads)
struct SoundServiceStopTests {
    @Test func b1_stoppingTheServiceMidMelodyLeavesTheBeeperSilencedBeforeItReturns() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/beeper"
        #expect(mkfifo(path, 0o600) == 0)
        // The reader first, so the output's non-blocking open finds one.
        let reader = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK)
        let config = try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: """
            [sound]
            output = "beeper"
            device = "\(path)"
            high = "long:d=1,o=5,b=4:c"

            """, source: "nook.toml")))
        let melody = try #require(config.sound.byPriority[.high])
        let service = Service.Sound(queues: [], logger: Logger(label: "test"))
        try await service.start(config.sound)
        let output = try #require(service.current.withLock { $0 })
        output.play(.tones(melody), volume: 100)
        var entry = pollfd(fd: reader.rawValue, events: Int16(POLLIN), revents: 0)
        try #require(try System.poll(&entry, timeoutMilliseconds: Int32(TestBounds.duration(.seconds(30)) / .milliseconds(1))) == 1)
        await service.stop()
        // Everything the beeper was written by the time stop returned, read without waiting.
        var bytes: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 4096)
        while let count = try buffer.withUnsafeMutableBytes({ try reader.readIfReady(into: $0) }), count > 0 { bytes += buffer[..<count] }
        let tones = bytes.withUnsafeBytes { InputEvent.decode($0) }.filter { $0.type == 0x12 }.map(\.value)
        #expect(tones.first == 523 && tones.last == 0, "the tones written before stop returned: \(tones)")
    }
}
