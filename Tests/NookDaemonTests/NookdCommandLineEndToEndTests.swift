import Foundation
import NookTestTraits
import Testing

/// nookd's own flag reader, through the built binary.
@Suite("N1 nookd's command line end to end", .ownThreads)
struct NookdCommandLineEndToEndTests {
    func nookd(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        try run(Built.nookd, arguments)
    }

    @Test func n1_aBadFlagExits64NamingItAndHelpAndCheckWork() throws {
        let bad = try nookd(["--rotation", "45"])
        #expect(bad.status == 64 && bad.error.contains("--rotation must be 0, 90, 180 or 270, got 45"), "\(bad)")
        let unknown = try nookd(["--colour", "red"])
        #expect(unknown.status == 64 && unknown.error.contains("'--colour'"), "\(unknown)")
        let help = try nookd(["--help"])
        #expect(help.status == 0 && help.output.contains("--journal-sync VALUE"))
        let check = try nookd(["--display", "mock", "--socket", "/tmp/nook-check.sock", "--check"])
        #expect(check.status == 0 && check.output.contains("configuration OK"), "\(check)")
    }

    /// `--check` refuses what a start refuses that the file alone does not show: a group or a
    /// user the system does not have, named with its key and exit 2 (an error in the file).
    @Test func n1_checkRefusesAGroupOrUserThatDoesNotExistNamingItsKeyAsAStartDoes() throws {
        let scratch = Scratch()
        let socket = ["--display", "mock", "--socket", scratch.path + "/nook.sock"]
        let missing = "nook-no-such-group"
        for (line, error) in [
            ("admin_group = \"\(missing)\"", "daemon.admin_group: no group named '\(missing)' in the group database"),
            ("relay_users = [\"nook-no-such-user\"]", "daemon.relay_users: no user named 'nook-no-such-user' in the user database"),
            ("socket_group = \"\(missing)\"", "daemon.socket_group: socket group '\(missing)' does not exist"),
            ("allowed_groups = [\"\(missing)\"]", "daemon.allowed_groups: allowed group '\(missing)' does not exist"),
        ] {
            let path = scratch.file("nook.toml", "[daemon]\n\(line)\n")
            let check = try nookd(["--config", path] + socket + ["--check"])
            #expect(check.status == 2 && check.error.contains(error) && !check.output.contains("configuration OK"), "\(line): \(check)")
        }
        let flag = try nookd(socket + ["--socket-group", missing, "--check"])
        #expect(flag.status == 2 && flag.error.contains("daemon.socket_group: socket group '\(missing)' does not exist"), "\(flag)")
        // Groups that exist (nookd's own) pass.
        let entry = getgrgid(getgid())
        let own = entry.flatMap { $0.pointee.gr_name }.map { String(cString: $0) } ?? "root"
        let good = scratch.file("nook.toml", "[daemon]\nadmin_group = \"\(own)\"\nsocket_group = \"\(own)\"\nallowed_groups = [\"\(own)\"]\n")
        let passed = try nookd(["--config", good] + socket + ["--check"])
        #expect(passed.status == 0 && passed.output.contains("configuration OK"), "\(passed)")
    }

    @Test func n1_aMissingValueExits64NamingTheFlag() throws {
        let missing = try nookd(["--display", "mock", "--socket"])
        #expect(missing.status == 64 && missing.error.contains("missing value for '--socket'"), "\(missing)")
    }
}

/// The bridges read their flags with the same reader as nookd: through the built binaries, a
/// bad flag and a missing value exit 64 naming the flag, and `--help` exits 0.
@Suite("E1 E4 the bridges' command lines end to end", .ownThreads)
struct BridgeCommandLineEndToEndTests {
    @Test func e4_nookMQTTRefusesABadFlagOrAMissingValueWith64() throws {
        let unknown = try run(Built.nookMQTT, ["--colour", "red"])
        #expect(unknown.status == 64 && unknown.error.contains("unknown option '--colour'"), "\(unknown)")
        let missing = try run(Built.nookMQTT, ["--config"])
        #expect(missing.status == 64 && missing.error.contains("missing value for '--config'"), "\(missing)")
        let help = try run(Built.nookMQTT, ["--help"])
        #expect(help.status == 0 && help.output.contains("--remove-discovery"), "\(help)")
    }

    @Test func e1_nookNotifyRefusesABadFlagOrAMissingValueWith64() throws {
        let unknown = try run(Built.nookNotify, ["--colour"])
        #expect(unknown.status == 64 && unknown.error.hasPrefix("Error: Unknown option '--colour'\n"), "\(unknown)")
        let missing = try run(Built.nookNotify, ["--module"])
        #expect(missing.status == 64 && missing.error.hasPrefix("Error: Missing value for '--module <module>'\n"), "\(missing)")
        let help = try run(Built.nookNotify, ["--help"])
        #expect(help.status == 0 && help.output.contains("--timeout <seconds>"), "\(help)")
    }
}
