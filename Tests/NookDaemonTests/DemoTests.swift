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
    /// - Parameter slowWatch: its `nookctl watch` subscribes late (below).
    static func runDemo(in scratch: Scratch, slowWatch: Bool = false) throws -> (status: Int32, lines: [String]) {
        let outputPath = scratch.path + "/demo.out"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try #require(FileHandle(forWritingAtPath: outputPath))
        let demo = Process()
        demo.executableURL = URL(fileURLWithPath: "/bin/bash")
        var environment = ProcessInfo.processInfo.environment
        environment["NOOK_DEMO_BINARIES"] = Built.directory
        environment["NOOK_DEMO_DIR"] = scratch.path + "/demo"
        if slowWatch {
            // The demo's binaries are nookd and a nookctl whose watch subscribes only once the
            // demo's first card has come and gone at nookd (at most 10 s: the fixed demo sends
            // nothing before), as on a board too busy to start it sooner. A shell writes that
            // wrapper and runs the demo: a script this process wrote could not be run while a
            // child another test started meanwhile still held it open for writing (ETXTBSY).
            environment["NOOK_REAL_NOOKCTL"] = Built.nookctl
            environment["NOOK_DEMO_BINARIES"] = scratch.path + "/bin"
            demo.arguments = ["-c", Self.slowWatchPrelude, "demo", Built.root + "/Hardware/dev/demo", Built.nookd, scratch.path + "/bin"]
        } else {
            demo.arguments = [Built.root + "/Hardware/dev/demo"]
        }
        demo.environment = environment
        demo.standardOutput = output
        demo.standardError = output
        try demo.runAlone()
        // A hang guard, not a judgment: the demo waits for the events it needs, each at most two minutes.
        demo.waitForExit(seconds: TestBounds.seconds(180))
        try? output.close()
        let text = try String(contentsOfFile: outputPath, encoding: .utf8)
        return (demo.terminationStatus, text.split(separator: "\n").map(String.init))
    }

    /// bash -c PRELUDE demo DEMO NOOKD BIN: BIN gets nookd and the slow-watching nookctl, then the demo runs.
    static let slowWatchPrelude = #"""
        set -e
        mkdir -p "$3"
        ln -s "$2" "$3/nookd"
        cat > "$3/nookctl" <<'WRAPPER'
        #!/bin/sh
        if [ "$1" = watch ]; then
          end=$(($(date +%s) + 10))
          until "$NOOK_REAL_NOOKCTL" history --socket "$3" 2>/dev/null | grep -q "Build finished" || [ "$(date +%s)" -ge "$end" ]; do
            sleep 0.1
          done
        fi
        exec "$NOOK_REAL_NOOKCTL" "$@"
        WRAPPER
        chmod +x "$3/nookctl"
        exec bash "$1"
        """#

    /// The demo's output as a newcomer reads it: every card comes and goes in the watch's lines,
    /// each after the watch said it was subscribed; the status shows the blocker; the watch stops
    /// before the end; nothing complains.
    static func checkOutput(status: Int32, lines: [String]) {
        let shown = lines.joined(separator: "\n")
        #expect(status == 0, "the demo exited \(status):\n\(shown)")
        // No line a newcomer would read as something gone wrong: the messages of nookctl, the
        // demo, the tools it runs and bash start with their names.
        let complaints = lines.filter { line in
            ["nookctl:", "demo:", "tee:", "tail:", "grep:", "kill:", "ls:", "find:"].contains { line.hasPrefix($0) } || line.contains("dev/demo: line")
        }
        #expect(complaints.isEmpty, "the demo complained:\n\(shown)")

        // In the order it happens: the daemon, the watch subscribed, the cards as the watch prints
        // them, the status with the blocker on the glass, its dismissal, the snapshot, the summary.
        func index(_ what: String, after start: Int, _ matches: (String) -> Bool) -> Int? {
            let found = lines.indices.first { $0 > start && matches(lines[$0]) }
            #expect(found != nil, "no \(what) after line \(start + 1):\n\(shown)")
            return found
        }
        // (Its lines start with the event's time: `9.741s hidden …`, `9.8s status: …`.)
        let watchLine = { (line: String) in line.split(separator: " ").first.map { $0.hasSuffix("s") && Double($0.dropLast()) != nil } ?? false }
        let event = { (name: String, title: String) in { (line: String) in line.contains("s \(name) ") && line.hasSuffix("\"\(title)\"") } }
        guard let running = index("'nookd is running'", after: -1, { $0.hasPrefix("nookd is running") }),
              let watching = index("the watch's first line", after: running, { $0 == "watching nookd's events" }),
              let presented = index("presented \"Door open\"", after: watching, event("presented", "Door open")),
              let status = index("the status of the blocker on the glass", after: presented, { $0.hasPrefix("module default: showing \"Door open\"") }),
              let dismissed = index("hidden (dismissed) \"Door open\"", after: status, event("hidden (dismissed)", "Door open")),
              let snapshot = index("the snapshot written", after: dismissed, { $0.hasPrefix("wrote ") && $0.hasSuffix("snapshot.png (1280x400)") }),
              let summary = index("the summary", after: snapshot, { $0.hasPrefix("The mock display wrote ") })
        else { return }
        #expect(!lines[..<watching].contains(where: watchLine), "an event came before the watch said it was subscribed:\n\(shown)")
        for title in ["Build finished", "Backup complete", "Doorbell 🔔"] {
            #expect(lines[watching..<presented].contains(where: event("hidden (completed)", title)), "\(title) did not come and go before the blocker:\n\(shown)")
        }
        // The watch was stopped before the end: nothing it printed comes after the dismissal.
        #expect(!lines[(dismissed + 1)...].contains(where: watchLine), "the watch printed after the dismissal:\n\(shown)")
        #expect(lines.last?.hasPrefix("Try it yourself") == true, "the demo's last line: \(lines.last ?? "none")")
        let frames = lines[summary].split(separator: " ").dropFirst(4).first.flatMap { Int($0) } ?? 0
        #expect(frames > 0, "\(lines[summary])")
    }

    @Test func c2_theDemoShowsItsCardsComeAndGoAndEndsCleanlyWithTheWatchStoppedFirst() throws {
        let scratch = Scratch()
        let (status, lines) = try Self.runDemo(in: scratch)
        Self.checkOutput(status: status, lines: lines)
    }

    /// On a slow or busy board the watch subscribes seconds after it starts: the demo sends its
    /// first card only once the watch said it is subscribed, so that card's lines are shown.
    @Test func c2_q13_theDemoSendsNothingBeforeItsWatchIsSubscribedSoASlowWatchMissesNoCard() throws {
        let scratch = Scratch()
        let (status, lines) = try Self.runDemo(in: scratch, slowWatch: true)
        Self.checkOutput(status: status, lines: lines)
    }
}
