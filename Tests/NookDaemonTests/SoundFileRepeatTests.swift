#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import NookDaemon
import NookActivities
import NookAudio
import NookConfig
import NookLogging
import NookProtocol
import NookSound
import NookTestSupport
import NookTestTraits
import Testing

/// B2 through the real nookd on alsa-lib's `file` PCM: a card's WAV file from the sound
/// directory reaches the samples as it is; one the directory's rules refuse is refused at
/// enqueue naming why; a card's repeat plays its melody that many times, and its entry says so.
@Suite("B2 WAV files and repeats in nookd", .serialized, .ownThreads)
struct SoundFileRepeatTests {
    static func samples(_ path: String) -> [Int16] {
        let bytes = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    @Test func b2_aWAVCardsSamplesArriveAndARepeatedCardPlaysItsMelodyThatManyTimes() throws {
        let sounds = Scratch()
        let knock: [Int16] = (0..<4_000).map { Int16(truncatingIfNeeded: ($0 * 397) % 20_000 - 10_000) }
        #expect(FileManager.default.createFile(atPath: sounds.path + "/knock.wav", contents: Data(TestWAV.bytes(knock))))
        #expect(mkfifo(sounds.path + "/pipe.wav", 0o600) == 0)
        let sound = try SoundCapture("volume = 100\ndirectory = \"\(sounds.path)\"")
        let (daemon, capture) = (sound.daemon, sound.capture)

        let refusals = [(["--sound", "pipe.wav"], "'pipe.wav' is a FIFO, not a regular file"), (["--sound", "../knock.wav"], "has a slash"),
                        (["--sound", "long:d=1,o=5,b=4:c", "--sound-repeat", "16"], "16 plays of 'long' last")]
        for (options, words) in refusals {
            let refused = try nookctl(["enqueue", "--title", "x"] + options, socket: daemon.socket)
            #expect(refused.status != 0 && refused.error.contains(words), "\(options): \(refused)")
        }

        let wav = try nookctl(["enqueue", "--title", "Knock", "--sound", "knock.wav", "--wait"], socket: daemon.socket)
        #expect(wav.status == 0 && wav.error.isEmpty, "\(wav)")
        try eventually("the WAV file played") { try nookctl(["status"], socket: daemon.socket).output.contains("1 played, 0 failed") }
        #expect(Self.samples(capture) == knock, "\(Self.samples(capture).count) samples of \(knock.count)")

        let beep = "beep:d=16,o=5,b=200:c"
        let repeated = try nookctl(["enqueue", "--title", "Beep", "--sound", beep, "--sound-repeat", "3", "--wait"], socket: daemon.socket)
        #expect(repeated.status == 0 && repeated.error.isEmpty, "\(repeated)")
        try eventually("the repeat played") { try nookctl(["status"], socket: daemon.socket).output.contains("2 played, 0 failed") }
        let once = Synthesizer.render(try RTTTL.parse(beep), sampleRate: ALSAOutput.melodyRate, volume: 100).samples
        let played = Self.samples(capture)
        #expect(played.count == 3 * once.count && played == once + once + once, "\(played.count) samples, one play is \(once.count)")
        let id = String(repeated.output.split(separator: "\n").first ?? "")
        try eventually("\(id)'s entry says how many times") {
            try nookctl(["history", "show", id], socket: daemon.socket).output.contains("sound: played, 3 times")
        }
    }
}

/// B2 in nookd's sound service: where WAV files are, what a card plays, and what ends its repeat.
@Suite("B2 a card's sound program and its repeat's end")
struct SoundRepeatEndTests {
    @Test func b2_theSoundDirectoryIsAnAbsolutePathWithADefault() throws {
        func read(_ text: String) throws -> DaemonConfig {
            try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml")))
        }
        #expect(try read("").sound.directory == "/etc/nook/sounds")
        #expect(try read("[sound]\ndirectory = \"/srv/sounds\"\n").sound.directory == "/srv/sounds")
        for (text, words) in [("sounds", "must be an absolute path, got 'sounds'"), ("/srv/\\u0000x", "has a control character")] {
            do {
                _ = try read("[sound]\ndirectory = \"\(text)\"\n")
                Issue.record("accepted \(text)")
            } catch {
                #expect("\(error)".hasPrefix("nook.toml:2: sound.directory: \(words)"), "\(error)")
            }
        }
    }

    static func card(_ soundRepeat: NookSoundRepeat?, blocker: Bool = false, sound: String? = "doorbell") -> NookActivity {
        var card = NookActivity(priority: .high, title: "Doorbell", presentation: blocker ? .blocker(timeout: nil) : .timed)
        (card.sound, card.soundRepeat) = (sound, soundRepeat)
        return card
    }

    /// A beeper plays no samples: a card's WAV file is said not to play at enqueue, and its
    /// priority's chime plays in its place, repeated as the card asks.
    @Test func b2_aWAVFileOnABeeperIsSaidAndItsPrioritysChimePlaysInstead() async throws {
        let logger = Logger(label: "test")
        let beeper = BeeperOutput(path: "/nonexistent/nook-beeper", logger: logger)
        defer { _ = beeper.close(within: .seconds(1)) }
        var settings = Service.Sound.Settings(output: .beeper)
        let doorbell = try SoundText.melody("doorbell")
        settings.byPriority[.high] = doorbell
        let repeats = SoundRepeats(escalation: nil, engagement: nil, clock: ManualClock(), logger: logger)
        let program = Service.Sound.program(of: Self.card(.times(2), sound: "knock.wav"), settings, on: beeper, repeats: repeats, logger)
        #expect(program == .repeated(.tones(doorbell), SoundRepeat(.count(2))))
        let speaker = ALSAOutput(device: "nook_test_no_such_pcm", logger: logger)
        defer { _ = speaker.close(within: .seconds(1)) }
        #expect(Service.Sound.program(of: Self.card(nil, sound: "knock.wav"), settings, on: speaker, repeats: repeats, logger)
                == .file(SoundFile(name: "knock.wav", directory: settings.directory)), "a speaker reads the file as it plays")
        let service = Service.Sound(queues: [], logger: logger)
        try await service.start(Service.Sound.Settings(output: .beeper, device: "/nonexistent/nook-beeper"))
        #expect(service.unplayable("knock.wav", priority: .high) == ["sound 'knock.wav' will not play: the beeper plays tones, not a WAV file "
                                                                     + "('knock.wav'); the card comes with its priority's sound instead (sound.high, if set)"])
        #expect(service.unplayable("doorbell", priority: .high) == [], "a chime plays on a beeper")
        await service.stop()
        #expect(beeper.cannotPlay(.repeated(.file(SoundFile(name: "knock.wav", directory: "/")), SoundRepeat(.count(2))))
                == "the beeper plays tones, not a WAV file ('knock.wav')")
    }

    /// Until engaged fills the blocker's escalation (its last step), else the 15 minutes' bound.
    @Test func b2_untilEngagedFillsTheEscalationOrTheBound() {
        let logger = Logger(label: "test")
        let escalating = SoundRepeats(escalation: .seconds(120), engagement: nil, clock: ManualClock(), logger: logger)
        let base = SoundProgram.tones(Melody(name: "bell", tones: [Tone(frequency: 880, milliseconds: 500)]))
        #expect(escalating.program(base, for: Self.card(.untilEngaged, blocker: true)) == .repeated(base, SoundRepeat(.filling(.seconds(120)))))
        #expect(escalating.program(base, for: Self.card(.untilEngaged)) == .repeated(base, SoundRepeat(.filling(.seconds(900)))),
                "a timed card has no escalation: it stops as it leaves the glass")
        #expect(escalating.program(base, for: Self.card(.times(1))) == base && escalating.program(base, for: Self.card(nil)) == base)
        var settings = Escalator.Settings()
        (settings.after, settings.every, settings.steps) = (.seconds(60), .seconds(30), [.brighter, .pulse, .hook])
        #expect(settings.length == .seconds(120))
        #expect(Escalator.Settings().length == nil)
    }

    /// A repeat until engaged ends when someone engages or the card leaves the glass; any repeat
    /// when its card is dismissed; the entry says why. Nothing is cut off that is not the card's.
    @Test func b2_aRepeatEndsWithEngagementLeavingTheGlassOrDismissalAndTheEntrySaysWhy() {
        let notes = Locked<[String]>([]), cuts = Locked(0)
        let repeats = SoundRepeats(escalation: nil, engagement: nil, clock: ManualClock(), logger: Logger(label: "test"),
                                   note: { _, note in notes.withLock { $0.append(note) } })
        let cut: SoundRepeats.Cut = { cuts.withLock { $0 += 1 }; return true }
        let base = SoundProgram.tones(Melody(name: "bell", tones: [Tone(frequency: 880, milliseconds: 500)]))
        func start(_ card: NookActivity) {
            repeats.started(repeats.program(base, for: card), for: card.id, activity: card, verdict: .play(volume: 80, loweredBy: nil))
        }
        func event(_ card: NookActivity, _ kind: NookActivityEvent.Kind) -> NookActivityEvent {
            NookActivityEvent(activity: card, kind: kind, at: .origin, module: "main")
        }

        let blocker = Self.card(.untilEngaged, blocker: true), other = Self.card(.untilEngaged)
        start(blocker)
        repeats.observe(event(other, .animateOut), cut: cut)
        repeats.engaged(cut: cut)
        #expect(cuts.withLock { $0 } == 1 && notes.withLock { $0 } == ["played, until engaged", "played, until engaged, stopped (engaged)"])

        start(blocker)
        repeats.observe(event(blocker, .requeued), cut: cut)
        #expect(cuts.withLock { $0 } == 2 && notes.withLock { $0.last } == "played, until engaged, stopped (the card left the glass)")

        let counted = Self.card(.times(5))
        start(counted)
        repeats.engaged(cut: cut)
        repeats.observe(event(counted, .animateOut), cut: cut)
        #expect(cuts.withLock { $0 } == 2, "a count plays on past engagement and the glass")
        repeats.observe(event(counted, .hidden(.dismissed)), cut: cut)
        #expect(cuts.withLock { $0 } == 3 && notes.withLock { $0.last } == "played, 5 times, stopped (dismissed)")

        start(Self.card(.untilEngaged))
        start(Self.card(nil))
        repeats.engaged(cut: cut)
        #expect(cuts.withLock { $0 } == 3, "a newer sound without a repeat took over: nothing of the old repeat is cut")
    }
}
