#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import NookAudio
import NookSound
import Testing

/// B1: the output is chosen once, at start, as nook.toml says; `auto` looks as the displays do.
@Suite("B1 choosing the sound output")
struct SoundOutputChoiceTests {
    /// A directory with a `cards` file saying `cards`, and an empty `input` directory.
    static func machine(cards: String) throws -> (directory: String, cards: String, input: String) {
        let directory = NSTemporaryDirectory() + "nook-sound-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/input", withIntermediateDirectories: true)
        try cards.write(toFile: directory + "/cards", atomically: true, encoding: .utf8)
        return (directory, directory + "/cards", directory + "/input")
    }

    @Test func b1_theKernelsListOfSoundCardsIsReadByTheirIds() throws {
        let board = try Self.machine(cards: """
             0 [vc4hdmi        ]: vc4-hdmi - vc4-hdmi
                                  vc4-hdmi
             1 [Device         ]: USB-Audio - USB Audio Device
                                  Generic USB Audio Device at usb-xhci-hcd.0-1, full speed

            """)
        defer { try? FileManager.default.removeItem(atPath: board.directory) }
        #expect(SoundOutputChoice.soundCards(board.cards) == ["vc4hdmi", "Device"])
        let none = try Self.machine(cards: "--- no soundcards ---\n")
        defer { try? FileManager.default.removeItem(atPath: none.directory) }
        #expect(SoundOutputChoice.soundCards(none.cards).isEmpty)
        #expect(SoundOutputChoice.soundCards(none.directory + "/absent").isEmpty, "a kernel without sound has no list")
    }

    @Test func b1_autoTakesALSAWhereTheKernelListsACardAndSaysWhy() throws {
        let board = try Self.machine(cards: " 0 [MAX98357A      ]: RPi-simple - MAX98357A\n")
        defer { try? FileManager.default.removeItem(atPath: board.directory) }
        let (output, note) = SoundOutputChoice.make(.auto, device: nil, logger: KeptLines().logger, cards: board.cards, inputDirectory: board.input)
        #expect(output is ALSAOutput)
        #expect(output.status.output == "alsa" && output.status.device == "default")
        #expect(note == "sound: auto chose ALSA on default: the kernel lists MAX98357A")
    }

    @Test func b1_autoWithNeitherACardNorABeeperIsNoOutputAndSaysWhereItLooked() throws {
        let bare = try Self.machine(cards: "--- no soundcards ---\n")
        defer { try? FileManager.default.removeItem(atPath: bare.directory) }
        let (output, note) = SoundOutputChoice.make(.auto, device: nil, logger: KeptLines().logger, cards: bare.cards, inputDirectory: bare.input)
        #expect(output is SilentOutput && output.status.state == .none)
        #expect(note == "sound: auto found no output: no sound card is listed in \(bare.cards), and no beeper under \(bare.input)")
    }

    /// `auto` was configured: status and a sender are told what auto found, not that no output was set.
    @Test func b1_autoFindingNothingSaysSoInStatusAndToSendersRatherThanNoOutputConfigured() throws {
        let bare = try Self.machine(cards: "--- no soundcards ---\n")
        defer { try? FileManager.default.removeItem(atPath: bare.directory) }
        let output = SoundOutputChoice.make(.auto, device: nil, logger: KeptLines().logger, cards: bare.cards, inputDirectory: bare.input).output
        let why = "[sound] output = \"auto\" found no sound card in \(bare.cards) and no beeper under \(bare.input)"
        #expect(output.status.problem == why, "\(output.status)")
        #expect(output.cannotPlay(.tones(Melody(name: "x", tones: []))) == "no sound output: " + why)
        #expect(SilentOutput().status.problem == nil, "output = \"none\" is the plain case")
    }

    @Test func b1_eachNamedOutputIsTheOneBuilt() {
        let logger = KeptLines().logger
        #expect(SoundOutputChoice.make(.none, device: nil, logger: logger).output is SilentOutput)
        let alsa = SoundOutputChoice.make(.alsa, device: "plughw:CARD=Device", logger: logger)
        #expect(alsa.output is ALSAOutput && alsa.output.status.device == "plughw:CARD=Device" && alsa.note == "sound: ALSA output on plughw:CARD=Device")
        let beeper = SoundOutputChoice.make(.beeper, device: "/dev/input/nook-test-beeper", logger: logger)
        #expect(beeper.output is BeeperOutput && beeper.output.status.output == "beeper")
        #expect(SoundOutputKind.allCases.map(\.rawValue) == ["none", "alsa", "beeper", "auto"])
    }
}
