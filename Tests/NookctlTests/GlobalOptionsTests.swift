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

    /// A group's subcommand takes them: after `app` alone, `set` would be read as an argument
    /// of the group's default subcommand (`app list`).
    @Test func c2_a3_globalOptionsBeforeAGroupMoveAfterItsSubcommand() {
        #expect(GlobalOptions.movedAfterSubcommand(["--socket", "/s", "app", "set", "weather", "--text", "21"])
                == ["app", "set", "--socket", "/s", "weather", "--text", "21"])
        #expect(GlobalOptions.movedAfterSubcommand(["--json", "history", "show", "3"]) == ["history", "show", "--json", "3"])
        #expect(GlobalOptions.movedAfterSubcommand(["--json", "app"]) == ["app", "--json"])
        #expect(GlobalOptions.movedAfterSubcommand(["--json", "app", "--help"]) == ["app", "--json", "--help"])
    }

    @Test func c2_otherCommandLinesAreLeftForArgumentParser() {
        for arguments in [["enqueue", "--title", "x", "--socket", "/s"], ["--help"], ["--socket", "/s"], ["--socket"],
                          ["--json", "--help"], ["--generate-completion-script", "bash"], [], ["status"]] {
            #expect(GlobalOptions.movedAfterSubcommand(arguments) == arguments, "\(arguments)")
        }
    }
}
