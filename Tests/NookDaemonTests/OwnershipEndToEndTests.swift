import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// U3 beyond `update`, `cancel` and `dismiss` by id, with real uids: a key reaches only its
/// sender's cards (an admin's reaches all), and what changes the whole device is for admins.
@Suite("U3 end to end: keys per sender, whole-device operations for admins", .serialized, .ownThreads)
struct OwnershipEndToEndTests {
    static let canSwitchUsers = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    /// nobody, daemon, and bin with the adm group as its primary group (the admin group here).
    let owner = (uid: 65534, gid: 65534), other = (uid: 1, gid: 1), admin = (uid: 2, gid: 4)

    /// Runs nookctl as another user (uid, gid, no supplementary groups) with `setpriv`.
    func nookctlAs(_ user: (uid: Int, gid: Int), _ arguments: [String], socket: String) throws -> (status: Int32, output: String, error: String) {
        try run("/usr/bin/setpriv", ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", Built.nookctl] + arguments + ["--socket", socket])
    }

    /// Sends one request line as another user through socat (nookctl has no way to give a
    /// card a new key) and returns the first line of the answer.
    func requestAs(_ user: (uid: Int, gid: Int), _ operation: NookOperation, socket: String) throws -> JSONValue {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        // -t: once its input ends (after the answer was read), socat waits this long, then quits.
        process.arguments = ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "/usr/bin/socat", "-t", "0.2", "-", "UNIX-CONNECT:" + socket]
        let input = Pipe.closedOnExec(), output = Pipe.closedOnExec()
        process.standardInput = input
        process.standardOutput = output
        try process.runAlone()
        defer {
            try? input.fileHandleForWriting.close()
            process.waitForExit()
        }
        input.fileHandleForWriting.write(Data((Request(id: .number(1), operation: operation).encoded() + "\n").utf8))
        var answer = Data()
        while !answer.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            guard !more.isEmpty else { throw DaemonFailure("socat ended before the answer: \(String(decoding: answer, as: UTF8.self))") }
            answer += more
        }
        return try JSONValue.parse(answer.prefix { $0 != UInt8(ascii: "\n") })
    }

    /// A nookd every user may reach, with `adm` as its admin group.
    func start(_ scratch: Scratch, _ extra: String = "") throws -> DaemonProcess {
        chmod(scratch.path, 0o755)
        let config = scratch.file("nook.toml", "[daemon]\nsocket_mode = \"0666\"\nadmin_group = \"adm\"\n" + extra)
        return try DaemonProcess(scratch: scratch, arguments: ["--config", config])
    }

    func pendingTitles(_ socket: String) throws -> [String] {
        let list = try ListAnswer(json: JSONValue.parse(nookctl(["list", "--json"], socket: socket).output.utf8))
        return list.modules.flatMap { $0.pending.map(\.title) }
    }

    func enqueued(_ result: (status: Int32, output: String, error: String)) -> String {
        #expect(result.status == 0, "\(result)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.enabled(if: canSwitchUsers, "needs root and setpriv to act as several users"))
    func u3_aKeyReachesOnlyItsSendersPendingCardsAndAnAdminsReachesAll() throws {
        let scratch = Scratch()
        let daemon = try start(scratch)
        let socket = daemon.socket
        #expect(try nookctl(["suspend"], socket: socket).status == 0, "everything stays pending")

        _ = enqueued(try nookctlAs(owner, ["enqueue", "--title", "owner k", "--key", "k"], socket: socket))
        _ = enqueued(try nookctlAs(other, ["enqueue", "--title", "other k", "--key", "k"], socket: socket))
        #expect(try pendingTitles(socket) == ["owner k", "other k"], "another user's key coalesces nothing of the owner's")
        _ = enqueued(try nookctlAs(other, ["enqueue", "--title", "other k again", "--key", "k"], socket: socket))
        #expect(try pendingTitles(socket) == ["owner k", "other k again"], "a user's key still coalesces its own")

        // A key given by update reaches no further than one given by enqueue.
        _ = enqueued(try nookctlAs(owner, ["enqueue", "--title", "owner k2", "--key", "k2"], socket: socket))
        let moved = enqueued(try nookctlAs(other, ["enqueue", "--title", "other x", "--key", "x"], socket: socket))
        let rekeyed = try requestAs(other, .update(.id(NookActivityID(moved)!), changes: ActivityChanges(members: [("key", .string("k2"))]), restartDwell: false),
                                    socket: socket)
        #expect(rekeyed["ok"] == .bool(true), "\(rekeyed)")
        #expect(try nookctlAs(other, ["update", "--key", "k2", "--title", "other x, now k2"], socket: socket).status == 0)
        #expect(try pendingTitles(socket) == ["owner k", "other k again", "owner k2", "other x, now k2"], "the owner's k2 card is left alone")

        // cancel-all KEY ends only the caller's own.
        let cancelled = try nookctlAs(other, ["cancel-all", "k", "--json"], socket: socket)
        #expect(cancelled.status == 0 && cancelled.output.contains("\"cancelled\":1"), "\(cancelled)")
        #expect(try pendingTitles(socket) == ["owner k", "owner k2", "other x, now k2"])

        // An admin's key reaches everyone's: a member of the admin group, then root.
        _ = enqueued(try nookctlAs(admin, ["enqueue", "--title", "admin k", "--key", "k"], socket: socket))
        #expect(try pendingTitles(socket) == ["owner k2", "other x, now k2", "admin k"])
        _ = enqueued(try nookctl(["enqueue", "--title", "root k2", "--key", "k2"], socket: socket))
        #expect(try pendingTitles(socket) == ["admin k", "root k2"], "root's k2 coalesced the owner's and the other's")
        #expect(daemon.stop().status == 0)
    }

    /// `queue.per_sender` with two peers of different uids: the relay (root here, as
    /// `daemon.relay_users` says) has a share per name it states; another user stating names
    /// has its uid's one share for all of them.
    @Test(.enabled(if: canSwitchUsers, "needs root and setpriv to act as several users"))
    func q16_u3_onlyTheRelayUserGetsAShareForEachNameItStates() throws {
        let scratch = Scratch()
        let daemon = try start(scratch, "relay_users = [\"root\"]\n[queue]\nper_sender = 1\n")
        defer { _ = daemon.stop() }
        #expect(try nookctl(["suspend"], socket: daemon.socket).status == 0, "everything stays pending")
        func enqueue(_ title: String, as name: String, by user: (uid: Int, gid: Int)?) throws -> JSONValue {
            let card = NookActivity(title: title, sender: NookSender(uid: 0, pid: 0, name: name))
            let operation = NookOperation.enqueue(card, module: nil, wait: false)
            if let user { return try requestAs(user, operation, socket: daemon.socket) }
            do {
                return .object([("ok", .bool(true)), ("result", try daemon.request(operation))])
            } catch ClientError.daemon(let error) {
                return .object([("ok", .bool(false)), ("error", error.json)])
            }
        }
        for name in ["alice", "bob", "carol"] {
            let sent = try enqueue("relayed for \(name)", as: name, by: nil)
            #expect(sent["ok"] == .bool(true), "the relay's \(name) has a share of its own: \(sent)")
        }
        #expect(try enqueue("nobody as alice", as: "alice", by: owner)["ok"] == .bool(true))
        let second = try enqueue("nobody as bob", as: "bob", by: owner)
        #expect(second["ok"] == .bool(false))
        #expect(second["error"]?["code"]?.text == "queueFull")
        #expect(second["error"]?["message"]?.text?.hasPrefix("uid \(owner.uid) (whose stated senders share its own share: it is not in daemon.relay_users)") == true,
                "\(second)")
        #expect(try pendingTitles(daemon.socket) == ["relayed for alice", "relayed for bob", "relayed for carol", "nobody as alice"])
    }

    @Test(.enabled(if: canSwitchUsers, "needs root and setpriv to act as several users"))
    func u3_j1_twoSendersCardsWithOneKeyBothComeBackAfterKill9() throws {
        let scratch = Scratch()
        chmod(scratch.path, 0o755)
        let config = scratch.file("nook.toml", "[daemon]\nsocket_mode = \"0666\"\nadmin_group = \"adm\"\n")
        let arguments = ["--config", config, "--journal", scratch.path + "/journal"]
        var daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        #expect(try nookctl(["suspend"], socket: daemon.socket).status == 0)
        // Long dwells: the restored queue is not suspended, and the first may be on the glass.
        _ = enqueued(try nookctlAs(owner, ["enqueue", "--title", "owner k", "--key", "k", "--dwell", "120"], socket: daemon.socket))
        _ = enqueued(try nookctlAs(other, ["enqueue", "--title", "other k", "--key", "k", "--dwell", "120"], socket: daemon.socket))
        daemon.crash()
        daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        let list = try ListAnswer(json: JSONValue.parse(nookctl(["list", "--json"], socket: daemon.socket).output.utf8)).modules[0]
        let live = (list.current.map { [$0] } ?? []) + list.pending
        #expect(live.map(\.title) == ["owner k", "other k"], "the restore coalesced neither")
        #expect(daemon.stop().status == 0)
    }

    @Test(.enabled(if: canSwitchUsers, "needs root and setpriv to act as several users"))
    func u3_whatChangesTheWholeDeviceIsRefusedToAnOrdinaryUserAndDoneForAnAdmin() throws {
        let scratch = Scratch()
        let daemon = try start(scratch, "[quiet]\nsuppress = [\"low\"]\n")
        let socket = daemon.socket
        #expect(try nookctl(["suspend"], socket: socket).status == 0)
        _ = enqueued(try nookctlAs(owner, ["enqueue", "--title", "owner low", "--priority", "low"], socket: socket))

        let refused: [[String]] = [["quiet", "on"], ["quiet", "until", "45m"], ["quiet", "off"], ["suspend"], ["resume"], ["quiesce"],
                                   ["focus", "default"], ["home", "text", "--text", "mine now"]]
        for arguments in refused {
            let answer = try nookctlAs(other, arguments, socket: socket)
            #expect(answer.status == ExitCodes.notOwner, "\(arguments): \(answer)")
            #expect(answer.error.contains("uid 1 may not") && answer.error.contains("group 'adm'"), "\(arguments): \(answer.error)")
        }
        #expect(try pendingTitles(socket) == ["owner low"], "the other user's quiet ended nothing")
        let status = try nookctl(["status", "--json"], socket: socket).output
        #expect(status.contains("\"suspended\":true") && !status.contains("mine now"), "\(status)")
        let quiet = try nookctlAs(other, ["quiet", "status"], socket: socket)
        #expect(quiet.status == 0 && quiet.output.hasPrefix("not quiet"), "reading is open: \(quiet)")

        // A member of the admin group may, and its quiet reaches everyone's cards.
        for arguments in [["home", "text", "--text", "admin's"], ["focus", "default"], ["resume"], ["suspend"], ["quiet", "on"]] {
            let answer = try nookctlAs(admin, arguments, socket: socket)
            #expect(answer.status == 0, "\(arguments): \(answer)")
        }
        #expect(try pendingTitles(socket).isEmpty, "the admin's quiet ended the low card as suppressed")
        #expect(try nookctl(["status", "--json"], socket: socket).output.contains("admin's"))
        #expect(daemon.stop().status == 0)
    }

    @Test(.enabled(if: canSwitchUsers, "needs root and setpriv to act as several users"))
    func u3_aReloadGivesAdminRightsToTheNewGroupAndTakesThemFromTheOldOne() throws {
        let scratch = Scratch()
        let daemon = try start(scratch)
        let socket = daemon.socket
        #expect(try nookctlAs(other, ["suspend"], socket: socket).status == ExitCodes.notOwner)
        #expect(try nookctlAs(admin, ["suspend"], socket: socket).status == 0)

        // The group `daemon` (the other user's) becomes the admin group: adm's rights end.
        _ = scratch.file("nook.toml", "[daemon]\nsocket_mode = \"0666\"\nadmin_group = \"daemon\"\n")
        kill(daemon.process.processIdentifier, SIGHUP)
        try eventually("the reload's note") { daemon.log.contains("SIGHUP: reloaded") }
        #expect(try nookctlAs(other, ["resume"], socket: socket).status == 0)
        let revoked = try nookctlAs(admin, ["suspend"], socket: socket)
        #expect(revoked.status == ExitCodes.notOwner && revoked.error.contains("group 'daemon'"), "\(revoked)")

        // A group that does not exist keeps the running config, admin group and all.
        _ = scratch.file("nook.toml", "[daemon]\nsocket_mode = \"0666\"\nadmin_group = \"no-such-nook-group\"\n")
        kill(daemon.process.processIdentifier, SIGHUP)
        try eventually("the refusal") { daemon.log.contains("no group named 'no-such-nook-group'") }
        #expect(daemon.log.contains("keeping the running config"))
        #expect(try nookctlAs(other, ["suspend"], socket: socket).status == 0)
        #expect(try nookctlAs(admin, ["resume"], socket: socket).status == ExitCodes.notOwner)
        #expect(daemon.stop().status == 0)
    }

    @Test func u1_anUpdateByKeyThatOneCardRefusesChangesNone() throws {
        let daemon = try DaemonProcess()
        let socket = daemon.socket
        let blocker = enqueued(try nookctl(["enqueue", "--title", "blocker", "--key", "k", "--blocker"], socket: socket))
        try eventually("the blocker on the glass", timeout: 30) { try nookctl(["status"], socket: socket).output.contains("held by blocker") }
        let timed = enqueued(try nookctl(["enqueue", "--title", "timed", "--key", "k"], socket: socket))

        let refused = try nookctl(["update", "--key", "k", "--timeout", "30", "--title", "CHANGED"], socket: socket)
        #expect(refused.status == ExitCodes.refused && refused.error.contains("changes.timeout"), "\(refused)")
        let list = try ListAnswer(json: JSONValue.parse(nookctl(["list", "--json"], socket: socket).output.utf8)).modules[0]
        #expect(list.current?.id.description == blocker && list.current?.title == "blocker", "the blocker was left as it was: \(list)")
        #expect(list.pending.map(\.title) == ["timed"])

        let both = try nookctl(["update", "--key", "k", "--title", "CHANGED", "--json"], socket: socket)
        #expect(both.status == 0 && both.output.contains(blocker) && both.output.contains(timed), "\(both)")
        #expect(try nookctl(["dismiss", blocker], socket: socket).status == 0)
        #expect(daemon.stop().status == 0)
    }

    /// A1 with U3's rules: an app is its sender's; another user can neither replace nor remove
    /// it, a member of the admin group and root can, and a new name is anyone's to set.
    @Test(.enabled(if: canSwitchUsers, "needs root and setpriv to act as several users"))
    func a1_u3_anAppIsItsSendersAnotherUserCannotChangeOrRemoveItAnAdminCan() throws {
        let scratch = Scratch()
        let daemon = try start(scratch)
        let socket = daemon.socket
        #expect(try nookctlAs(owner, ["app", "set", "weather", "--text", "21 °C"], socket: socket).status == 0)
        let replaced = try nookctlAs(other, ["app", "set", "weather", "--text", "hijacked"], socket: socket)
        #expect(replaced.status == 5, "forbidden: \(replaced)")
        #expect(replaced.error.contains("may not replace app 'weather'") && replaced.error.contains("set by uid 65534"), "\(replaced)")
        let removed = try nookctlAs(other, ["app", "rm", "weather"], socket: socket)
        #expect(removed.status == 5 && removed.error.contains("may not remove app 'weather'"), "\(removed)")
        #expect(try nookctlAs(other, ["app", "set", "bus", "--text", "Bus 12"], socket: socket).status == 0, "a new name is anyone's")
        let shown = try nookctlAs(other, ["app", "show", "weather"], socket: socket)
        #expect(shown.status == 0 && shown.output.contains("text: 21 °C"), "anyone may read it: \(shown)")
        #expect(try nookctlAs(admin, ["app", "set", "weather", "--text", "22 °C"], socket: socket).status == 0, "the admin group may")
        #expect(try nookctl(["app", "rm", "bus"], socket: socket).status == 0, "root may")
        #expect(try nookctlAs(owner, ["app", "rm", "weather"], socket: socket).status == 0, "an admin's update leaves it its sender's")
        #expect(daemon.stop().status == 0)
    }
}
