import Foundation
import NookTestSupport
import NookActivities
import NookProtocol
import NookTestTraits
import Testing

/// Through nookd and nookctl: a duplicate id, and expiry with nobody
/// reading the queue.
@Suite("Q13 Q17 end to end: duplicate ids, expiry on a deadline", .serialized, .ownThreads)
struct DuplicateIdsAndExpiryEndToEndTests {
    @Test func q13_aDuplicateIdIsRefusedAndTheOriginalKeepsItsWaitItsEventsAndItsJournalRecord() throws {
        let scratch = Scratch()
        let arguments = ["--journal", scratch.path + "/journal",
                         "--config", scratch.file("nook.toml", "[queue]\nmodules = [\"default\", \"other\"]\n")]
        var daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        let socket = daemon.socket
        let watcher = try daemon.watcher()

        #expect(try nookctl(["enqueue", "--title", "b0", "--blocker"], socket: socket).status == 0)
        let id = "33333333-4444-4555-8666-777777777777"
        let original = try startNookctl(["enqueue", "--title", "original", "--id", id, "--blocker", "--wait"], socket: socket)
        defer { if original.isRunning { original.terminate() } }
        try eventually("the original pending") { try nookctl(["list"], socket: socket).output.contains(id) }

        let duplicate = try nookctl(["enqueue", "--title", "dup", "--id", id], socket: socket)
        #expect(duplicate.status == ExitCodes.refused)
        #expect(duplicate.error.contains("id") && duplicate.error.contains("already"), "\(duplicate.error)")
        let elsewhere = try nookctl(["enqueue", "--title", "dup", "--id", id, "--module", "other"], socket: socket)
        #expect(elsewhere.status == ExitCodes.refused, "an id is unique across modules: \(elsewhere)")
        let invalid = try nookctl(["enqueue", "--title", "dup", "--id", id, "--dwell", "-1"], socket: socket)
        #expect(invalid.status != 0)

        // Events leave in order: once the marker's arrives, anything said about the original has.
        let marker = try nookctl(["enqueue", "--title", "marker"], socket: socket).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let seen = try readEvents(watcher) { $0["id"] == .string(marker) && $0["event"] == .string("enqueued") }
        let aboutOriginal = seen.filter { $0["id"] == .string(id) }.compactMap { $0["event"]?.text }
        #expect(aboutOriginal == ["enqueued"], "the live activity's events are untouched: \(seen)")
        #expect(original.isRunning, "the original's --wait still waits")
        let listed = try nookctl(["list", "--json"], socket: socket).output
        #expect(listed.contains("\"original\"") && !listed.contains("\"dup\""))

        #expect(daemon.stop().status == 0)
        original.waitForExit()
        #expect(original.terminationStatus != ExitCodes.rejected)
        daemon = try DaemonProcess(scratch: scratch, arguments: arguments)
        #expect(try nookctl(["list"], socket: daemon.socket).output.contains(id), "the original survives a clean restart")
        #expect(daemon.stop().status == 0)
    }

    @Test func q17_anActivityExpiresWhileSuspendedWithNobodyLooking() throws {
        let daemon = try DaemonProcess()
        #expect(try nookctl(["suspend"], socket: daemon.socket).status == 0)
        let waiter = try startNookctl(["enqueue", "--title", "e", "--expires-after", "1", "--wait"], socket: daemon.socket)
        defer { if waiter.isRunning { waiter.terminate() } }
        // Only the process is watched: no request reads the queue meanwhile.
        try eventually("the --wait to return", timeout: 10) { !waiter.isRunning }
        #expect(waiter.terminationStatus == ExitCodes.expired)
        #expect(daemon.stop().status == 0)
    }

    @Test func q10_focusElsewhereLeavesASuspendedModuleSuspended() throws {
        let scratch = Scratch()
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", scratch.file("nook.toml", "[queue]\nmodules = [\"a\", \"b\"]\n")])
        let socket = daemon.socket
        #expect(try nookctl(["suspend", "--module", "a"], socket: socket).status == 0)
        #expect(try nookctl(["enqueue", "--title", "held", "--module", "a", "--priority", "high"], socket: socket).status == 0)
        #expect(try nookctl(["focus", "b"], socket: socket).status == 0)
        let modules = try daemon.request(.status)["modules"]?.items ?? []
        let a = modules.first { $0["name"] == .string("a") }
        #expect(a?["suspended"] == .bool(true), "focus must not resume what the user suspended: \(modules)")
        #expect(a?["pending"] == .number(1) && a?["current"] == .null, "the held card stays held")
        #expect(daemon.stop().status == 0)
    }

    @Test func q13_twoClientsRacingWithOneIdIntoTwoModulesGetOneAcceptance() throws {
        let scratch = Scratch()
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", scratch.file("nook.toml", "[queue]\nmodules = [\"a\", \"b\"]\n")])
        try daemon.request(.suspend(module: nil))
        let ids = (0..<150).map { _ in NookActivityID() }
        let accepted = Locked<[NookActivityID: Int]>([:])
        let group = DispatchGroup()
        let socket = daemon.socket
        for module in ["a", "b"] {
            group.enter()
            Thread {
                defer { group.leave() }
                guard let client = try? NookClient(path: socket) else { return }
                client.readTimeout = TestBounds.duration(.seconds(10))
                // Pipelined, so both connections' requests interleave inside nookd.
                let lines = ids.enumerated().map { index, id in
                    Request(id: .number(Double(index)), operation: .enqueue(NookActivity(id: id, title: "\(module)"), module: module, wait: false)).encoded() + "\n"
                }
                try? client.sendRaw(Array(lines.joined().utf8))
                for _ in ids {
                    guard let line = try? client.readLine(), case .success(_, let result)? = try? ResponseLine.decode(line),
                          let id = result["id"]?.text.flatMap(NookActivityID.init) else { continue }
                    accepted.withLock { $0[id, default: 0] += 1 }
                }
            }.start()
        }
        group.wait()
        let counts = accepted.withLock { $0 }
        #expect(ids.allSatisfy { counts[$0] == 1 }, "each id accepted exactly once: \(ids.filter { counts[$0] != 1 }.count) were not")
        #expect(daemon.stop().status == 0)
    }
}
