#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookActivities
import NookProtocol
import NookSystem
import NookTestSupport

/// `http_history_burst_ms`: 60 concurrent `GET /api/v1/history?limit=500` (about 200 KB each,
/// inside one client's default rate-limit burst) through nook-http, from the first request sent
/// to the last answer read, by one curl with 60 transfers at once. Every answer must be a 200:
/// a 503 (nook-http cut off from nookd, or its link refusing) makes the round an error, not a
/// figure. What nook-http's bounds on the link (calls and answers' bytes in flight) and nookd's
/// back-pressure on a client's answers cost a burst of large reads.
struct HistoryBurstFigure {
    let figures: HTTPFigures
    static let requests = 60
    static let entries = 500

    func round() throws -> Double {
        let pair = try figures.start("burst-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try Self.fillHistory(socket: pair.socket)
        var arguments = ["-sS", "--max-time", "120", "-Z", "--parallel-immediate", "--parallel-max", "\(Self.requests)", "-w", "%{http_code}\n"]
        for _ in 0..<Self.requests { arguments += ["-o", "/dev/null", pair.url + "/api/v1/history?limit=\(Self.entries)"] }
        let start = MonotonicClock.now
        let output = try figures.run("/usr/bin/curl", arguments)
        let elapsed = MonotonicClock.now - start
        let codes = output.split(separator: "\n")
        guard codes.count == Self.requests, codes.allSatisfy({ $0 == "200" }) else {
            throw BenchError("the burst's answers were not all 200: \(codes.map(String.init))")
        }
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }

    /// `entries` history entries of about 400 bytes: each enqueue, while the queue is suspended,
    /// replaces the one before (coalesced), which ends into the history.
    static func fillHistory(socket: String) throws {
        try HistoryBurst.send(entries: entries, to: NookClient(path: socket))
        for _ in 0..<500 {
            let answer = try NookClient(path: socket).request(Request(id: .number(1), operation: .history(HistoryQuery(limit: 1))))
            if try HistoryAnswer(json: answer).total >= entries { return }
            usleep(10_000)
        }
        throw BenchError("the history did not reach \(entries) entries")
    }
}

func reportHistoryBurstFigure(_ daemon: DaemonFigures) {
    do {
        let figures = try HTTPFigures.prepared(daemon)
        report("http_history_burst_ms", try figures.rounds(3) { try HistoryBurstFigure(figures: figures).round() })
    } catch {
        print("history burst figure skipped: \(error)")
    }
}
