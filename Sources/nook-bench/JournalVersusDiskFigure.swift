#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookProtocol
import NookSystem

/// `journaled_ack_p99_vs_fdatasync_p99`: a durable enqueue's answer (`journal.sync = "ack"`,
/// over one connected socket, so no process start is in it) against a plain `write` and
/// `fdatasync` of a record of the same size, in a file beside the journal: the same file system
/// and disk. Called alternately, 100 of each a round, each round's p99 over p99. What group commit
/// adds to the sync it cannot avoid, whatever the disk (goal ≤ 1.5).
struct JournalVersusDiskFigure {
    let socket: String
    let journal: String

    func run(rounds count: Int = 3) async throws -> (ratio: Spread, recordBytes: Int) {
        let client = try NookClient(path: socket)
        client.readTimeout = .seconds(30)
        var serial = 0
        func enqueue() throws {
            serial += 1
            let activity = NookActivity(coalescingKey: "ack-vs-sync", title: "Door \(serial)", dwell: .milliseconds(50))
            _ = try client.request(Request(id: .number(Double(serial)), operation: .enqueue(activity, module: nil, wait: false)))
        }
        // The record's size: what the journal grew by over a few enqueues (also their warm-up).
        let before = fileSize(journal)
        for _ in 0..<20 { try enqueue() }
        let record = [UInt8](repeating: UInt8(ascii: "x"), count: max(64, (fileSize(journal) - before) / 20))
        let yardstick = journal + ".fdatasync-yardstick"
        let file = try FileDescriptor.open(yardstick, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, mode: 0o600)
        defer { try? System.unlink(yardstick) }
        var failure: BenchError?
        let ratios = await rounds(count) {
            var acks: [Double] = [], syncs: [Double] = []
            for _ in 0..<100 {
                syncs.append(secondsTaken {
                    do {
                        try record.withUnsafeBytes { bytes in try Result { () throws(SystemCallError) in try file.writeAll(bytes) }.get() }
                        if let code = System.flush(file.rawValue, metadata: false) { failure = BenchError("fdatasync on \(yardstick): \(code)") }
                    } catch {
                        failure = BenchError("\(error)")
                    }
                })
                acks.append(secondsTaken { if (try? enqueue()) == nil { failure = BenchError("an enqueue failed") } })
            }
            acks.sort()
            syncs.sort()
            return acks[98] / syncs[98]
        }
        if let failure { throw failure }
        return (ratios, record.count)
    }

    private func fileSize(_ path: String) -> Int {
        ((try? fileStatus(path)) ?? nil).map { Int($0.st_size) } ?? 0
    }
}
