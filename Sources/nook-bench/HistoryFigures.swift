#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookActivities
import NookProtocol

extension DaemonFigures {
    /// `history_query_ms`: `history --since 24h` answered by a nookd whose history
    /// holds 10,000 entries that ended evenly over the last week (so about 1,430 match), from
    /// the request to the typed answer decoded, on one connection; each round the median of 5
    /// queries. `history_query_all_10k_ms`: the same with every entry matching (no filter).
    func historyQueries() throws -> (since24h: Spread, all: Spread, matched: Int) {
        let path = scratch + "/history-bench"
        let now = Date().timeIntervalSince1970
        var bytes: [UInt8] = []
        for number in 1...10_000 {
            let ended = now - 7 * 86_400 * Double(10_000 - number) / 10_000 - 60
            var activity = NookActivity(coalescingKey: number % 5 == 0 ? "ci" : nil, title: "Build #\(number) finished",
                                        subtitle: "main · 2 warnings · 4m 12s", systemImage: "hammer", tint: .named(.green))
            activity.sender = NookSender(uid: 1000, pid: Int32(number), name: "ci-runner")
            let entry = HistoryEntry(number: UInt64(number), activity: activity, module: "default", enqueuedAt: ended - 5,
                                     shownAt: number % 3 == 0 ? nil : ended - 3, endedAt: ended, ending: "completed", onGlass: number % 3 != 0)
            bytes += CRC32.line(entry.json)
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { throw BenchError("cannot write \(path)") }
        let config = scratch + "/history-bench.toml"
        _ = FileManager.default.createFile(atPath: config, contents: Data("[history]\npath = \"\(path)\"\nmax_entries = 10000\n".utf8))
        let socket = scratch + "/history.sock"
        let pid = try startDaemon(socket: socket, extra: ["--config", config, "--journal", "none"])
        defer { stop(pid) }
        let client = try NookClient(path: socket)
        var matched = 0
        func round(_ query: HistoryQuery) throws -> Double {
            var samples: [Double] = []
            for _ in 0..<5 {
                var answer: HistoryAnswer?
                var failure: ClientError?
                samples.append(secondsTaken {
                    do throws(ClientError) { answer = try client.request(Request(id: .number(1), operation: .history(query)), as: HistoryAnswer.self).0 } catch { failure = error }
                } * 1000)
                if let failure { throw failure }
                if query.since != nil { matched = answer?.entries.count ?? 0 }
            }
            return NookBench.median(samples)
        }
        let since = try Spread(rounds: (0..<5).map { _ in try round(HistoryQuery(since: 86_400)) })
        let all = try Spread(rounds: (0..<5).map { _ in try round(HistoryQuery()) })
        return (since, all, matched)
    }
}

func reportHistoryFigures(_ figures: DaemonFigures) {
    do {
        let (since, all, matched) = try figures.historyQueries()
        report("history_query_ms", since)
        print("history_query_matched: \(matched)")
        report("history_query_all_10k_ms", all)
    } catch {
        print("history figures skipped: \(error)")
    }
}
