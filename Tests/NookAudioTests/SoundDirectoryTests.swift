#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import NookAudio
import NookSound
import NookTestSupport
import Testing

/// B2: a card's WAV file comes from the sound directory and nowhere else, and is read whole only
/// when it is a small regular file there: a path, `..`, a link out (to another file or to a
/// device such as /dev/zero), a FIFO, a directory or a huge sparse file is refused, naming why.
@Suite("B2 the sound directory")
struct SoundDirectoryTests {
    /// A fresh sound directory and, beside it, a directory that is not one.
    final class Directories {
        let root = NSTemporaryDirectory() + "nook-sounds-\(getpid())-\(UUID().uuidString)"
        var sounds: String { root + "/sounds" }
        var outside: String { root + "/outside" }
        init() throws {
            try FileManager.default.createDirectory(atPath: root + "/sounds", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: root + "/outside", withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }

        func write(_ path: String, _ bytes: [UInt8]) { _ = FileManager.default.createFile(atPath: path, contents: Data(bytes)) }
        func file(_ name: String) -> SoundFile { SoundFile(name: name, directory: sounds) }

        /// Why `name` is refused; empty when it loads.
        func refusal(_ name: String) -> String {
            do { _ = try file(name).load(); return "" } catch { return error.message }
        }
    }

    static let samples: [Int16] = [0, 1000, -1000, 32_000, -32_000, 7]

    @Test func b2_aWAVFileInTheDirectoryIsReadAndALinkInsideItToo() throws {
        let dirs = try Directories()
        dirs.write(dirs.sounds + "/knock.wav", TestWAV.bytes(Self.samples))
        #expect(try dirs.file("knock.wav").load() == PCMClip(sampleRate: 8_000, channels: 1, samples: Self.samples))
        #expect(symlink("knock.wav", dirs.sounds + "/door.WAV") == 0)
        #expect(try dirs.file("door.WAV").load().samples == Self.samples, "a link that stays inside the directory is its target")
    }

    @Test func b2_pathsDotsAndLinksOutOfTheDirectoryAreRefusedWithoutSayingWhereTheyLead() throws {
        let dirs = try Directories()
        dirs.write(dirs.outside + "/secret.wav", TestWAV.bytes(Self.samples))
        #expect(symlink(dirs.outside + "/secret.wav", dirs.sounds + "/out.wav") == 0)
        #expect(symlink("/dev/zero", dirs.sounds + "/zero.wav") == 0)
        #expect(symlink("../outside", dirs.sounds + "/up") == 0)
        let refusals = [
            ("../outside/secret.wav", "has a slash"), (dirs.outside + "/secret.wav", "not in \(dirs.sounds) (sound.directory)"),
            ("up/secret.wav", "has a slash"), (dirs.sounds + "/up/secret.wav", "not in"), (dirs.sounds + "/../outside/secret.wav", "not in"),
            ("..wav", "starts with a dot"), (".hidden.wav", "starts with a dot"),
            ("out.wav", "leads out of \(dirs.sounds) (sound.directory)"), ("zero.wav", "leads out of"),
            ("missing.wav", "no sound file 'missing.wav' in \(dirs.sounds)"), ("bell\u{7}.wav", "has a control character"),
        ]
        for (name, words) in refusals {
            let refusal = dirs.refusal(name)
            #expect(refusal.contains(words), "\(name): \(refusal)")
            #expect(!refusal.contains("secret") || name.contains("secret"), "a link's target is not said: \(refusal)")
        }
    }

    /// B4: a notification's `sound-file` is a path. The path of a file in the directory is that
    /// file, also through a link to the directory; any other folder is refused before a file is
    /// looked at, and a path is checked as a name is once its folder is the directory.
    @Test func b4_aPathInTheSoundDirectoryIsItsFileAndAPathElsewhereIsRefused() throws {
        let dirs = try Directories()
        dirs.write(dirs.sounds + "/knock.wav", TestWAV.bytes(Self.samples))
        dirs.write(dirs.outside + "/knock.wav", TestWAV.bytes([1, 2, 3]))
        #expect(symlink(dirs.sounds, dirs.root + "/linked") == 0)
        #expect(symlink(dirs.outside + "/knock.wav", dirs.sounds + "/out.wav") == 0)
        #expect(try dirs.file(dirs.sounds + "/knock.wav").load().samples == Self.samples)
        #expect(try dirs.file(dirs.sounds + "//knock.wav").load().samples == Self.samples, "realpath reads the folder as the kernel does")
        #expect(try dirs.file(dirs.root + "/linked/knock.wav").load().samples == Self.samples, "a link to the directory is the directory")
        dirs.write(dirs.sounds + "/10:30.wav", TestWAV.bytes(Self.samples))
        #expect(SoundText.namesFile(dirs.sounds + "/10:30.wav") && !SoundText.namesFile("10:30.wav"), "a path is a file, colon and all; a name, RTTTL")
        #expect(try dirs.file(dirs.sounds + "/10:30.wav").load().samples == Self.samples)
        let refusals = [
            (dirs.outside + "/knock.wav", "'knock.wav' is in \(dirs.outside), not in \(dirs.sounds) (sound.directory)"),
            ("/knock.wav", "'knock.wav' is in /, not in"), (dirs.root + "/missing/knock.wav", "not in"),
            (dirs.sounds + "/out.wav", "'out.wav' leads out of \(dirs.sounds)"), (dirs.sounds + "/missing.wav", "no sound file 'missing.wav'"),
            (dirs.sounds + "/.hidden.wav", "starts with a dot"), (dirs.sounds + "\u{0}/knock.wav", "has a control character"),
        ]
        for (path, words) in refusals {
            let refusal = dirs.refusal(path)
            #expect(refusal.contains(words), "\(path): \(refusal)")
        }
    }

    /// A name past NAME_MAX is refused as too long, not by realpath's errno, and a long name is
    /// said back in part, whatever else is wrong with it.
    @Test func b2_aNameLongerThanAFilesMayBeIsRefusedAndSaidBackInPart() throws {
        let dirs = try Directories()
        let longest = String(repeating: "é", count: 125) + "1.wav"
        dirs.write(dirs.sounds + "/" + longest, TestWAV.bytes(Self.samples))
        #expect(dirs.refusal(longest) == "", "255 bytes is a file's name")
        let over = String(repeating: "é", count: 126) + ".wav"
        #expect(dirs.refusal(over) == "'\(String(repeating: "é", count: 60))…' is 256 bytes long; a file's name has at most 255 (NAME_MAX)")
        for name in [String(repeating: "a", count: 100_000) + ".wav", "x/" + String(repeating: "a", count: 100_000) + ".wav",
                     "." + String(repeating: "a", count: 100_000) + ".wav"] {
            let refusal = dirs.refusal(name)
            #expect(refusal.utf8.count < 200, "\(refusal.prefix(200))")
        }
    }

    @Test func b2_aFIFOADirectoryAndAHugeSparseFileAreRefusedBeforeAByteIsRead() throws {
        let dirs = try Directories()
        #expect(mkfifo(dirs.sounds + "/pipe.wav", 0o600) == 0)
        try FileManager.default.createDirectory(atPath: dirs.sounds + "/folder.wav", withIntermediateDirectories: false)
        let sparse = open(dirs.sounds + "/huge.wav", O_CREAT | O_WRONLY, 0o600)
        #expect(sparse >= 0 && ftruncate(sparse, 1 << 40) == 0, "a terabyte that takes no space")
        close(sparse)
        dirs.write(dirs.sounds + "/text.wav", Array("not a sound".utf8))
        let refusals = [
            ("pipe.wav", "'pipe.wav' is a FIFO, not a regular file"), ("folder.wav", "'folder.wav' is a directory, not a regular file"),
            ("huge.wav", "'huge.wav' is 1099511627776 bytes; a sound file may have at most 33554432 (32 MiB)"),
            ("text.wav", "'text.wav' is not a WAV file Nook plays: WAV: not a RIFF/WAVE file"),
        ]
        for (name, words) in refusals { #expect(dirs.refusal(name).contains(words), "\(name): \(dirs.refusal(name))") }
    }

    @Test func b2_aMissingDirectoryIsSaidAsTheDirectorys() throws {
        do {
            _ = try SoundFile(name: "knock.wav", directory: "/nonexistent/nook-sounds").load()
            Issue.record("a file in a directory that does not exist loaded")
        } catch {
            #expect(error.message.hasPrefix("sound.directory cannot be read: 'realpath' failed"), "\(error)")
        }
    }

    /// Read when it plays, on the output's thread: the file as it is then. A file gone since is a
    /// log line and a status count, and the output plays the next sound as before.
    @Test func b2_aFileReadWhenItPlaysAndOneGoneByThenIsALogLineAndACount() throws {
        let dirs = try Directories()
        let (path, device) = ALSAOutputTests.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let log = KeptLines()
        let output = ALSAOutput(device: device, logger: log.logger)
        output.play(.file(dirs.file("gone.wav")), volume: 100)
        #expect(Waiting.until(seconds: 10) { output.status.unreadable == 1 }, "\(output.status)")
        #expect(log.all.contains { $0.hasPrefix("warning") && $0.contains("sound: gone.wav not played: no sound file 'gone.wav'") }, "\(log.all)")
        dirs.write(dirs.sounds + "/knock.wav", TestWAV.bytes(Self.samples))
        output.play(.file(dirs.file("knock.wav")), volume: 100)
        #expect(Waiting.until(seconds: 10) { output.status.played == 1 }, "\(output.status)")
        #expect(output.status.failed == 0 && output.status.problem == nil, "the output itself is unharmed: \(output.status)")
        #expect(ALSAOutputTests.samples(at: path) == Self.samples)
    }

    /// B2's repeat on a speaker: the plays one after another with the pause's silence between.
    @Test func b2_aRepeatedClipReachesThePCMThatManyTimesWithItsPauses() throws {
        let (path, device) = ALSAOutputTests.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = ALSAOutput(device: device, logger: KeptLines().logger)
        let clip = PCMClip(sampleRate: 8_000, channels: 1, samples: Self.samples)
        output.play(.repeated(.samples(name: "knock.wav", clip), SoundRepeat(.count(3), pause: .milliseconds(1))), volume: 100)
        #expect(Waiting.until(seconds: 10) { output.status.played == 1 }, "\(output.status)")
        let pause = [Int16](repeating: 0, count: 8)
        #expect(ALSAOutputTests.samples(at: path) == Self.samples + pause + Self.samples + pause + Self.samples)
    }
}
