import Foundation
import NookActivities
import NookProtocol
import NookTestTraits
import Testing

@Suite("Z4 escalation of an unacknowledged blocker", .serialized, .ownThreads)
struct EscalationEndToEndTests {
    @Test func z4_theHookGetsTheActivityInItsEnvironmentAndAHostileTitleRunsNothing() throws {
        let scratch = Scratch()
        let out = scratch.path
        // The script is fixed; the activity arrives only in the environment.
        let script = scratch.file("hook.sh", "#!/bin/sh\nprintf '%s|%s|%s\\n' \"$NOOK_ESCALATION_STEP\" \"$NOOK_ACTIVITY_ID\" \"$NOOK_ACTIVITY_TITLE\" >> \(out)/hook.log\n")
        chmod(script, 0o755)
        // Run by sh, not executed itself: a script just written cannot be exec'd while any
        // process still holds it open for writing (ETXTBSY), and another test's child started
        // at that moment could have inherited the descriptor.
        let config = scratch.file("nook.toml", "[escalation]\nafter_s = 1\nevery_s = 1\nsteps = [\"hook\", \"hook\", \"hook\", \"hook\", \"hook\", \"hook\"]\non_escalate = [\"/bin/sh\", \"\(script)\"]\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let title = "$(touch \(out)/pwned1) `touch \(out)/pwned2` \"quoted\" 'single'; touch \(out)/pwned3 && echo $HOME"
        let alarm = NookActivity(priority: .high, title: title, presentation: .blocker(timeout: nil))
        try daemon.request(.enqueue(alarm, module: nil, wait: false))
        let log = out + "/hook.log"
        // The shell creates the file for `>>` before printf writes the line: wait for the line.
        // The steps' hooks run a second apart, each its own process, so under load the second
        // one's line can come first (an ASan pass once had it so): the first step's line is
        // looked for among them.
        try eventually("the first escalation's hook", timeout: 30) { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("\n") }
        try? eventually("the first step's line", timeout: 10) {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").contains { $0.hasPrefix("1|") }
        }
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains("1|\(alarm.id)|\(title)"[...]), "the title arrives verbatim: \(lines)")
        for name in ["pwned1", "pwned2", "pwned3"] {
            #expect(!FileManager.default.fileExists(atPath: out + "/" + name), "\(name): the title was run")
        }
        // Acknowledged: dismissing ends the blocker and the steps still to come. Counted in
        // nookd's own log, written as each step starts (a hook's line can come long after under
        // load); one step may start while the dismiss is on its way to the escalation.
        try daemon.request(.dismiss(alarm.id))
        let atTheDismiss = stepsStarted(of: alarm, in: daemon)
        usleep(2_500_000)
        #expect(stepsStarted(of: alarm, in: daemon) <= atTheDismiss + 1, "steps after the dismiss: \(daemon.log)")
        #expect(daemon.stop().status == 0)
    }

    /// How many escalation steps nookd has started for `activity`, by its log.
    func stepsStarted(of activity: NookActivity, in daemon: DaemonProcess) -> Int {
        daemon.log.components(separatedBy: "(hook) for \(activity.id), not acknowledged").count - 1
    }

    /// A nookd whose one escalation step, a second after a blocker shows, runs `script` in sh
    /// (given to sh to read, never exec'd itself: see above).
    func nookdWithOneHookStep(_ script: String, in scratch: Scratch, afterSeconds: Int = 1) throws -> DaemonProcess {
        let hook = scratch.file("hook.sh", "\(script)\n")
        let config = scratch.file("nook.toml", "[escalation]\nafter_s = \(afterSeconds)\nsteps = [\"hook\"]\non_escalate = [\"/bin/sh\", \"\(hook)\"]\n")
        return try DaemonProcess(scratch: scratch, arguments: ["--config", config])
    }

    @Test func z4_aHookInheritsNoClientConnection() throws {
        let scratch = Scratch()
        // What the hook holds open: a client's connection among them would stay open for as
        // long as the hook runs, however nookd closed it.
        let daemon = try nookdWithOneHookStep("for fd in /proc/self/fd/*; do readlink \"$fd\"; done > \(scratch.path)/fds.part\nmv \(scratch.path)/fds.part \(scratch.path)/fds", in: scratch)
        // What nookd itself was started with (here Foundation's socket pair to the test, which
        // a hook may share: under systemd there is none) is not a client's.
        func sockets(of directory: String) -> Set<String> {
            Set(((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).compactMap {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)).flatMap { $0.hasPrefix("socket:") ? $0 : nil }
            })
        }
        let atStart = sockets(of: "/proc/\(daemon.process.processIdentifier)/fd")
        let watcher = try daemon.client()
        _ = try watcher.request(Request(id: .number(1), operation: .status))
        let clients = sockets(of: "/proc/\(daemon.process.processIdentifier)/fd").subtracting(atStart)
        #expect(!clients.isEmpty, "the watcher's connection is one of nookd's descriptors")
        let alarm = NookActivity(title: "Freezer open", presentation: .blocker(timeout: nil))
        try daemon.request(.enqueue(alarm, module: nil, wait: false))
        let listing = scratch.path + "/fds"
        do {
            try eventually("the hook's listing", timeout: 30) { FileManager.default.fileExists(atPath: listing) }
        } catch {
            Issue.record("no listing from the hook; nookd's log ends: \(daemon.log.suffix(2000))")
            throw error
        }
        let targets = try String(contentsOfFile: listing, encoding: .utf8)
        let inherited = Set(targets.split(separator: "\n").map(String.init)).intersection(clients)
        #expect(inherited.isEmpty, "the hook inherited a client's connection: \(targets)")
        _ = watcher
        #expect(daemon.stop().status == 0)
    }

    @Test func z4_quietHoursHoldANormalBlockersEscalation() throws {
        // Quiet hours must begin inside the step's delay. A try in which the test itself took
        // longer than that (a loaded machine) judges nothing and is made again with a new nookd.
        let delay = 2
        for _ in 1...5 {
            let scratch = Scratch()
            let daemon = try nookdWithOneHookStep("touch \(scratch.path)/ran", in: scratch, afterSeconds: delay)
            let alarm = NookActivity(title: "Laundry done", presentation: .blocker(timeout: nil))
            let enqueued = Date()
            try daemon.request(.enqueue(alarm, module: nil, wait: false))
            try eventually("the blocker on the glass") { (try daemon.request(.status)).serialized.contains("Laundry done") }
            try daemon.request(.quiet(.on))
            guard Date().timeIntervalSince(enqueued) < Double(delay) else {
                _ = daemon.stop()
                continue
            }
            try eventually("the escalation to be skipped", timeout: 30) { daemon.log.contains("skipped, quiet hours") }
            #expect(!FileManager.default.fileExists(atPath: scratch.path + "/ran"))
            #expect(daemon.stop().status == 0)
            return
        }
        Issue.record("in five tries, quiet hours never began within \(delay) s of the enqueue: nothing was judged")
    }

    @Test func z4_theStepsSeeTheBlockerAsUpdatedNotAsEnqueued() throws {
        let scratch = Scratch()
        let log = scratch.path + "/hook.log"
        let hook = scratch.file("hook.sh", "printf '%s|%s\\n' \"$NOOK_ACTIVITY_TITLE\" \"$NOOK_ACTIVITY_PRIORITY\" >> \(log)\n")
        // Steps every 2 s for a while: some come after the update however late it lands.
        let steps = Array(repeating: "\"hook\"", count: 15).joined(separator: ", ")
        let config = scratch.file("nook.toml", "[escalation]\nafter_s = 2\nevery_s = 2\nsteps = [\(steps)]\non_escalate = [\"/bin/sh\", \"\(hook)\"]\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let watcher = try daemon.watcher()
        let alarm = NookActivity(title: "Laundry done", presentation: .blocker(timeout: nil))
        try daemon.request(.enqueue(alarm, module: nil, wait: false))
        // Its escalation starts when it is presented: the update comes after that.
        _ = try readEvents(watcher) { $0["id"] == .string(alarm.id.description) && $0["event"] == .string("presented") }
        // Quiet holds a normal blocker's steps; the update makes it high, which quiet lets through.
        try daemon.request(.quiet(.on))
        let updated = try nookctl(["update", alarm.id.description, "--priority", "high", "--title", "Freezer open"], socket: daemon.socket)
        #expect(updated.status == 0, "\(updated)")
        try eventually("a step with the card as it is now", timeout: 40) {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").contains("Freezer open|high")
        }
        #expect(daemon.stop().status == 0)
    }

    @Test func z4_aBlockerUpdatedToTimedStopsEscalating() throws {
        let scratch = Scratch()
        // Each step appends a line. Fifteen steps a second apart: an escalation that goes on
        // after the update leaves several more lines however late the update arrives.
        let runs = scratch.path + "/runs"
        let hook = scratch.file("hook.sh", "echo ran >> \(runs)\n")
        let steps = Array(repeating: "\"hook\"", count: 15).joined(separator: ", ")
        let config = scratch.file("nook.toml", "[escalation]\nafter_s = 5\nevery_s = 1\nsteps = [\(steps)]\non_escalate = [\"/bin/sh\", \"\(hook)\"]\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let watcher = try daemon.watcher()
        let alarm = NookActivity(title: "Download running", presentation: .blocker(timeout: nil))
        try daemon.request(.enqueue(alarm, module: nil, wait: false))
        _ = try readEvents(watcher) { $0["id"] == .string(alarm.id.description) && $0["event"] == .string("presented") }
        // Timed now, with a dwell well past the steps: nobody needs to acknowledge it.
        let updated = try nookctl(["update", alarm.id.description, "--timed", "--dwell", "60"], socket: daemon.socket)
        #expect(updated.status == 0, "\(updated)")
        _ = try readEvents(watcher) { $0["id"] == .string(alarm.id.description) && $0["event"] == .string("updated") }
        // Steps that ran before the update (a loaded machine can start nookctl after the first
        // was due) ran as they should; from the update on, at most one already under way when
        // the update reached the escalation. Counted in nookd's log, written as each step
        // starts: a hook's own line can land long after its step under load.
        let atTheUpdate = stepsStarted(of: alarm, in: daemon)
        usleep(8_000_000)
        let after = stepsStarted(of: alarm, in: daemon)
        #expect(after <= atTheUpdate + 1, "a timed card went on escalating: \(after) steps, \(atTheUpdate) at the update")
        // Each step nookd started ran its hook (the hooks are what a regression would show).
        try eventually("each started step's hook", timeout: 30) {
            ((try? String(contentsOfFile: runs, encoding: .utf8)) ?? "").split(separator: "\n").count == after
        }
        #expect((try daemon.request(.status)).serialized.contains("Download running"), "still on the glass")
        #expect(daemon.stop().status == 0)
    }

    @Test func z4_aTimedCardUpdatedIntoABlockerOnTheGlassEscalatesFromTheUpdate() throws {
        let scratch = Scratch()
        let daemon = try nookdWithOneHookStep("touch \(scratch.path)/ran", in: scratch)
        let watcher = try daemon.watcher()
        let card = NookActivity(title: "Oven preheated", dwell: .seconds(60))
        try daemon.request(.enqueue(card, module: nil, wait: false))
        _ = try readEvents(watcher) { $0["id"] == .string(card.id.description) && $0["event"] == .string("presented") }
        let updated = try nookctl(["update", card.id.description, "--blocker"], socket: daemon.socket)
        #expect(updated.status == 0, "\(updated)")
        try eventually("the hook of the blocker it became", timeout: 30) { FileManager.default.fileExists(atPath: scratch.path + "/ran") }
        #expect(daemon.stop().status == 0)
    }

    @Test func z4_aHookStepWithoutACommandIsAConfigError() throws {
        let scratch = Scratch()
        let path = scratch.file("bad.toml", "[escalation]\nsteps = [\"brighter\", \"hook\"]\n")
        let daemon = try DaemonProcess.exited(scratch: scratch, arguments: ["--config", path])
        #expect(daemon.process.terminationStatus == 2)
        #expect(daemon.log.contains("escalation.on_escalate: the hook step needs a command"), "\(daemon.log)")
    }

    /// nookd catches SIGTERM, SIGINT and SIGHUP from its first line and ignores SIGXFSZ; a hook
    /// it starts has none of that: no signal blocked, ignored or caught.
    @Test func z4_n2_aHookStartsWithNoSignalBlockedIgnoredOrCaught() throws {
        let scratch = Scratch()
        let daemon = try nookdWithOneHookStep("cat /proc/self/status > \(scratch.path)/signals.part\nmv \(scratch.path)/signals.part \(scratch.path)/signals", in: scratch)
        try daemon.request(.enqueue(NookActivity(title: "Freezer open", presentation: .blocker(timeout: nil)), module: nil, wait: false))
        let listing = scratch.path + "/signals"
        try eventually("the hook's signal state", timeout: 30) { FileManager.default.fileExists(atPath: listing) }
        // cat, started by the hook's sh, catches nothing itself; what nookd's spawn leaves blocked
        // or ignored, sh passes on to it. Signals 1 to 31 (bit n-1 each): the ones above are the
        // C library's own and real-time ones, out of a hook's concern.
        let lines = try String(contentsOfFile: listing, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("SigBlk:") || $0.hasPrefix("SigIgn:") || $0.hasPrefix("SigCgt:") }
        let masks = lines.compactMap { line in line.split(separator: ":").last.flatMap { UInt64($0.trimmingCharacters(in: .whitespaces), radix: 16) } }
        #expect(masks.count == 3 && masks.allSatisfy { $0 & 0x7fff_ffff == 0 }, "\(lines)")
        #expect(daemon.stop().status == 0)
    }
}
