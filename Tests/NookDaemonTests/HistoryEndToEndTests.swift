import Foundation
import NookActivities
import NookProtocol
import NookTestTraits
import Testing

/// U4 and U5 through nookd and nookctl: the history across restarts and kill -9, its queries,
/// replay, clear and bad input.
@Suite("U4 U5 end to end: the history kept by nookd, queried by nookctl", .serialized, .ownThreads)
struct HistoryEndToEndTests {
    func history(_ daemon: DaemonProcess, _ arguments: [String] = []) throws -> [HistoryEntry] {
        let result = try nookctl(["history"] + arguments + ["--json"], socket: daemon.socket)
        #expect(result.status == 0, "\(result)")
        return try HistoryAnswer(json: JSONValue.parse(Array(result.output.utf8))).entries
    }

    func enqueue(_ daemon: DaemonProcess, _ arguments: [String]) throws -> String {
        let result = try nookctl(["enqueue"] + arguments, socket: daemon.socket)
        #expect(result.status == 0, "\(result)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func u4_theHistorySurvivesARestartAndKill9AndLeavesOutTransientCards() throws {
        let scratch = Scratch()
        let arguments = ["--journal", scratch.path + "/journal"]
        var daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        let shown = try enqueue(daemon, ["--title", "Build finished", "--subtitle", "all green", "--key", "ci", "--dwell", "0.2"])
        _ = try enqueue(daemon, ["--title", "Volume 40 %", "--transient", "--dwell", "0.2"])
        let marker = try enqueue(daemon, ["--title", "marker", "--dwell", "0.2"])
        try eventually("the cards ended", timeout: 30) { try history(daemon).contains { $0.activity.id.description == marker } }
        var entries = try history(daemon)
        #expect(entries.map(\.activity.title) == ["Build finished", "marker"], "the transient one is not kept")
        let first = try #require(entries.first)
        #expect(first.activity.id.description == shown && first.ending == "completed" && first.onGlass && first.shownAt != nil)
        #expect(first.activity.sender?.uid == getuid() && first.activity.sender?.name == "nookctl", "\(String(describing: first.activity.sender))")
        #expect(first.activity.coalescingKey == "ci" && first.module == "default")
        #expect(FileManager.default.fileExists(atPath: scratch.path + "/history"), "beside the journal")
        #expect(daemon.stop().status == 0)

        daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        #expect(try history(daemon) == entries, "across a restart")
        let door = try enqueue(daemon, ["--title", "Door open", "--blocker"])
        try eventually("the blocker on the glass", timeout: 30) { try nookctl(["status"], socket: daemon.socket).output.contains("held by blocker") }
        #expect(try nookctl(["dismiss", door], socket: daemon.socket).status == 0)
        try eventually("the dismissal in the history", timeout: 30) { try history(daemon).contains { $0.activity.id.description == door } }
        entries = try history(daemon)
        daemon.crash()

        daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        let after = try history(daemon)
        #expect(after == entries, "what history showed survives kill -9")
        #expect(after.last?.ending == "dismissed" && after.last?.onGlass == true)
        let next = try enqueue(daemon, ["--title", "after the crash", "--dwell", "0.1"])
        try eventually("numbers go on", timeout: 30) { try history(daemon).last?.activity.id.description == next }
        #expect(try history(daemon).map(\.number) == [1, 2, 3, 4])
        #expect(daemon.stop().status == 0)
    }

    @Test func u5_unseenSinceKeyShowAndReplay() throws {
        let daemon = try DaemonProcess()
        let socket = daemon.socket
        #expect(try nookctl(["suspend"], socket: socket).status == 0)
        let coalesced = try enqueue(daemon, ["--title", "Downloading 40 %", "--key", "dl"])
        let cancelled = try enqueue(daemon, ["--title", "Downloading 70 %", "--key", "dl"])
        #expect(try nookctl(["cancel", cancelled], socket: socket).status == 0)
        #expect(try nookctl(["resume"], socket: socket).status == 0)
        let seen = try enqueue(daemon, ["--title", "Doorbell", "--dwell", "0.1", "--icon", "bell"])
        try eventually("the doorbell ended", timeout: 30) { try history(daemon).count == 3 }

        #expect(try history(daemon, ["--unseen"]).map(\.activity.id.description) == [coalesced, cancelled])
        #expect(try history(daemon, ["--key", "dl"]).map(\.ending) == ["coalesced", "cancelled"])
        #expect(try history(daemon, ["--since", "1h"]).count == 3)
        #expect(try history(daemon, ["--limit", "1"]).map(\.activity.id.description) == [seen])
        let unseen = try nookctl(["history", "--unseen"], socket: socket)
        #expect(unseen.status == 0 && unseen.output.contains("#1 ") && unseen.output.contains("coalesced, unseen")
                && unseen.output.contains("\"Downloading 40 %\"") && !unseen.output.contains("Doorbell"), "\(unseen)")
        let none = try nookctl(["history", "--key", "nothing"], socket: socket)
        #expect(none.status == 0 && none.output.contains("no entries match (3 in the history)"), "\(none)")

        let shown = try nookctl(["history", "show", "3"], socket: socket)
        #expect(shown.status == 0 && shown.output.contains("title: Doorbell") && shown.output.contains("on the glass: yes")
                && shown.output.contains("icon: bell") && shown.output.contains("(completed)"), "\(shown)")
        let byID = try nookctl(["history", "show", coalesced], socket: socket)
        #expect(byID.status == 0 && byID.output.contains("entry #1") && byID.output.contains("shown: never"), "\(byID)")
        let missing = try nookctl(["history", "show", "#99"], socket: socket)
        #expect(missing.status == ExitCodes.notFound && missing.error.contains("no history entry #99"), "\(missing)")

        #expect(try nookctl(["suspend"], socket: socket).status == 0)
        let replay = try nookctl(["history", "replay", "#3"], socket: socket)
        #expect(replay.status == 0, "\(replay)")
        let replayed = replay.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(replayed != seen && NookActivityID(replayed) != nil)
        let list = try ListAnswer(json: daemon.request(.list(module: nil)))
        let pending = try #require(list.modules.first?.pending.first)
        #expect(pending.id.description == replayed && pending.title == "Doorbell" && pending.systemImage == "bell", "a new activity, same fields")
        #expect(daemon.stop().status == 0)
    }

    @Test func u5_badInputNamesTheOptionAndTheValueAndChangesNothing() throws {
        let daemon = try DaemonProcess()
        let socket = daemon.socket
        for (arguments, words) in [(["history", "--since", "banana"], ["--since", "banana", "such as 90s"]),
                                   (["history", "--since", "0h"], ["--since", "0h"]),
                                   (["history", "--limit", "0"], ["--limit"]),
                                   (["history", "show", "nonsense"], ["nonsense", "number"]),
                                   (["history", "replay", "0"], ["'0'"])] {
            let result = try nookctl(arguments, socket: socket)
            #expect(result.status == 64, "\(arguments): \(result)")
            for word in words { #expect(result.error.contains(word), "\(arguments): \(result.error)") }
        }
        // The same checks on the wire, for clients other than nookctl.
        let client = try daemon.client()
        for (line, field) in [(#"{"op":"history","since":-5}"#, "since"), (#"{"op":"history","unseen":"yes"}"#, "unseen"),
                              (#"{"op":"history-show","entry":"x"}"#, "entry"), (#"{"op":"history","limt":3}"#, "limt")] {
            try client.send(line)
            let answer = try ResponseLine.decode(try #require(try client.readLine()))
            guard case .failure(_, let error) = answer else { Issue.record("accepted \(line)"); continue }
            #expect(error.field == field, "\(line): \(error)")
        }
        #expect(try nookctl(["status"], socket: socket).status == 0, "nookd keeps serving")
        #expect(daemon.stop().status == 0)
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv to act as two users"))
    func u5_clearRemovesOnlyYourOwnEntriesUnlessYouAreRootOrAdmin() throws {
        let scratch = Scratch()
        chmod(scratch.path, 0o755)
        let config = scratch.file("nook.toml", "[daemon]\nsocket_mode = \"0666\"\njournal = \"\(scratch.path)/journal\"\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let socket = daemon.socket
        func nookctlAs(_ uid: Int, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", Built.nookctl] + arguments + ["--socket", socket]
            let output = Pipe.closedOnExec(), error = Pipe.closedOnExec()
            (process.standardOutput, process.standardError) = (output, error)
            try process.runAlone()
            let out = output.fileHandleForReading.readToEndOfFile(), err = error.fileHandleForReading.readToEndOfFile()
            process.waitForExit()
            return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
        }
        #expect(try nookctl(["suspend"], socket: socket).status == 0)
        for (uid, title) in [(65534, "nobody's 1"), (1, "daemon's"), (65534, "nobody's 2")] {
            let sent = try nookctlAs(uid, ["enqueue", "--title", title])
            #expect(sent.status == 0, "\(sent)")
            #expect(try nookctlAs(uid, ["cancel", sent.output.trimmingCharacters(in: .whitespacesAndNewlines)]).status == 0)
        }
        let cleared = try nookctlAs(65534, ["history", "clear"])
        #expect(cleared.status == 0 && cleared.output.contains("cleared 2 entries you sent"), "\(cleared)")
        #expect(try history(daemon).map(\.activity.title) == ["daemon's"])
        let all = try nookctl(["history", "clear", "--json"], socket: socket)
        #expect(all.status == 0 && all.output.contains("\"scope\":\"all\"") && all.output.contains("\"cleared\":1"), "\(all)")
        #expect(try history(daemon).isEmpty)
        #expect(daemon.stop().status == 0)
    }
}
