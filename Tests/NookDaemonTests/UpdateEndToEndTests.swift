import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// U1 and U3 through nookd and nookctl: a card updated in place, journalled, and owned.
@Suite("U1 U3 end to end: update in place, durable, owned by its sender", .serialized, .ownThreads)
struct UpdateEndToEndTests {
    @Test func u1_aProgressCardIsUpdatedInPlaceThenBecomesATimedResultThatEndsOnItsOwn() throws {
        let daemon = try DaemonProcess()
        let socket = daemon.socket
        let watcher = try daemon.watcher()
        let enqueued = try nookctl(["enqueue", "--title", "Downloading", "--key", "dl", "--blocker", "--progress", "0.1"], socket: socket)
        #expect(enqueued.status == 0, "\(enqueued)")
        let id = enqueued.output.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try readEvents(watcher) { $0["id"] == .string(id) && $0["event"] == .string("presented") }

        let forty = try nookctl(["update", "--key", "dl", "--progress", "0.4"], socket: socket)
        #expect(forty.status == 0 && forty.output.contains(id) && forty.output.contains("on screen: progress"), "\(forty)")
        let seventy = try nookctl(["update", id, "--progress", "0.7", "--json"], socket: socket)
        #expect(seventy.status == 0 && seventy.output.contains("\"fields\":[\"progress\"]"), "\(seventy)")
        let outside = try nookctl(["update", id, "--icon", "/etc/passwd.png"], socket: socket)
        #expect(outside.status == ExitCodes.refused && outside.error.contains("icon"), "icon files come only from icon_directories: \(outside)")
        let done = try nookctl(["update", "--key", "dl", "--title", "Download complete", "--timed", "--dwell", "1", "--clear", "progress"], socket: socket)
        #expect(done.status == 0 && done.output.contains("title") && done.output.contains("blocker"), "\(done)")

        let events = try readEvents(watcher) { $0["id"] == .string(id) && $0["event"] == .string("hidden") }
        let kinds = events.filter { $0["id"] == .string(id) }.compactMap { $0["event"]?.text }
        #expect(kinds == ["updated", "updated", "updated", "animateOut", "hidden"], "no slide out and in between: \(events)")
        let updates = events.filter { $0["event"] == .string("updated") }
        let fields: [[String]] = updates.map { $0["fields"]?.items.compactMap(\.text) ?? [] }
        #expect(fields == [["progress"], ["progress"], ["title", "dwell", "blocker", "progress"]])
        #expect(events.last?["reason"] == .string("completed") && events.last?["title"] == .string("Download complete"),
                "the blocker turned timed ended on its own: \(events.last.map { "\($0)" } ?? "")")

        let ended = try nookctl(["update", id, "--progress", "0.9"], socket: socket)
        #expect(ended.status == ExitCodes.notFound && ended.error.contains("ended"), "\(ended)")
        let bad = try nookctl(["update", "--key", "dl", "--tint", "chartreuse"], socket: socket)
        #expect(bad.status == 64 && bad.error.contains("--tint"), "checked before nookd is asked: \(bad)")
        #expect(daemon.stop().status == 0)
    }

    @Test func u1_j1_anAcknowledgedUpdateSurvivesKill9() throws {
        let scratch = Scratch()
        let arguments = ["--journal", scratch.path + "/journal"]
        var daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        #expect(try nookctl(["suspend"], socket: daemon.socket).status == 0)
        let first = try nookctl(["enqueue", "--title", "first"], socket: daemon.socket).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let second = try nookctl(["enqueue", "--title", "Downloading", "--key", "dl", "--progress", "0.4"], socket: daemon.socket)
            .output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try nookctl(["update", "--key", "dl", "--progress", "0.7", "--subtitle", "70 %"], socket: daemon.socket).status == 0)
        daemon.crash()
        daemon = try DaemonProcess(scratch: scratch, arguments: arguments + ["--config", scratch.file("nook.toml", "")])
        try daemon.request(.suspend(module: nil))
        let list = try ListAnswer(json: daemon.request(.list(module: nil)))
        let pending = list.modules.flatMap { ($0.current.map { [$0] } ?? []) + $0.pending }
        #expect(pending.map(\.id.description) == [first, second], "the updated one kept its place")
        #expect(pending.last?.progress == 0.7 && pending.last?.subtitle == "70 %", "\(pending)")
        #expect(daemon.stop().status == 0)
    }

    /// Runs nookctl as another user (uid, gid, no supplementary groups) with `setpriv`.
    func nookctlAs(_ uid: Int, gid: Int, _ arguments: [String], socket: String) throws -> (status: Int32, output: String, error: String) {
        try run("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", Built.nookctl] + arguments + ["--socket", socket])
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv to act as two users"))
    func u3_anotherUserCannotUpdateCancelOrDismissYourCardButRootAndTheAdminGroupCan() throws {
        let scratch = Scratch()
        chmod(scratch.path, 0o755)
        let config = scratch.file("nook.toml", "[daemon]\nsocket_mode = \"0666\"\nadmin_group = \"adm\"\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let socket = daemon.socket
        let (owner, other, admin) = ((uid: 65534, gid: 65534), (uid: 1, gid: 1), (uid: 2, gid: 4))
        let sent = try nookctlAs(owner.uid, gid: owner.gid, ["enqueue", "--title", "mine", "--blocker"], socket: socket)
        #expect(sent.status == 0, "\(sent)")
        let id = sent.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try eventually("the card on the glass", timeout: 30) { try nookctl(["status"], socket: socket).output.contains("held by blocker") }

        for arguments in [["update", id, "--title", "yours now"], ["cancel", id], ["dismiss", id], ["dismiss"]] {
            let refused = try nookctlAs(other.uid, gid: other.gid, arguments, socket: socket)
            #expect(refused.status == ExitCodes.notOwner, "\(arguments): \(refused)")
            #expect(refused.error.contains("uid 1 may not") && refused.error.contains("sent by uid 65534"), "\(refused.error)")
        }
        let byKey = try nookctl(["enqueue", "--title", "root's", "--key", "k"], socket: socket)
        #expect(byKey.status == 0)
        let refusedByKey = try nookctlAs(other.uid, gid: other.gid, ["update", "--key", "k", "--title", "x"], socket: socket)
        #expect(refusedByKey.status == ExitCodes.notOwner, "\(refusedByKey)")

        let list = try nookctl(["list"], socket: socket).output
        #expect(list.contains("mine"), "nothing changed: \(list)")
        #expect(try nookctlAs(owner.uid, gid: owner.gid, ["update", id, "--subtitle", "still mine"], socket: socket).status == 0)
        #expect(try nookctlAs(admin.uid, gid: admin.gid, ["update", id, "--progress", "0.5"], socket: socket).status == 0,
                "a member of daemon.admin_group acts on all")
        let dismissed = try nookctl(["dismiss", id], socket: socket)
        #expect(dismissed.status == 0, "root acts on all: \(dismissed)")
        #expect(daemon.stop().status == 0)
    }
}
