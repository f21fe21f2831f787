#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import NookAudio
import NookSound
import NookSystem
import NookTestSupport
import Testing

/// B1: the ALSA output against alsa-lib itself. No sound card exists here: a PCM name that
/// does not exist is the missing device, and alsa-lib's `file` PCM (its `null` PCM with the
/// samples written to a file) is the speaker whose samples the test reads back.
@Suite("B1 ALSA output")
struct ALSAOutputTests {
    static let missing = "nook_test_no_such_pcm"

    /// A temporary file, and the `file` PCM that writes what it is given there as raw samples.
    static func capture() -> (path: String, device: String) {
        let path = NSTemporaryDirectory() + "nook-alsa-\(getpid())-\(UUID().uuidString).raw"
        return (path, "file:FILE=\(path),FORMAT=raw")
    }

    static func samples(at path: String) -> [Int16] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    @Test func b1_aPCMThatDoesNotExistIsAnErrorNamingTheCallTheDeviceAndALSAsReason() {
        do {
            _ = try ALSAPCM.open(Self.missing, rate: 48_000, channels: 1)
            Issue.record("a PCM that does not exist opened")
        } catch {
            #expect(error.call == "snd_pcm_open")
            #expect(error.isMissing, "\(error)")
            #expect(error.description.hasPrefix("'snd_pcm_open' failed for \(Self.missing): (2) "), "\(error)")
            #expect(error.detail == "alsa-lib: Unknown PCM \(Self.missing)", "\(error)")
        }
    }

    /// A card unbound under a write answers EBADFD, which alone says nothing of a device gone:
    /// the PCM's state (disconnected) makes it the missing device, tried again once plugged in.
    @Test func b1_aWriteThatFindsItsDeviceDisconnectedIsTheMissingDeviceWhateverTheCode() {
        var error = AudioError(call: "snd_pcm_writei", device: "hw:Loopback,0,0", code: Errno(rawValue: EBADFD), text: "File descriptor in bad state")
        #expect(!error.isMissing && !error.retryNote.contains("plugged in"))
        error.disconnected = true
        #expect(error.isMissing && error.retryNote.contains("plugged in"), "\(error.retryNote)")
        #expect(error.description == "'snd_pcm_writei' failed for hw:Loopback,0,0: (77) File descriptor in bad state (the device is disconnected)")
    }

    @Test func b1_aMissingDeviceIsAStatusFieldAndOneLogLineNeverACrash() throws {
        let log = KeptLines()
        let output = ALSAOutput(device: Self.missing, logger: log.logger)
        let melody = Melody(name: "beep", tones: [Tone(frequency: 440, milliseconds: 20)])
        #expect(Waiting.until(seconds: 10) { output.status.failed == 1 }, "the start's probe: \(output.status)")
        output.play(.tones(melody), volume: 80)
        output.play(.tones(melody), volume: 80)
        #expect(Waiting.until(seconds: 10) { output.status.failed >= 2 && output.status.state == .unavailable }, "\(output.status)")
        let status = output.status
        #expect(status.output == "alsa" && status.device == Self.missing)
        #expect(status.problem?.contains("'snd_pcm_open' failed for \(Self.missing)") == true, "\(status)")
        #expect(status.played == 0)
        let warnings = log.all.filter { $0.hasPrefix("warning") }
        #expect(warnings.count == 1, "one line for one problem, however many sounds it refused: \(log.all)")
        #expect(warnings.first?.contains("sound: alsa output unavailable: 'snd_pcm_open' failed") == true, "\(warnings)")
    }

    @Test func b1_aWAVClipsSamplesReachThePCMAsTheyAreAndScaledByTheVolume() throws {
        let samples: [Int16] = (0..<800).map { Int16(truncatingIfNeeded: ($0 * 397) % 20_000 - 10_000) }
        let clip = PCMClip(sampleRate: 8_000, channels: 1, samples: samples)
        for volume in [100, 50] {
            let (path, device) = Self.capture()
            defer { try? FileManager.default.removeItem(atPath: path) }
            let output = ALSAOutput(device: device, logger: KeptLines().logger)
            output.play(.samples(name: "knock.wav", clip), volume: volume)
            #expect(Waiting.until(seconds: 10) { output.status.played == 1 }, "\(output.status)")
            #expect(output.status.state == .idle && output.status.problem == nil, "\(output.status)")
            let played = Self.samples(at: path), expected = samples.map { Int16(Int($0) * volume / 100) }
            let differs = Array(zip(played, expected)).firstIndex { $0 != $1 }
            #expect(played.count == expected.count && differs == nil,
                    "volume \(volume): \(played.count) samples of \(expected.count), the first differing at \(differs.map(String.init) ?? "-")")
        }
    }

    @Test func b1_aStereoClipKeepsItsChannelsInterleaved() throws {
        let samples: [Int16] = (0..<400).flatMap { [Int16($0), Int16(-$0)] }
        let (path, device) = Self.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = ALSAOutput(device: device, logger: KeptLines().logger)
        output.play(.samples(name: "stereo.wav", PCMClip(sampleRate: 16_000, channels: 2, samples: samples)), volume: 100)
        #expect(Waiting.until(seconds: 10) { output.status.played == 1 }, "\(output.status)")
        #expect(Self.samples(at: path) == samples)
    }

    @Test func b1_volumeZeroOpensNothingAndPlaysNothing() throws {
        let (path, device) = Self.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = ALSAOutput(device: device, logger: KeptLines().logger)
        #expect(Waiting.until(seconds: 10) { output.status.state == .idle }, "the start's probe: \(output.status)")
        try? FileManager.default.removeItem(atPath: path)
        output.play(.samples(name: "knock.wav", PCMClip(sampleRate: 8_000, channels: 1, samples: [1000, 2000])), volume: 0)
        #expect(Waiting.until(seconds: 10) { output.status.played == 1 }, "\(output.status)")
        #expect(!FileManager.default.fileExists(atPath: path), "the PCM was opened for a silent sound")
    }
}
