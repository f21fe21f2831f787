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
///
/// Two kinds of enqueue, each against its own syncs: one that replaces the live card of its key
/// (the figure as first measured), whose answer also waits for the history's sync of the card it
/// ended (U4), and a new card (`journaled_new_card_ack_p99_vs_fdatasync_p99`), one sync in its
/// answer's path. The new cards are cancelled after their round, unmeasured, so the queue never
/// fills.
struct JournalVersusDiskFigure {
    let socket: String
    let journal: String

    struct Ratios {
        var replacing: Spread
        var newCard: Spread
        var recordBytes: Int
    }

    func run(rounds count: Int = 3) async throws -> Ratios {
        let client = try NookClient(path: socket)
        client.readTimeout = .seconds(30)
        var serial = 0
        /// Enqueues a card (the shared key's, or a key of its own) and returns its id.
        func enqueue(replacing: Bool) throws -> NookActivityID {
            serial += 1
            let key = replacing ? "ack-vs-sync" : "ack-vs-sync-\(serial)"
            // A new card stays until it is cancelled after its round: none ends during it (an end
            // would put a history entry in some ack's path), and every cancel finds its card.
            let activity = NookActivity(coalescingKey: key, title: "Door \(serial)", dwell: replacing ? .milliseconds(50) : .seconds(600))
            let request = Request(id: .number(Double(serial)), operation: .enqueue(activity, module: nil, wait: false))
            return try client.request(request, as: EnqueueAnswer.self).0.id
        }
        // The record's size: what the journal grew by over a few enqueues (also their warm-up).
        let before = fileSize(journal)
        for _ in 0..<20 { _ = try enqueue(replacing: true) }
        let record = [UInt8](repeating: UInt8(ascii: "x"), count: max(64, (fileSize(journal) - before) / 20))
        let yardstick = journal + ".fdatasync-yardstick"
        let file = try FileDescriptor.open(yardstick, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, mode: 0o600)
        defer { try? System.unlink(yardstick) }
        var failure: BenchError?
        func sync() {
            do {
                try record.withUnsafeBytes { bytes in try Result { () throws(SystemCallError) in try file.writeAll(bytes) }.get() }
                if let code = System.flush(file.rawValue, metadata: false) { failure = BenchError("fdatasync on \(yardstick): \(code)") }
            } catch {
                failure = BenchError("\(error)")
            }
        }
        /// One round: the p99 of its acks (replacing, or new cards) over the p99 of the syncs alternated with them.
        func round(replacing: Bool) -> Double {
            var acks: [Double] = [], syncs: [Double] = [], queued: [NookActivityID] = []
            for _ in 0..<100 {
                syncs.append(secondsTaken(sync))
                acks.append(secondsTaken {
                    do { queued.append(try enqueue(replacing: replacing)) } catch { failure = BenchError("an enqueue failed: \(error)") }
                })
            }
            for id in queued where !replacing {
                serial += 1
                do { _ = try client.request(Request(id: .number(Double(serial)), operation: .cancel(id))) } catch { failure = BenchError("cancelling \(id) failed: \(error)") }
            }
            acks.sort()
            syncs.sort()
            return acks[98] / syncs[98]
        }
        // The replacing rounds first, as the figure was first measured: a new-card round's
        // cancellations keep the history's writer busy after it.
        let replacing = (0..<count).map { _ in round(replacing: true) }
        let newCard = (0..<count).map { _ in round(replacing: false) }
        if let failure { throw failure }
        return Ratios(replacing: Spread(rounds: replacing), newCard: Spread(rounds: newCard), recordBytes: record.count)
    }

    private func fileSize(_ path: String) -> Int {
        ((try? fileStatus(path)) ?? nil).map { Int($0.st_size) } ?? 0
    }
}
