#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import NookAudio
import NookSound
import NookSystem
import NookTestSupport
import NookTestTraits
import Testing

/// B1: the beeper output writes `EV_SND` / `SND_TONE` events. A pipe stands in for the input
/// device here, its other end read as the kernel would; the kernel's own beeper (uinput) is the
/// VM harness's.
@Suite("B1 beeper output")
struct BeeperOutputTests {
    /// The output on a pipe, and the pipe's read end.
    static func standIn() throws -> (BeeperOutput, FileDescriptor, KeptLines) {
        let ends = try System.pipe()
        let reader = FileDescriptor(owning: ends.read, name: "beeper reader")
        let log = KeptLines()
        let device = InputDevice(FileDescriptor(owning: ends.write, name: "/dev/input/event-stand-in"))
        return (BeeperOutput(device: device, logger: log.logger), reader, log)
    }

    /// The tones written until a silence (a tone of 0), each checked to be followed by SYN_REPORT.
    static func tones(from reader: FileDescriptor, untilSilences count: Int = 1) throws -> [Int32] {
        var tones: [Int32] = [], silences = 0
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while silences < count {
            var entry = pollfd(fd: reader.rawValue, events: Int16(POLLIN), revents: 0)
            let ready = try System.poll(&entry, timeoutMilliseconds: Int32(TestBounds.duration(.seconds(30)) / .milliseconds(1)))
            try #require(ready == 1, "no event within the bound; read \(tones)")
            let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
            try #require(count > 0)
            pending += buffer[..<count]
            let whole = pending.count / InputEvent.size * InputEvent.size
            let events = pending[..<whole].withUnsafeBytes { InputEvent.decode($0) }
            pending.removeFirst(whole)
            for (index, event) in events.enumerated() where event.type == BeeperOutput.sound {
                #expect(event.code == BeeperOutput.tone)
                #expect(index + 1 < events.count && events[index + 1].type == 0, "SND_TONE without its SYN_REPORT")
                tones.append(event.value)
                if event.value == 0 { silences += 1 }
            }
        }
        return tones
    }

    @Test func b1_aMelodyIsItsTonesInHertzWithRestsAndTheEndSilent() throws {
        let (output, reader, _) = try Self.standIn()
        let melody = Melody(name: "two", tones: [Tone(frequency: 440, milliseconds: 5), Tone(frequency: 0, milliseconds: 5),
                                                 Tone(frequency: 880.4, milliseconds: 5)])
        output.play(.tones(melody), volume: 40)
        #expect(try Self.tones(from: reader, untilSilences: 2) == [440, 0, 880, 0])
        #expect(Waiting.until(seconds: 10) { output.status.played == 1 }, "\(output.status)")
        #expect(output.status.output == "beeper" && output.status.state == .idle)
    }

    @Test func b1_aStopSilencesTheBeeperAtOnceMidTone() throws {
        let (output, reader, _) = try Self.standIn()
        // Ten minutes: only a stop ends it within the test's bound.
        output.play(.tones(Melody(name: "long", tones: [Tone(frequency: 2000, milliseconds: 600_000)])), volume: 100)
        var first = [UInt8](repeating: 0, count: 2 * InputEvent.size)
        var entry = pollfd(fd: reader.rawValue, events: Int16(POLLIN), revents: 0)
        #expect(try System.poll(&entry, timeoutMilliseconds: Int32(TestBounds.duration(.seconds(30)) / .milliseconds(1))) == 1)
        let count = try first.withUnsafeMutableBytes { try reader.read(into: $0) }
        #expect(first[..<count].withUnsafeBytes { InputEvent.decode($0) }.first?.value == 2000)
        output.stop()
        #expect(try Self.tones(from: reader) == [0])
    }

    @Test func b1_aNewerSoundCutsOffTheOneThatPlays() throws {
        let (output, reader, _) = try Self.standIn()
        output.play(.tones(Melody(name: "long", tones: [Tone(frequency: 1000, milliseconds: 600_000)])), volume: 100)
        output.play(.tones(Melody(name: "short", tones: [Tone(frequency: 1500, milliseconds: 5)])), volume: 100)
        let tones = try Self.tones(from: reader, untilSilences: 1)
        // The long tone may have started before the newer sound came; it never outlasts it.
        #expect(tones == [1500, 0] || tones == [1000, 0], "\(tones)")
        if tones == [1000, 0] { #expect(try Self.tones(from: reader) == [1500, 0]) }
    }

    @Test func b1_volumeZeroIsSilenceAndAWAVFileIsSaidToBeUnplayable() throws {
        let (output, _, _) = try Self.standIn()
        let clip = PCMClip(sampleRate: 8_000, channels: 1, samples: [1, 2])
        #expect(output.cannotPlay(.samples(name: "knock.wav", clip)) == "the beeper plays tones, not a WAV file ('knock.wav')")
        #expect(output.cannotPlay(.tones(Melody(name: "x", tones: []))) == nil)
        #expect(SilentOutput().cannotPlay(.tones(Melody(name: "x", tones: []))) == "no sound output is configured ([sound] output = \"none\")")
    }

    /// B3's verdicts read this: a level between 0 and 100 is no softer on a piezo.
    @Test func b3_theBeeperSaysItHasNoVolumeWhereASpeakerHasOne() throws {
        let (output, _, _) = try Self.standIn()
        #expect(!output.hasVolume)
        #expect(SilentOutput().hasVolume)
    }

    @Test func b1_theBeeperIsFoundByItsCapabilitiesAndEveryOtherDeviceSaysWhyNot() throws {
        let directory = NSTemporaryDirectory() + "nook-input-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["event10", "event2", "mice"] { #expect(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data())) }
        let search = BeeperOutput.find(in: directory, opener: InputDevice.openForWriting)
        #expect(search.found.isEmpty)
        // A regular file answers no evdev ioctl: the kernel says ENOTTY, named with the call and the
        // path, in order. qemu-user translates no evdev ioctl and says ENOSYS before any kernel sees it.
        let refusal = QEMUUser.running ? "(38) Function not implemented" : "(25) Inappropriate ioctl for device"
        #expect(search.passed == ["'ioctl EVIOCGBIT' failed for \(directory)/event2: \(refusal)",
                                  "'ioctl EVIOCGBIT' failed for \(directory)/event10: \(refusal)"])
    }

    @Test func b1_noBeeperAnywhereIsAStatusFieldNamingTheSearch() throws {
        let log = KeptLines()
        let output = BeeperOutput(path: "/dev/input/nook-test-no-such-beeper", logger: log.logger)
        // The output's thread logs the failure just after it sets the state: both are waited for.
        #expect(Waiting.until(seconds: 10) { output.status.state == .unavailable && log.all.contains { $0.hasPrefix("warning") } },
                "\(output.status) \(log.all)")
        #expect(output.status.problem == "'open' failed for /dev/input/nook-test-no-such-beeper: (2) No such file or directory")
        #expect(log.all.filter { $0.hasPrefix("warning") }.count == 1, "\(log.all)")
    }
}
