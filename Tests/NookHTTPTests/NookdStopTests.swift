import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// H4, N2 through the built nook-http and a real nookd: a call nookd never took because it
/// stopped is a 503 (nothing was done), never a 504 that leaves its sender guessing.
@Suite("H4 N2 a call reaching nookd as it stops", .serialized, .ownThreads)
struct NookdStopTests {
    /// Connections waiting in the listen backlog of the socket at `path` (`ss`: a listening
    /// socket's receive queue is its backlog).
    static func backlog(_ path: String) throws -> Int {
        let listed = try runProgram("/bin/ss", ["-xlnH"])
        return listed.output.split(separator: "\n").reduce(0) { total, line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 5, fields[0] == "u_str", fields[4] == path else { return total }
            return total + (Int(fields[2]) ?? 0)
        }
    }

    /// Bytes `pid` wrote on its Unix stream sockets that their peers have not read yet.
    static func unreadFrom(_ pid: pid_t) throws -> Int {
        let listed = try runProgram("/bin/ss", ["-xanpH"])
        return listed.output.split(separator: "\n").reduce(0) { total, line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 4, fields[0] == "u_str", fields[1] == "ESTAB", line.contains("pid=\(pid),") else { return total }
            return total + (Int(fields[3]) ?? 0)
        }
    }

    /// The thread of `pid` named `name`, if any.
    static func thread(of pid: pid_t, named name: String) -> pid_t? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.first { (try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8))?.hasPrefix(name) == true }
            .flatMap { pid_t($0) }
    }

    /// Whether the thread `tid` of `pid` blocks `signal`.
    static func blocks(_ pid: pid_t, _ tid: pid_t, _ signal: Int32) -> Bool {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") }),
              let mask = UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16) else { return true }
        return mask & (1 << UInt64(signal - 1)) != 0
    }

    /// `tgkill(2)`: a signal for one thread (Glibc's declaration is out of Swift's reach).
    static func signalThread(_ pid: pid_t, _ tid: pid_t, _ signal: Int32) -> Bool {
        typealias ThreadKill = @convention(c) (pid_t, pid_t, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "tgkill") else { return false }
        return unsafeBitCast(symbol, to: ThreadKill.self)(pid, tid, signal) == 0
    }

    @Test func h4_n2_aCardWhoseConnectionWaitsInTheBacklogOfAStoppingNookdIs503AndNeverCarriedOut() throws {
        // nookd stopped before nook-http starts: nook-http's connections wait in its backlog.
        let service = try HTTPService(nookdStopped: true, journaled: true)
        let nookd = service.nookd.processIdentifier
        var stopped = true
        defer { if stopped { kill(nookd, SIGCONT) } }
        let post = Process()
        post.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        post.arguments = ["-sS", "-i", "--max-time", "\(Int(TestBounds.seconds(60)))", "-H", "Content-Type: application/json",
                          "-d", #"{"title":"in the backlog"}"#, service.url + "/api/v1/activities"]
        let output = Pipe.closedOnExec()
        post.standardOutput = output
        try post.runAlone()
        // The call is written, unread, on a connection nookd has not accepted.
        try nativeAPIEventually("the POST's call written into nookd's backlog") {
            try Self.backlog(service.socket) > 0 && Self.unreadFrom(service.server.processIdentifier) > 0
        }
        // The stop reaches nookd's socket thread first (its own signal, handled before it runs
        // again): which of nookd's threads wakes first must not decide what it takes on.
        let socketThread = try #require(Self.thread(of: nookd, named: "nookd.socket"), "nookd has no socket thread")
        try #require(!Self.blocks(nookd, socketThread, SIGTERM), "nookd's socket thread blocks SIGTERM")
        #expect(Self.signalThread(nookd, socketThread, SIGTERM))
        kill(nookd, SIGCONT)
        stopped = false
        let answer = String(decoding: output.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        _ = post.waitForExit()
        #expect(answer.statusCodes == [503], "\(answer)\n\(service.logs)")
        #expect(answer.contains("nookd is stopping") && answer.contains("not carried out"), "\(answer)")
        #expect(service.nookd.exited(within: TestBounds.seconds(30)), "\(service.logs)")
        #expect(service.nookd.terminationStatus == 0, "\(service.logs)")

        // Started again on the same journal: the card was never made.
        try service.startNookd()
        let client = try NookClient(path: service.socket)
        client.readTimeout = TestBounds.duration(.seconds(30))
        let known = try client.request(Request(id: .number(1), operation: .history(HistoryQuery(limit: 50)))).serialized
            + client.request(Request(id: .number(2), operation: .list(module: nil))).serialized
        #expect(!known.contains("in the backlog"), "\(known)")
    }
}
