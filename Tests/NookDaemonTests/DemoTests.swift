import Foundation
import NookTestSupport
import NookTestTraits
import Testing

/// README.md's Quick start, command 1: `Hardware/dev/demo`, run as a newcomer runs it but on the
/// binaries already built (NOOK_DEMO_BINARIES: no install, no build), its whole output read as
/// the terminal shows it.
@Suite("The demo, as the README's first command", .serialized, .ownThreads)
struct DemoTests {
    /// What the demo printed (standard output and error together) and how it exited.
    static func runDemo(in scratch: Scratch) throws -> (status: Int32, lines: [String]) {
        let outputPath = scratch.path + "/demo.out"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try #require(FileHandle(forWritingAtPath: outputPath))
        let demo = Process()
        demo.executableURL = URL(fileURLWithPath: "/bin/bash")
        demo.arguments = [Built.root + "/Hardware/dev/demo"]
        var environment = ProcessInfo.processInfo.environment
        environment["NOOK_DEMO_BINARIES"] = Built.directory
        environment["NOOK_DEMO_DIR"] = scratch.path + "/demo"
        demo.environment = environment
        demo.standardOutput = output
        demo.standardError = output
        try demo.runAlone()
        // A hang guard, not a judgment: the demo waits for the events it needs, each at most 30 s.
        demo.waitForExit(seconds: TestBounds.seconds(120))
        try? output.close()
        let text = try String(contentsOfFile: outputPath, encoding: .utf8)
        return (demo.terminationStatus, text.split(separator: "\n").map(String.init))
    }

    @Test func c2_theDemoShowsItsCardsComeAndGoAndEndsCleanlyWithTheWatchStoppedFirst() throws {
        let scratch = Scratch()
        let (status, lines) = try Self.runDemo(in: scratch)
        let shown = lines.joined(separator: "\n")
        #expect(status == 0, "the demo exited \(status):\n\(shown)")
        // No line a newcomer would read as something gone wrong: the messages of nookctl, the
        // demo, the tools it runs and bash start with their names.
        let complaints = lines.filter { line in
            ["nookctl:", "demo:", "tail:", "grep:", "kill:", "ls:"].contains { line.hasPrefix($0) } || line.contains("dev/demo: line")
        }
        #expect(complaints.isEmpty, "the demo complained:\n\(shown)")

        // In the order it happens: the daemon, the cards as the watch prints them, the status
        // with the blocker on the glass, its dismissal, the snapshot, the summary.
        func index(_ what: String, after start: Int, _ matches: (String) -> Bool) -> Int? {
            let found = lines.indices.first { $0 > start && matches(lines[$0]) }
            #expect(found != nil, "no \(what) after line \(start + 1):\n\(shown)")
            return found
        }
        let event = { (name: String, title: String) in { (line: String) in line.contains("s \(name) ") && line.hasSuffix("\"\(title)\"") } }
        guard let running = index("'nookd is running'", after: -1, { $0.hasPrefix("nookd is running") }),
              let presented = index("presented \"Door open\"", after: running, event("presented", "Door open")),
              let status = index("the status of the blocker on the glass", after: presented, { $0.hasPrefix("module default: showing \"Door open\"") }),
              let dismissed = index("hidden (dismissed) \"Door open\"", after: status, event("hidden (dismissed)", "Door open")),
              let snapshot = index("the snapshot written", after: dismissed, { $0.hasPrefix("wrote ") && $0.hasSuffix("snapshot.png (1280x400)") }),
              let summary = index("the summary", after: snapshot, { $0.hasPrefix("The mock display wrote ") })
        else { return }
        for title in ["Build finished", "Backup complete", "Doorbell 🔔"] {
            #expect(lines[running..<presented].contains(where: event("hidden (completed)", title)), "\(title) did not come and go before the blocker:\n\(shown)")
        }
        // The watch was stopped before the end: nothing it printed comes after the dismissal.
        // (Its lines start with the event's time: `9.741s hidden …`, `9.8s status: …`.)
        let watchLine = { (line: String) in line.split(separator: " ").first.map { $0.hasSuffix("s") && Double($0.dropLast()) != nil } ?? false }
        #expect(!lines[(dismissed + 1)...].contains(where: watchLine), "the watch printed after the dismissal:\n\(shown)")
        #expect(lines.last?.hasPrefix("Try it yourself") == true, "the demo's last line: \(lines.last ?? "none")")
        let frames = lines[summary].split(separator: " ").dropFirst(4).first.flatMap { Int($0) } ?? 0
        #expect(frames > 0, "\(lines[summary])")
    }
}
