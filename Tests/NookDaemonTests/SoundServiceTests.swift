#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import NookDaemon
import NookActivities
import NookConfig
import NookLogging
import NookProtocol
import NookSound
import NookSystem
import NookTestSupport
import NookTestTraits
import Testing

/// nook.toml's text read as nookd reads it at start.
private func parse(_ text: String) throws -> DaemonConfig {
    try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml")))
}

/// Why nookd refuses nook.toml's text; empty when it reads.
private func refusal(_ text: String) -> String {
    do { _ = try parse(text); return "" } catch { return "\(error)" }
}

/// B1 in nookd: `[sound]` names the output, chosen once at start; `status` and `nookctl status`
/// say how it fares; a missing device is a log line and a status field, never a failed start or
/// a card that does not show.
@Suite("B1 nookd's sound output", .serialized, .ownThreads)
struct SoundServiceTests {
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

    /// B4: a play id is carried out once per uid for two minutes: another uid's flood does not
    /// push it out, and after the window (a broker that lost its session reuses packet ids) a new
    /// message with it plays.
    @Test func b4_aPlayIDIsKeptPerUIDForTwoMinutes() {
        var ids = Service.PlayIDs()
        let start = NookInstant(sinceOrigin: .seconds(1))
        let id = NookActivityID()
        let first = ids.insert(id, uid: 0, now: start), again = ids.insert(id, uid: 0, now: start + .seconds(119))
        #expect(first && !again)
        let otherUID = ids.insert(id, uid: 1000, now: start + .seconds(1))
        #expect(otherUID, "another uid's own")
        for _ in 0..<1000 { _ = ids.insert(NookActivityID(), uid: 65534, now: start + .seconds(2)) }
        let afterFlood = ids.insert(id, uid: 0, now: start + .seconds(3))
        #expect(!afterFlood, "a flood from another uid pushes out none of uid 0's")
        let later = ids.insert(id, uid: 0, now: start + .seconds(120))
        #expect(later, "two minutes on, it is a new message's")
        var own = Service.PlayIDs()
        let oldest = NookActivityID()
        _ = own.insert(oldest, uid: 0, now: start)
        for _ in 0..<Service.PlayIDs.kept { _ = own.insert(NookActivityID(), uid: 0, now: start) }
        let pushedOut = own.insert(oldest, uid: 0, now: start)
        #expect(pushedOut, "a uid's own oldest goes after \(Service.PlayIDs.kept)")
    }

    @Test func b2_theRecentIDsAnnounceACardOnceAndForgetTheOldest() {
        var recent = Service.Recent<NookActivityID>()
        let ids = (0...Service.Recent<NookActivityID>.kept).map { _ in NookActivityID() }
        let first = recent.insert(ids[0]), again = recent.insert(ids[0])
        #expect(first && !again)
        let rest = ids.dropFirst().map { recent.insert($0) }
        #expect(rest.allSatisfy { $0 })
        let forgotten = recent.insert(ids[0])
        #expect(forgotten, "the oldest is forgotten once more than \(Service.Recent<NookActivityID>.kept) came after it")
    }

    /// The real nookd on alsa-lib's `file` PCM: a high card's chime reaches the samples, a
    /// normal card (no sound set) adds none.
    @Test func b2_aHighCardsChimeIsPlayedAsItSlidesIn() throws {
        let sound = try SoundCapture("high = \"doorbell\"")
        let (daemon, capture) = (sound.daemon, sound.capture)
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
        let beeper = try BeeperFIFO(in: Scratch())
        let reader = beeper.reader
        let config = try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: """
            [sound]
            output = "beeper"
            device = "\(beeper.path)"
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

/// B3 in nookd: quiet hours (`nookctl quiet on` here) lower or silence a card's sound as nook.toml
/// says, `status` counts what the room changed, and the card's history entry says what became of
/// its sound.
@Suite("B3 the room decides a card's sound in nookd", .serialized, .ownThreads)
struct SoundInTheRoomTests {
    @Test func b3_quietAndAwayLevelsAreReadAndAnAwayLevelWithoutPresenceIsRefused() throws {
        #expect(try parse("[sound]\noutput = \"alsa\"\n").sound.room == RoomSoundRules(volume: 80, quietVolume: 0, quietThrough: nil, awayVolume: nil))
        let pir = "[gpio.pir]\nline = \"NOOK_PIR\"\nrole = \"presence\"\n\n"
        let set = try parse(pir + "[sound]\noutput = \"alsa\"\nvolume = 70\nquiet_volume = 15\nquiet_through = \"high\"\naway_volume = 40\n").sound.room
        #expect(set == RoomSoundRules(volume: 70, quietVolume: 15, quietThrough: .high, awayVolume: 40))
        #expect(refusal("[sound]\noutput = \"alsa\"\naway_volume = 40\n")
            == "nook.toml:3: sound.away_volume: needs presence: proximity.presence_threshold, or a [gpio.NAME] table with role = \"presence\" (a PIR sensor)")
        #expect(refusal("[sound]\noutput = \"alsa\"\nquiet_through = \"blocker\"\n").contains("sound.quiet_through"))
        #expect(refusal("[sound]\noutput = \"alsa\"\nquiet_volume = 101\n").contains("sound.quiet_volume"))
    }

    @Test func b3_statusCountsWhatTheRoomChangedAndAnOlderNookdsAnswerStillReads() throws {
        let sound = StatusAnswer.Sound(output: "beeper", device: "/dev/input/event1", state: "idle", problem: nil, played: 3, failed: 0, lowered: 1, silenced: 2)
        let answer = StatusAnswer(foreground: nil, display: .init(backend: "mock", mode: "320x240", rotation: 0, theme: "default", refreshHz: 60),
                                  home: "clock", engaged: false, inputs: [], gpio: nil, modules: [], connections: 1, sound: sound)
        #expect(try StatusAnswer(json: answer.json).sound == sound)
        #expect(sound.line == "sound: beeper on /dev/input/event1, idle, 3 played, 0 failed, 1 lowered and 2 silenced by the room")
        // A nookd from before B3 sends neither count.
        let older = answer.json.serialized.replacingOccurrences(of: #","lowered":1,"silenced":2"#, with: "")
        #expect(older != answer.json.serialized)
        let read = try StatusAnswer(json: JSONValue.parse(Array(older.utf8))).sound
        #expect(read?.lowered == 0 && read?.silenced == 0 && read?.played == 3)
        // sound.volume, which LaMetric's audio block shows (M4), reads back; nil when not said.
        var loud = answer
        loud.sound?.volume = 60
        #expect(try StatusAnswer(json: loud.json).sound?.volume == 60 && read?.volume == nil)
    }

    @Test func b3_theHistoryEntryKeepsWhatBecameOfTheSound() throws {
        let activity = NookActivity(priority: .high, title: "Doorbell")
        let entry = HistoryEntry(number: 4, activity: activity, module: "default", enqueuedAt: 1_764_120_000, shownAt: 1_764_120_001,
                                 endedAt: 1_764_120_009, ending: "completed", onGlass: true, sound: "silenced (quiet hours)")
        #expect(try HistoryEntry(json: entry.json) == entry)
        var plain = entry
        plain.sound = nil
        #expect(try HistoryEntry(json: plain.json).sound == nil)
        #expect(!"\(plain.json)".contains("sound"))
    }

    /// The peak of the 16-bit samples alsa-lib's `file` PCM wrote to `path`; 0 if none.
    func peak(_ path: String) -> Int {
        let bytes = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
        return bytes.withUnsafeBytes { $0.bindMemory(to: Int16.self).map { abs(Int($0)) }.max() ?? 0 }
    }

    func enqueue(_ daemon: DaemonProcess, _ title: String) throws -> String {
        let result = try nookctl(["enqueue", "--title", title, "--priority", "high", "--dwell", "0.2"], socket: daemon.socket)
        #expect(result.status == 0, "\(result)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func historyShows(_ id: String, _ words: String, _ daemon: DaemonProcess) throws {
        try eventually("\(id)'s entry") {
            let shown = try nookctl(["history", "show", id], socket: daemon.socket)
            return shown.status == 0 && shown.output.contains(words)
        }
    }

    /// The real nookd on alsa-lib's `file` PCM, at volume 100 (the synthesiser's peak, 26,000):
    /// quiet, the chime plays at quiet_volume 50, a quarter of that amplitude on the volume's
    /// square curve; not quiet, at the full peak. Each says so in history and status.
    @Test func b3_quietHoursLowerTheChimeToTheirLevelAndTheFullVolumeComesBack() throws {
        let sound = try SoundCapture("volume = 100\nquiet_volume = 50\nhigh = \"doorbell\"")
        let (daemon, capture) = (sound.daemon, sound.capture)
        #expect(try nookctl(["quiet", "on"], socket: daemon.socket).status == 0)
        let lowered = try enqueue(daemon, "Doorbell at night")
        try eventually("the lowered chime played") { try nookctl(["status"], socket: daemon.socket).output.contains("1 played, 0 failed, 1 lowered and 0 silenced") }
        #expect(abs(peak(capture) - 6_500) <= 130, "peak \(peak(capture)), a quarter of 26,000")
        try historyShows(lowered, "sound: played at 50 (quiet hours)", daemon)

        #expect(try nookctl(["quiet", "off"], socket: daemon.socket).status == 0)
        let full = try enqueue(daemon, "Doorbell by day")
        try eventually("the full chime played") { try nookctl(["status"], socket: daemon.socket).output.contains("2 played, 0 failed, 1 lowered") }
        #expect(abs(peak(capture) - 26_000) <= 260, "peak \(peak(capture))")
        try historyShows(full, "sound: played", daemon)
    }

    /// B3, M4: the volume set over the socket (`nookctl sound volume`, LaMetric's `PUT audio`) is
    /// what the next chime starts from, on the square curve as `sound.volume` is, until `default`
    /// gives nook.toml's back; status says it is set, and a refused volume changes nothing.
    @Test func b3_m4_aVolumeSetIsWhatTheNextChimePlaysAtUntilDefaultGivesBackNookTomls() throws {
        let sound = try SoundCapture("volume = 100\nhigh = \"doorbell\"")
        let (daemon, capture) = (sound.daemon, sound.capture)
        let set = try nookctl(["sound", "volume", "50"], socket: daemon.socket)
        #expect(set.status == 0 && set.output == "volume 50 (set; nook.toml's sound.volume is 100)\n", "\(set)")
        #expect(try nookctl(["status"], socket: daemon.socket).output.contains("volume set to 50"))
        _ = try enqueue(daemon, "Doorbell, softly")
        try eventually("the chime played") { try nookctl(["status"], socket: daemon.socket).output.contains("1 played, 0 failed") }
        #expect(abs(peak(capture) - 6_500) <= 130, "peak \(peak(capture)), a quarter of 26,000")
        for bad in ["101", "-1", "loud"] {
            let refused = try nookctl(["sound", "volume", bad], socket: daemon.socket)
            #expect(refused.status != 0 && refused.error.contains("the volume must be 0 to 100, or default; got '\(bad)'"), "\(bad): \(refused)")
        }
        let back = try nookctl(["sound", "volume", "default"], socket: daemon.socket)
        #expect(back.status == 0 && back.output == "volume 100 (sound.volume in nook.toml)\n", "\(back)")
        _ = try enqueue(daemon, "Doorbell, loud")
        try eventually("the full chime played") { try nookctl(["status"], socket: daemon.socket).output.contains("2 played, 0 failed") }
        #expect(abs(peak(capture) - 26_000) <= 260, "peak \(peak(capture))")
        // Read by anyone; a sound asking for more than the volume set is told.
        #expect(try nookctl(["sound", "volume"], socket: daemon.socket).output == "volume 100 (sound.volume in nook.toml)\n")
        #expect(try nookctl(["sound", "volume", "0"], socket: daemon.socket).status == 0)
        let silent = try nookctl(["sound", "play", "doorbell"], socket: daemon.socket)
        #expect(silent.error.contains("the volume is set to 0 (nookctl sound volume)"), "\(silent)")
    }

    /// B4: a `sound-play` with a `playID` (a bridge's, derived from an MQTT packet id) is carried
    /// out once: a second request with it (a broker's redelivery) plays nothing and is told so.
    @Test func b4_aPlayIDIsCarriedOutOnceAndASecondRequestWithItIsToldSo() throws {
        let beeper = try BeeperFIFO(in: Scratch())
        let scratch = Scratch()
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", scratch.file("nook.toml", "[sound]\noutput = \"beeper\"\ndevice = \"\(beeper.path)\"\n"),
                                                                     "--journal", "none"])
        func play(_ id: NookActivityID?) throws -> SoundPlayAnswer {
            try SoundPlayAnswer(json: daemon.request(.soundPlay(SoundRequest(sound: "bell", playID: id))))
        }
        let id = NookActivityID()
        let first = try play(id), second = try play(id), other = try play(NookActivityID()), none = try play(nil)
        #expect(first.played && !first.again, "\(first)")
        #expect(!second.played && second.again && second.outcome == "asked for before (playID \(id)): a request is carried out once", "\(second)")
        #expect(other.played && none.played && !other.again && !none.again)
        let client = try daemon.client()
        try client.send(#"{"id":1,"op":"sound-play","sound":"bell","playID":"nope"}"#)
        let refused = try client.readLine().map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(refused.contains(#""field":"playID""#) && refused.contains("must be a UUID"), "\(refused)")
        #expect(daemon.stop().status == 0)
    }

    /// By default quiet hours silence every sound: nothing reaches the PCM, and the card, which
    /// still shows (high passes quiet hours' glass), says its sound was silenced.
    @Test func b3_byDefaultQuietHoursSilenceTheChimeAndTheEntryAndStatusSaySo() throws {
        let sound = try SoundCapture("high = \"doorbell\"")
        let (daemon, capture) = (sound.daemon, sound.capture)
        #expect(try nookctl(["quiet", "on"], socket: daemon.socket).status == 0)
        let silenced = try enqueue(daemon, "Doorbell at night")
        try historyShows(silenced, "sound: silenced (quiet hours)", daemon)
        let status = try nookctl(["status"], socket: daemon.socket).output
        #expect(status.contains("0 lowered and 1 silenced by the room") && !status.contains("1 played"), "\(status)")
        #expect(peak(capture) == 0, "no sample was written")
        let line = try nookctl(["history"], socket: daemon.socket).output
        #expect(line.contains("sound silenced (quiet hours)"), "\(line)")
        let log = try String(contentsOfFile: daemon.logPath, encoding: .utf8)
        #expect(log.contains("sound: doorbell for \(silenced) silenced (quiet hours)"), "\(log)")
    }
}

/// B4 through nookd and nookctl: a card's own sound (`sound`, `nookctl enqueue --sound`) plays
/// instead of its priority's; empty keeps even that one silent; a name Nook lacks or a bad RTTTL
/// note is refused naming the field; a sound the board cannot play is accepted and said.
@Suite("B4 a card's own sound", .serialized, .ownThreads)
struct CardSoundTests {
    func samples(_ path: String) -> Int {
        ((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()).count / 2
    }

    @Test func b4_aCardsOwnSoundPlaysInsteadOfItsPrioritysAndEmptyIsNone() throws {
        let sound = try SoundCapture("high = \"doorbell\"")
        let (daemon, capture) = (sound.daemon, sound.capture)
        let silent = try nookctl(["enqueue", "--title", "Doorbell, muted", "--priority", "high", "--sound", "", "--wait"], socket: daemon.socket)
        #expect(silent.status == 0, "\(silent)")
        #expect(try nookctl(["status"], socket: daemon.socket).output.contains(", idle"), "no sound for an empty one")
        // One quarter note at 100 bpm: 0.6 s at 48 kHz, where the doorbell would be 1.8 s.
        let own = try nookctl(["enqueue", "--title", "Build failed", "--sound", "beep:d=4,o=5,b=100:c", "--wait"], socket: daemon.socket)
        #expect(own.status == 0 && own.error.isEmpty, "\(own)")
        try eventually("the card's own sound played") { try nookctl(["status"], socket: daemon.socket).output.contains("1 played, 0 failed") }
        #expect(samples(capture) == 48_000 * 6 / 10, "\(samples(capture)) samples")
        let id = String(own.output.split(separator: "\n").first ?? "")
        try eventually("\(id)'s entry says its sound played") {
            try nookctl(["history", "show", id], socket: daemon.socket).output.contains("sound: played")
        }
    }

    @Test func b4_anUnknownChimeOrABadNoteIsRefusedNamingTheFieldAndNothingQueuedIsLost() throws {
        let daemon = try DaemonProcess(scratch: Scratch(), arguments: ["--journal", "none"])
        #expect(try nookctl(["suspend"], socket: daemon.socket).status == 0)
        #expect(try nookctl(["enqueue", "--title", "kept"], socket: daemon.socket).status == 0)
        let gong = try nookctl(["enqueue", "--title", "x", "--sound", "gong"], socket: daemon.socket)
        #expect(gong.status != 0 && gong.error.contains("sound") && gong.error.contains("is not a chime Nook has ('gong'"), "\(gong)")
        let note = try nookctl(["enqueue", "--title", "x", "--sound", "x:d=4,o=5,b=100:c,z"], socket: daemon.socket)
        #expect(note.status != 0 && note.error.contains("sound") && note.error.contains("z"), "\(note)")
        let client = try daemon.client()
        try client.sendRaw(Array(#"{"id":1,"op":"enqueue","activity":{"title":"x","sound":"gong"}}"#.utf8) + [0x0A])
        let line = try client.readLine()
        let raw = String(decoding: line ?? [], as: UTF8.self)
        #expect(raw.contains("\"field\":\"activity.sound\""), "\(raw)")
        let list = try ListAnswer(json: daemon.request(.list(module: nil)))
        #expect(list.modules.first?.pending.map(\.title) == ["kept"])
    }

    @Test func b4_aSoundWithNoOutputIsAcceptedAndTheSenderIsToldItWillNotPlay() throws {
        let daemon = try DaemonProcess(scratch: Scratch(), arguments: ["--journal", "none"])
        // An hour on the glass: the updates below must find it, however long a loaded machine takes.
        let sent = try nookctl(["enqueue", "--title", "Doorbell", "--sound", "doorbell", "--dwell", "3600"], socket: daemon.socket)
        #expect(sent.status == 0 && sent.error.contains("sound 'doorbell' will not play: no sound output is configured"), "\(sent)")
        let id = sent.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let updated = try nookctl(["update", id, "--sound", "message-new-instant"], socket: daemon.socket)
        #expect(updated.status == 0 && updated.error.contains("sound 'message-new-instant' will not play"), "\(updated)")
        let bad = try nookctl(["update", id, "--sound", "gong"], socket: daemon.socket)
        #expect(bad.status != 0 && bad.error.contains("is not a chime Nook has ('gong'"), "\(bad)")
    }
}
