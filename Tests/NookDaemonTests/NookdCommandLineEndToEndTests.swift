import Foundation
import NookTestTraits
import Testing

/// nookd's own flag reader (issue 19), through the built binary.
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
}
