@testable import nookctl
import Testing

/// People type global options first (`git -C DIR log`): `--socket` and `--json` before the
/// subcommand mean what they mean after it.
@Suite("C2 nookctl takes --socket and --json before the subcommand too")
struct GlobalOptionsTests {
    @Test func c2_globalOptionsBeforeTheSubcommandMoveAfterIt() {
        #expect(GlobalOptions.movedAfterSubcommand(["--socket", "/tmp/n.sock", "enqueue", "--title", "x"])
                == ["enqueue", "--socket", "/tmp/n.sock", "--title", "x"])
        #expect(GlobalOptions.movedAfterSubcommand(["--json", "--socket=/tmp/n.sock", "status"])
                == ["status", "--json", "--socket=/tmp/n.sock"])
        #expect(GlobalOptions.movedAfterSubcommand(["--socket", "/tmp/n.sock", "--json", "watch"])
                == ["watch", "--socket", "/tmp/n.sock", "--json"])
    }

    @Test func c2_otherCommandLinesAreLeftForArgumentParser() {
        for arguments in [["enqueue", "--title", "x", "--socket", "/s"], ["--help"], ["--socket", "/s"], ["--socket"],
                          ["--json", "--help"], ["--generate-completion-script", "bash"], [], ["status"]] {
            #expect(GlobalOptions.movedAfterSubcommand(arguments) == arguments, "\(arguments)")
        }
    }
}
