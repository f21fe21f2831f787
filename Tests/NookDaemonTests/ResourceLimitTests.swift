import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// C1, D3: nookd bounds what a client or a long run can make it hold: open connections
/// (`daemon.max_connections`) and the mock's frame files (`display.frames_limit`).
@Suite("C1 D3 resource limits", .serialized, .ownThreads)
struct ResourceLimitTests {
    /// Opens `count` idle connections, checks nookd counts them, and returns them with the
    /// refusal the next one hears (`unavailable`, then closed).
    func fill(_ daemon: DaemonProcess, with count: Int) throws -> ([NookClient], ProtocolError) {
        // Status is asked on one of the idle connections: a connection of its own would count.
        var idle = [try daemon.client()]
        func openConnections() throws -> JSONValue? {
            try idle[0].request(Request(id: .number(1), operation: .status))["connections"]
        }
        try eventually("only the first idle connection") { try openConnections() == .number(1) }
        for _ in 1..<count { idle.append(try daemon.client()) }
        try eventually("\(count) idle connections, earlier ones gone") { try openConnections() == .number(Double(count)) }
        let refused = try daemon.client()
        let answer = try #require(try refused.readLine())
        guard case .failure(_, let error) = try ResponseLine.decode(answer) else { throw DaemonFailure("not refused: \(answer)") }
        #expect(error.code == .unavailable)
        #expect(try refused.readLine() == nil, "then closed")
        return (idle, error)
    }

    @Test func c1_connectionsPastTheLimitAreRefusedWithAReasonAndALogLine() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[daemon]\nmax_connections = 8\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        var (idle, error) = try fill(daemon, with: 8)
        #expect(error.message.contains("daemon.max_connections"), "\(error)")
        try eventually("the log line") { daemon.log.contains("refusing new connections: nookd already serves 8 connections, the most daemon.max_connections allows") }

        idle.removeLast(2)
        try eventually("room again") { try idle[0].request(Request(id: .number(1), operation: .status))["connections"] == .number(6) }
        #expect(try daemon.request(.status)["connections"] == .number(7))
        #expect(daemon.stop().status == 0)
    }

    @Test func c1_maxConnectionsIsCutToWhatTheDescriptorLimitHolds() throws {
        // 80 descriptors, 64 kept for nookd itself: 16 clients, whatever max_connections says.
        let daemon = try DaemonProcess(launcher: ["/usr/bin/prlimit", "--nofile=80:80", "--"])
        try eventually("the warning") {
            daemon.log.contains("daemon.max_connections = 256 needs 320 descriptors but the limit is 80") && daemon.log.contains("serving at most 16 connections")
        }
        let (idle, error) = try fill(daemon, with: 16)
        #expect(error.message.contains("16 connections"), "\(error)")
        #expect(idle.count == 16)
        #expect(daemon.stop().status == 0)
    }

    /// Every open-file limit too small to start nookd ends it with one clear error, exit
    /// status 1, never a crash: nookd checks the limit before anything else, since libdispatch
    /// (the platform's executors, every nookd built by Swift 6.0) stops the process with SIGILL
    /// when it cannot get a descriptor, and nookd's own executors failed at whichever call ran
    /// out first. The limit it asks for is enough to start, and a soft limit below it is raised
    /// toward the hard one.
    @Test func n1_aDescriptorLimitTooSmallToStartIsAnErrorNotACrash() throws {
        let needed = 32
        try startNookd(underLimits: Array(4...16).map { "\($0):\($0)" } + ["\(needed - 1):\(needed - 1)", "\(needed):\(needed)", "8:\(needed)"],
                       needed: needed)
    }

    /// The smallest limit, only the standard streams' three descriptors: the same clear error.
    /// binfmt_misc (without its `O` flag) leaves qemu-user to open the program itself, which
    /// needs a fourth descriptor: qemu exits 1 before nookd runs, its message in a stdout
    /// buffer that `_exit` drops (strace: `openat("nookd") = EMFILE`, `exit_group(1)`).
    @Test(.notUnderQEMUUser("qemu-user opens the program itself and, with no fourth descriptor, exits 1 before nookd runs, saying nothing"))
    func n1_onlyTheStandardStreamsOpenIsAnErrorNotACrash() throws {
        try startNookd(underLimits: ["3:3"], needed: 32)
    }

    /// Starts nookd under each of `limits` (`prlimit --nofile=SOFT:HARD`) and judges the outcome:
    /// below `needed` (unless the hard limit allows raising the soft one to it) exit status 1 and
    /// the error naming the limit; otherwise nookd serves.
    func startNookd(underLimits limits: [String], needed: Int) throws {
        let scratch = Scratch()
        var outcomes: [String: (reason: Process.TerminationReason, status: Int32, served: Bool, text: String)] = [:]
        for limit in limits {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            let socket = scratch.path + "/nookd-\(outcomes.count).sock"
            process.arguments = ["--nofile=\(limit)", "--", Built.nookd, "--display", "mock",
                                 "--socket", socket, "--journal", "none"]
            let errors = scratch.path + "/stderr-\(outcomes.count)"
            _ = FileManager.default.createFile(atPath: errors, contents: nil)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
            process.standardOutput = FileHandle.nullDevice
            try process.runAlone()
            // A limit that is enough: nookd serves (its socket is there) until it is told to stop.
            let deadline = Date().addingTimeInterval(TestBounds.seconds(20))
            var served = false
            while !process.exited(within: 0.02) {
                served = FileManager.default.fileExists(atPath: socket)
                if !served && Date() > deadline { Issue.record("limit \(limit): nookd neither served nor ended") }
                if served || Date() > deadline {
                    process.terminate()
                    process.waitForExit()
                }
            }
            let text = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            outcomes[limit] = (process.terminationReason, process.terminationStatus, served, text)
        }
        for limit in limits {
            let outcome = try #require(outcomes[limit])
            let soft = Int(limit.prefix { $0 != ":" })!
            if soft < needed && !limit.hasSuffix(":\(needed)") {
                // At 3 the dynamic loader itself may find no descriptor for a library.
                let loader = outcome.text.contains("error while loading shared libraries")
                #expect(outcome.reason == .exit && (outcome.status == 1 || loader), "limit \(limit): \(outcome.status) \(outcome.text.suffix(300))")
                #expect(loader || outcome.text.contains("the open-file limit (RLIMIT_NOFILE) is \(soft), hard \(soft), and nookd needs at least \(needed) descriptors to start"),
                        "limit \(limit): \(outcome.text.suffix(300))")
                #expect(!outcome.served)
            } else {
                #expect(outcome.served, "limit \(limit): nookd did not start: \(outcome.text.suffix(300))")
                #expect(outcome.reason == .exit, "limit \(limit): nookd died of signal \(outcome.status)")
            }
        }
    }

    @Test func d3_theMockKeepsOnlyTheNewestFrameFiles() throws {
        let scratch = Scratch()
        let frames = scratch.path + "/frames"
        let config = scratch.file("nook.toml", "[display]\nframes_limit = 5\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config, "--frames", frames])
        // Cards until the mock has more than 5 frame files to prune: how many a card leaves depends on
        // how many frames a loaded machine's encoder skips, so the bound is a count, not a guess.
        let note = "mock frames: keeping only the newest 5 frame files"
        for round in 0..<30 where !daemon.log.contains(note) {
            // Slow slides: many frames, even when PNG encoding skips some.
            var card = NookActivity(title: "frames \(round)", dwell: .milliseconds(300))
            card.transition = .milliseconds(800)
            let client = try daemon.client(timeout: .seconds(15))
            _ = try client.request(Request(id: .number(1), operation: .enqueue(card, module: nil, wait: true)))
            while let line = try client.readLine(), !String(decoding: line, as: UTF8.self).contains("\"hidden\"") {}
        }
        try eventually("the note in the log") { daemon.log.contains(note) }
        #expect(daemon.stop().status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: frames)
        #expect(files.filter { $0.hasPrefix("frame-") }.count == 5, "\(files.sorted())")
        #expect(files.contains("latest.png"))
    }
}

/// C1: a client's requests are back-pressured (nookd stops reading past 256 unanswered lines),
/// never dropped: one that pipelines thousands and hangs up without reading any answer still
/// has every line handled.
@Suite("C1 pipelined requests of a client that hangs up", .serialized, .ownThreads)
struct HangUpAtInFlightLimitTests {
    @Test func c1_aClientThatHangsUpAtTheInFlightLimitLosesNoRequest() throws {
        let scratch = Scratch()
        let count = 4000
        let config = scratch.file("nook.toml", "[queue]\ncapacity = \(count + 100)\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        var bytes: [UInt8] = []
        for number in 0..<count {
            let card = NookActivity(title: "burst \(number)", presentation: .blocker(timeout: nil))
            bytes += Array(Request(id: .number(Double(number)), operation: .enqueue(card, module: nil, wait: false)).encoded().utf8) + [0x0A]
        }
        do {
            // About 400 KB: more than the socket holds, so the last write returns only once nookd
            // is reading at its in-flight limit, and the hang-up finds lines still unread.
            let client = try daemon.client()
            try client.sendRaw(bytes)
        }
        func accounted() throws -> Int {
            let modules = try daemon.request(.status)["modules"]?.items ?? []
            return modules.reduce(0) { total, module in
                total + Int(module["pending"]?.numberValue ?? 0) + (module["current"].map { $0 == .null ? 0 : 1 } ?? 0)
            }
        }
        var seen = 0
        do {
            try eventually("every request handled", timeout: 120) { seen = try accounted(); return seen == count }
        } catch {
            Issue.record("\(seen) of \(count) requests are in the queue")
            throw error
        }
        #expect(daemon.stop().status == 0)
    }
}

/// C1: the last request of a client that closes without a final newline is handled too.
@Suite("C1 a last line without its newline", .serialized, .ownThreads)
struct LastLineTests {
    @Test func c1_aLastRequestWithoutItsNewlineIsAnswered() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        try client.sendRaw(Array(#"{"v":1,"id":1,"op":"enqueue","activity":{"title":"No newline"}}"#.utf8))
        client.finishSending()
        let answer = try #require(try client.readLine())
        guard case .success = try ResponseLine.decode(answer) else { Issue.record("\(String(decoding: answer, as: UTF8.self))"); return }
        #expect(daemon.stop().status == 0)
    }
}
