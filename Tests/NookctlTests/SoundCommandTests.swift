import ArgumentParser
@testable import nookctl
import Testing

/// `nookctl sound play`'s options: a volume out of 0 to 100, a negative one too, is said to be
/// out of range (exit 64), not taken for a missing value.
@Suite("B4 nookctl sound play's options")
struct SoundCommandTests {
    func message(_ arguments: [String]) -> String? {
        do {
            _ = try Nookctl.parseAsRoot(arguments)
            return nil
        } catch {
            #expect(Nookctl.exitCode(for: error) == ExitCode(64), "\(arguments)")
            return Nookctl.message(for: error)
        }
    }

    @Test func b4_aVolumeOutOfRangeIsSaidToBeSoNegativeToo() {
        for volume in ["-1", "101"] {
            let said = message(["sound", "play", "doorbell", "--volume", volume])
            #expect(said == "--volume must be 0 to 100; got \(volume)", "\(String(describing: said))")
        }
        #expect(message(["sound", "play", "doorbell", "--volume", "50.5"])?.contains("'50.5' is invalid") == true)
        #expect(message(["sound", "play", "doorbell", "--volume", "0"]) == nil)
    }
}
