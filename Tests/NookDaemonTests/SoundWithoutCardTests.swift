#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// B3 and B4 with no card: `nookctl sound play` and `stop`, and AWTRIX's `sound` and `rtttl`
/// topics reach the real nookd playing into alsa-lib's `file` PCM or a beeper; quiet hours
/// silence them and say so; nothing is queued, and no history entry is made (the log keeps it).
@Suite("B3 B4 a sound with no card", .serialized, .ownThreads)
struct SoundWithoutCardTests {
    func samples(_ path: String) -> Int {
        ((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()).count / 2
    }

    func status(_ daemon: DaemonProcess) throws -> String { try nookctl(["status"], socket: daemon.socket).output }

    @Test func b4_b3_nookctlSoundPlayPlaysWithNoCardAndQuietHoursSilenceItSayingWhy() throws {
        let sound = try SoundCapture()
        let (daemon, capture) = (sound.daemon, sound.capture)
        let played = try nookctl(["sound", "play", "doorbell"], socket: daemon.socket)
        #expect(played.status == 0 && played.output == "sound 'doorbell': played\n" && played.error.isEmpty, "\(played)")
        try eventually("the doorbell played") { try status(daemon).contains("1 played, 0 failed") }
        // The doorbell's two notes (a quarter and a half at 100 bpm) at 48 kHz: 1.8 s of samples.
        #expect(samples(capture) == 48_000 * 18 / 10, "\(samples(capture)) samples")
        #expect(try ListAnswer(json: daemon.request(.list(module: nil))).modules.allSatisfy { $0.current == nil && $0.pending.isEmpty })
        #expect(try nookctl(["history"], socket: daemon.socket).output.contains("the history is empty"))
        let log = try String(contentsOfFile: daemon.logPath, encoding: .utf8)
        #expect(log.contains("sound: doorbell (no card, uid \(getuid())) played"), "\(log)")


        #expect(try nookctl(["quiet", "on"], socket: daemon.socket).status == 0)
        let quiet = try nookctl(["sound", "play", "doorbell", "--priority", "high", "--volume", "50"], socket: daemon.socket)
        #expect(quiet.status == ExitCodes.notPlayed && quiet.output.isEmpty, "\(quiet)")
        #expect(quiet.error == "nookctl: sound 'doorbell' not played: silenced (quiet hours)\n", "\(quiet)")
        #expect(try status(daemon).contains("0 lowered and 1 silenced by the room"))
        let json = try nookctl(["sound", "play", "doorbell", "--json"], socket: daemon.socket)
        #expect(json.status == ExitCodes.notPlayed && json.output.contains(#""played":false"#), "\(json)")

        let gong = try nookctl(["sound", "play", "gong"], socket: daemon.socket)
        #expect(gong.status == ExitCodes.refused && gong.error.contains("sound: is not a chime Nook has ('gong'"), "\(gong)")
    }

    /// `nookctl sound stop` on a beeper, which plays in real time (the `file` PCM would have
    /// written a minute of samples before the stop came): the note sounding is silenced at once
    /// and named; with nothing playing, that is said.
    @Test func b4_nookctlSoundStopSilencesTheSoundPlayingAndNamesIt() throws {
        let scratch = Scratch()
        let beeper = try BeeperFIFO(in: scratch)
        let config = scratch.file("nook.toml", "[sound]\noutput = \"beeper\"\ndevice = \"\(beeper.path)\"\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config, "--journal", "none"])
        // A whole note at 4 bpm plays for a minute, unless stopped.
        #expect(try nookctl(["sound", "play", "long:d=1,o=5,b=4:c"], socket: daemon.socket).status == 0)
        let started = try beeper.tones { $0.contains(523) }
        #expect(started.last == 523, "the note sounds: \(started)")
        let stopped = try nookctl(["sound", "stop"], socket: daemon.socket)
        #expect(stopped.status == 0 && stopped.output == "stopped 'long'\n", "\(stopped)")
        let after = try beeper.tones { $0.contains(0) }
        #expect(after == [0], "silenced at once, not after the minute: \(after)")
        try eventually("the log line") {
            try String(contentsOfFile: daemon.logPath, encoding: .utf8).contains("sound: long (no card, uid \(getuid())) stopped by uid \(getuid())")
        }
        let again = try nookctl(["sound", "stop"], socket: daemon.socket)
        #expect(again.status == 0 && again.output == "no sound was playing\n", "\(again)")
    }

    /// AWTRIX's topics through mosquitto and nook-mqtt: `sound` plays (the bridge's log says
    /// so), and in quiet hours `rtttl` is not played, said on the error topic with the rule.
    @Test func m1_b4_b3_theAWTRIXSoundTopicPlaysAndInQuietHoursTheRTTTLTopicSaysItWasSilenced() throws {
        let played = Scratch()
        let capture = played.path + "/played.raw"
        let setup = try AWTRIXMQTTTests.Setup(nookdConfig: "[sound]\noutput = \"alsa\"\ndevice = \"file:FILE=\(capture),FORMAT=raw\"\n")
        let errors = try Subscriber(broker: setup.broker, topics: ["nook/b1/error"])
        try setup.broker.publish("nook/b1/sound", #"{"sound": "doorbell"}"#)
        try eventually("the doorbell played") { try status(setup.daemon).contains("1 played, 0 failed") }
        #expect(samples(capture) == 48_000 * 18 / 10, "\(samples(capture)) samples")
        try eventually("the bridge's log") { setup.bridge.log.contains("nook/b1/sound: done (the board is as asked): sound 'doorbell': played") }

        #expect(try nookctl(["quiet", "on"], socket: setup.daemon.socket).status == 0)
        try setup.broker.publish("nook/b1/rtttl", "two short:d=4,o=5,b=100:16e6,16e6")
        try eventually("the rtttl said") { errors.json("nook/b1/error").contains { $0["topic"]?.text == "nook/b1/rtttl" } }
        let said = errors.json("nook/b1/error").first { $0["topic"]?.text == "nook/b1/rtttl" }
        #expect(said?["code"]?.text == "notDone" && said?["message"]?.text == "not done: rtttl: not played: silenced (quiet hours)", "\(String(describing: said))")
        #expect(samples(capture) == 48_000 * 18 / 10, "nothing more was played")
    }
}
