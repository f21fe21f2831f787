import NookActivities
@testable import NookNotify
import Testing

/// B4 through E2: the spec's sound hints as the card's sound, and what does not play said in
/// the notes nook-notify logs, the notification kept.
@Suite("B4 sound hints")
struct SoundHintTests {
    func mapped(_ hints: [String: HintValue]) -> NotificationMapping.Result {
        NotificationMapping.activity(for: NotifyCall(summary: "a", hints: hints), id: NookActivityID(), key: nil, allowPaths: true)
    }

    @Test func b4_e2_soundNameIsTheCardsSoundAsNamedNookdPlayingItThroughTheSpecsFallback() {
        for name in ["message-new-instant", "message-new-instant-work", "Complete-Download", "bell"] {
            let result = mapped(["sound-name": .string(name)])
            #expect(result.activity.sound == name && result.notes.isEmpty, "\(name): \(result)")
        }
        #expect(mapped([:]).activity.sound == nil, "no hint: the priority's sound")
    }

    @Test func b4_e1_theSoundHintsAreKeptWhileACallWaitsForNookd() {
        let hints: [String: HintValue] = ["sound-name": .string("bell"), "sound-file": .string("/tmp/ding.wav"), "suppress-sound": .boolean(false)]
        let waiting = NotifyCall(summary: "a", hints: hints).compacted()
        #expect(waiting.hints == hints)
        let result = NotificationMapping.activity(for: waiting, id: NookActivityID(), key: nil, allowPaths: true)
        #expect(result.activity.sound == "/tmp/ding.wav" && result.notes.count == 1, "\(result)")
    }

    @Test func b4_e2_suppressSoundSilencesTheCardAndWinsOverASoundNameWhichIsSaid() {
        #expect(mapped(["suppress-sound": .boolean(true)]).activity.sound == "")
        #expect(mapped(["suppress-sound": .integer(1)]).activity.sound == "", "some clients send a byte")
        #expect(mapped(["suppress-sound": .boolean(false)]).activity.sound == nil)
        let both = mapped(["suppress-sound": .boolean(true), "sound-name": .string("bell")])
        #expect(both.activity.sound == "" && both.notes == ["hint sound-name 'bell' not played: suppress-sound asks for silence, which wins"],
                "\(both)")
        let odd = mapped(["suppress-sound": .string("yes"), "sound-name": .string("bell")])
        #expect(odd.activity.sound == "bell" && odd.notes.contains { $0.hasPrefix("hint suppress-sound ignored: not a boolean") }, "\(odd)")
    }

    @Test func b4_e2_aSoundNameNookHasNoChimeForIsSaidAndTheCardKeepsItsPrioritysSound() {
        let unknown = mapped(["sound-name": .string("gong")])
        #expect(unknown.activity.sound == nil && unknown.activity.title == "a", "\(unknown)")
        #expect(unknown.notes == ["hint sound-name 'gong' not played: Nook has no chime by that name (docs/sound.md lists them); "
                                  + "the card comes with its priority's sound instead (nook.toml's [sound] normal, if set)"], "\(unknown.notes)")
        let critical = NotificationMapping.activity(for: NotifyCall(summary: "a", hints: ["urgency": .integer(2), "sound-name": .string("gong")]),
                                                    id: NookActivityID(), key: nil, allowPaths: true)
        #expect(critical.notes.contains { $0.hasSuffix("(nook.toml's [sound] high, if set)") }, "\(critical.notes)")
        // An RTTTL string is no sound name: nookd would play it, but the spec's hint names a sound.
        let melody = mapped(["sound-name": .string("x:d=4:c")])
        #expect(melody.activity.sound == nil && melody.notes.count == 1, "\(melody)")
        let number = mapped(["sound-name": .integer(3)])
        #expect(number.activity.sound == nil && number.notes.contains { $0.hasPrefix("hint sound-name ignored: not a string") }, "\(number)")
    }

    /// The file's path goes to nookd, which checks it is in sound.directory and plays it (and
    /// refuses it otherwise: the bridge then sends the card again without it, tested with nookd in
    /// NotifyBridgeTests). What the bridge can tell alone is said here.
    @Test func b4_e2_soundFileIsTheCardsSoundAsAPathAndWhatCannotBeOneIsSaid() {
        let file = mapped(["sound-file": .string("/etc/nook/sounds/ding.wav")])
        #expect(file.activity.sound == "/etc/nook/sounds/ding.wav" && file.notes.isEmpty, "\(file)")
        #expect(mapped(["sound-file": .string("file:///etc/nook/sounds/Ding.WAV")]).activity.sound == "/etc/nook/sounds/Ding.WAV")
        let named = mapped(["sound-file": .string("/etc/nook/sounds/ding.wav"), "sound-name": .string("bell")])
        #expect(named.activity.sound == "/etc/nook/sounds/ding.wav", "a file wins, as in GNOME Shell: \(named)")
        #expect(named.notes == ["hint sound-name 'bell' plays only if nookd does not play sound-file '/etc/nook/sounds/ding.wav': a file wins"])
        let silent = mapped(["sound-file": .string("/etc/nook/sounds/ding.wav"), "suppress-sound": .boolean(true)])
        #expect(silent.activity.sound == "" && silent.notes == ["hint sound-file '/etc/nook/sounds/ding.wav' not played: "
                                                                 + "suppress-sound asks for silence, which wins"], "\(silent)")
        for given in ["/usr/share/sounds/freedesktop/stereo/bell.oga", "ding.wav", "https://example.com/ding.wav", "file:///a%20b.wav"] {
            let other = mapped(["sound-file": .string(given), "sound-name": .string("bell")])
            #expect(other.activity.sound == "bell", "\(given): \(other)")
            #expect(other.notes == ["hint sound-file '\(given)' not played: Nook plays a WAV file from its sound directory (sound.directory "
                                    + "in nook.toml), named by its absolute path or file:// URI; sound-name 'bell' plays instead"], "\(other.notes)")
        }
        let alone = mapped(["sound-file": .string("ding.ogg")])
        #expect(alone.activity.sound == nil && alone.notes[0].hasSuffix("the card comes with its priority's sound instead "
                                                                         + "(nook.toml's [sound] normal, if set)"), "\(alone)")
        #expect(mapped(["sound-file": .integer(1)]).notes == ["hint sound-file ignored: not a string (integer(1))"])
    }
}
