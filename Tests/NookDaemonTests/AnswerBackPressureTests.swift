import Foundation
import NookActivities
import NookProtocol
import NookSystem
import NookTestSupport
import NookTestTraits
import Testing
@testable import NookDaemon

/// C1 as a decision on the server's clock: a client whose requests nookd holds back for answers
/// it does not read is judged by whether it reads, not by how much it asked for.
@Suite("C1 a client held back for its answers (decisions)")
struct AnswerBackPressureUnitTests {
    @Test func c1_aClientHeldBackIsDroppedOnlyAfterReadingNoneOfItsAnswersForTheUnreadTimeout() {
        var limits = ConnectionLimits()
        limits.idleTimeout = .seconds(30)
        limits.unreadTimeout = .seconds(300)
        let stalled = Duration.seconds(1000)
        func verdict(unreadSince: Duration?, at now: Duration) -> ConnectionLimits.Verdict {
            limits.verdict(partial: false, answering: true, lastHeard: .zero, lastAnswered: .zero, unreadSince: unreadSince, now: now)
        }
        #expect(verdict(unreadSince: stalled, at: stalled + .seconds(299)) == .keep(until: stalled + .seconds(300)))
        #expect(verdict(unreadSince: stalled, at: stalled + .seconds(300)) == .unread)
        // Reading at all (the socket took bytes: no `unreadSince`) keeps it, however long it takes.
        #expect(verdict(unreadSince: nil, at: stalled + .seconds(86_400)) == .keep(until: nil))
        // A half line beside it changes nothing: not reading is what is judged.
        #expect(limits.verdict(partial: true, answering: true, lastHeard: .zero, lastAnswered: .zero, unreadSince: stalled,
                               now: stalled + .seconds(10)) == .keep(until: stalled + .seconds(300)))
    }
}

/// C1 on one connection: the bound on events counts events, not the answers beside them.
@Suite("C1 events beside answers held back")
struct EventBoundTests {
    @Test func c1_eventsAreBoundedByTheirOwnBytesNotByTheAnswersTheClientAskedFor() throws {
        var pair: [Int32] = [0, 0]
        _ = try systemCall("socketpair") { socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &pair) }
        let client = FileDescriptor(owning: pair[1], name: "client")
        let connection = ClientConnection(socket: FileDescriptor(owning: pair[0], name: "nookd"),
                                          peer: PeerCredentials(pid: 1, uid: 0, gid: 0), number: 1, wake: {})
        // Answers of a batch, just under the mark past which nookd holds the next request back:
        // no request is held back, and the client has read none of them yet.
        let line = [UInt8](repeating: UInt8(ascii: "a"), count: 64 << 10)
        connection.holdOutput()
        while connection.backlog < ClientConnection.answersHighWater - (256 << 10) {
            let queued = connection.send(utf8: line)
            #expect(queued)
        }
        connection.releaseOutput()
        let answers = connection.backlog
        // Then a stream's events (an enqueue with wait, a watch): 2 MiB of them, half their bound.
        for number in 0..<32 {
            let kept = connection.send(utf8: line)
            #expect(kept, "dropped at event \(number) with \(answers) bytes of answers waiting")
        }
        #expect(!connection.wasDropped)
        // Past the events' own bound it is still dropped.
        var sent = 0
        while connection.send(utf8: line) { sent += 1 }
        #expect(connection.wasDropped)
        #expect(sent < 64, "\(sent) more events")
        _ = client
    }
}

/// C1 and U4 against a running nookd: a client that pipelines many large reads is served at the
/// pace it reads (back-pressure), never dropped for the size of what it asked; one that reads
/// none of its answers is still dropped.
@Suite("C1 U4 back-pressure on a client's answers against nookd", .serialized, .ownThreads)
struct AnswerBackPressureTests {
    /// About 200 KB of history a page of 500: entries of about 400 bytes, each an enqueue the
    /// next one of the same key replaces while the queue is suspended.
    static func fillHistory(_ daemon: DaemonProcess, entries: Int) throws {
        do {
            try HistoryBurst.send(entries: entries, to: daemon.client(timeout: .seconds(120)))
        } catch {
            throw DaemonFailure("filling the history: \(error)\nnookd: \(daemon.log.suffix(3000))")
        }
        try eventually("the history holds \(entries) entries", timeout: 60) {
            try HistoryAnswer(json: daemon.request(.history(HistoryQuery(limit: 1)))).total >= entries
        }
    }

    /// Sixty `history` requests of 500 entries (about 12 MB of answers) in one write.
    static func burst(_ client: NookClient, count: Int = 60) throws {
        let lines = (0..<count).map { Request(id: .number(Double($0)), operation: .history(HistoryQuery(limit: 500))).encoded() + "\n" }
        try client.sendRaw(Array(lines.joined().utf8))
    }

    @Test func c1_u4_aClientThatPipelinesManyLargeReadsButReadsSlowlyIsThrottledNotDropped() throws {
        // The client reads nothing until the test has seen its answers held back, which a loaded
        // machine (an ASan pass) took longer than the default 30 s unread_timeout to see, and
        // the history's fill, a 300 KB write, once lost its connection there: what is judged is
        // the throttle, so the clients' timeouts (the next test's, and C1's own) are a day.
        let scratch = Scratch()
        let config = "[daemon]\nunread_timeout = 86400\npartial_line_timeout = 86400\nidle_timeout = 86400\n"
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", scratch.file("nook.toml", config)])
        try Self.fillHistory(daemon, entries: 500)
        let client = try daemon.client(timeout: .seconds(120))
        try Self.burst(client)

        // It reads nothing yet: nookd holds its next requests back rather than queueing 12 MB
        // of answers, or dropping it past the 4 MiB a client may leave unread.
        let status = try daemon.client(timeout: .seconds(60))
        var waiting = 0
        // (What the kernel's socket buffer holds is not counted: nookd's own buffer is.)
        try eventually("answers wait for the client", timeout: 60) {
            waiting = try StatusAnswer(json: status.request(Request(id: .number(1), operation: .status))).bufferedBytes ?? 0
            return waiting > ClientConnection.answersLowWater
        }
        #expect(try StatusAnswer(json: status.request(Request(id: .number(2), operation: .status))).connections == 2, "the client is held, not dropped")
        #expect(waiting <= ClientConnection.answersHighWater + NookProtocol.answerPageBytes, "\(waiting) bytes wait for a client that asked for 12 MB")

        // Then it reads, slowly: every answer comes, whole and in order.
        for number in 0..<60 {
            let line = try #require(try client.readLine(), "the connection ended after \(number) answers: \(daemon.log.suffix(2000))")
            guard case .success(let id, let result) = try ResponseLine.decode(line) else { throw DaemonFailure("refused: \(line.prefix(300))") }
            #expect(id == .number(Double(number)))
            #expect(try HistoryAnswer(json: result).entries.count == 500)
            usleep(20_000)
        }
        #expect(try StatusAnswer(json: status.request(Request(id: .number(3), operation: .status))).connections == 2, "the reader is still served")
        #expect(!daemon.log.contains("dropped connection"), "\(daemon.log.suffix(2000))")
        #expect(daemon.stop().status == 0)
    }

    @Test func c1_aClientThatPipelinesLargeReadsAndNeverReadsIsStillDropped() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[daemon]\nunread_timeout = 2\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        try Self.fillHistory(daemon, entries: 500)
        let client = try daemon.client(timeout: .seconds(120))
        try Self.burst(client)
        try eventually("the client that reads nothing is dropped", timeout: 60) {
            daemon.log.contains("dropped connection") && daemon.log.contains("daemon.unread_timeout")
        }
        #expect(daemon.log.contains("it read none of the"), "\(daemon.log.suffix(2000))")
        try eventually("its answers no longer held", timeout: 30) {
            let status = try StatusAnswer(json: daemon.request(.status))
            return status.connections == 1 && (status.bufferedBytes ?? 0) == 0
        }
        // What its socket held, then the end: fewer than it asked for.
        var answers = 0
        while let _ = try client.readLine() { answers += 1 }
        #expect(answers < 60, "\(answers) answers")
        #expect(daemon.stop().status == 0)
    }
}
