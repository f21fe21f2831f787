#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import NookDaemon
import NookSystem
import NookTestSupport
import NookTestTraits
import Testing

/// B3 when the room changes under a sound: `nookctl quiet on` (the do-not-disturb) cuts off the
/// melody still playing, which quiet hours would now silence, rather than letting it run its
/// minute; the log says so.
@Suite("B3 quiet on cuts off the sound that plays", .serialized, .ownThreads)
struct SoundRoomChangeTests {
    /// The SND_TONE values written to the beeper FIFO until `done` says stop, waiting up to the bound for each read.
    func tones(from reader: FileDescriptor, until done: ([Int32]) -> Bool) throws -> [Int32] {
        var tones: [Int32] = [], pending: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 4096)
        while !done(tones) {
            var entry = pollfd(fd: reader.rawValue, events: Int16(POLLIN), revents: 0)
            try #require(try System.poll(&entry, timeoutMilliseconds: Int32(TestBounds.duration(.seconds(30)) / .milliseconds(1))) == 1,
                         "no tone within the bound; read \(tones)")
            guard let count = try buffer.withUnsafeMutableBytes({ try reader.readIfReady(into: $0) }), count > 0 else { continue }
            pending += buffer[..<count]
            let whole = pending.count / InputEvent.size * InputEvent.size
            tones += pending[..<whole].withUnsafeBytes { InputEvent.decode($0) }.filter { $0.type == 0x12 }.map(\.value)
            pending.removeFirst(whole)
        }
        return tones
    }

    @Test func b3_quietOnCutsOffTheMelodyThatPlaysAndTheLogSaysSo() throws {
        let scratch = Scratch()
        let path = scratch.path + "/beeper"
        #expect(mkfifo(path, 0o600) == 0)
        // The reader first, so the output's non-blocking open finds one.
        let reader = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK)
        // One whole note at 4 beats a minute: a minute of C5, unless something stops it.
        let config = scratch.file("nook.toml", """
            [sound]
            output = "beeper"
            device = "\(path)"
            high = "long:d=1,o=5,b=4:c"

            """)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config, "--journal", "none"])
        let id = try nookctl(["enqueue", "--title", "Doorbell", "--priority", "high"], socket: daemon.socket).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let started = try tones(from: reader) { $0.contains(523) }
        #expect(started.last == 523, "the melody plays: \(started)")
        #expect(try nookctl(["quiet", "on"], socket: daemon.socket).status == 0)
        let after = try tones(from: reader) { $0.contains(0) }
        #expect(after == [0], "silenced at once, not after the minute: \(after)")
        try eventually("the log line") {
            try String(contentsOfFile: daemon.logPath, encoding: .utf8).contains("sound: long for \(id) cut off (quiet hours)")
        }
        #expect(try nookctl(["status"], socket: daemon.socket).output.contains("0 lowered and 1 silenced by the room"))
    }
}
