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
    @Test func b3_quietOnCutsOffTheMelodyThatPlaysAndTheLogSaysSo() throws {
        let scratch = Scratch()
        let beeper = try BeeperFIFO(in: scratch)
        // One whole note at 4 beats a minute: a minute of C5, unless something stops it.
        let config = scratch.file("nook.toml", """
            [sound]
            output = "beeper"
            device = "\(beeper.path)"
            high = "long:d=1,o=5,b=4:c"

            """)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config, "--journal", "none"])
        let id = try nookctl(["enqueue", "--title", "Doorbell", "--priority", "high"], socket: daemon.socket).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let started = try beeper.tones { $0.contains(523) }
        #expect(started.last == 523, "the melody plays: \(started)")
        #expect(try nookctl(["quiet", "on"], socket: daemon.socket).status == 0)
        let after = try beeper.tones { $0.contains(0) }
        #expect(after == [0], "silenced at once, not after the minute: \(after)")
        try eventually("the log line") {
            try String(contentsOfFile: daemon.logPath, encoding: .utf8).contains("sound: long for \(id) cut off (quiet hours)")
        }
        #expect(try nookctl(["status"], socket: daemon.socket).output.contains("0 lowered and 1 silenced by the room"))
    }
}
