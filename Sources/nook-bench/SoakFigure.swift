#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookActivities
import NookProtocol

/// 100,000 activities (`nook-bench soak --count N` for another count) through a running release
/// nookd with its journal on: RSS growth from the level after the first 1,000, open file
/// descriptors before and after, and the idle anonymous memory at checkpoints (1,000, 10,000,
/// every 100,000, the end), so a run of a million shows where it stops growing.
///
/// Batches of 1,000 requests are pipelined on one connection: every tenth activity without a
/// key, the rest coalescing on 20 keys, all three priorities, every 97th expiring almost at once,
/// every 50th cancelled right after; each batch drains (shown, coalesced, cancelled, expired)
/// before the next, so the daemon does all its kinds of work and ends every activity.
struct SoakFigure {
    struct Result {
        var seconds: Double
        var rssAfterFirst1kMiB: Double
        var rssAfterAllMiB: Double
        var fdsAfterFirst1k: Int
        var fdsAfterAll: Int
        /// The journal's size at the end: bounded by compaction, not by the 100,000.
        var journalKiB = 0.0
        /// RSS when half the activities are through: a bound that fills (the history's 1,000
        /// entries, full after the first batch) adds nothing after it, a leak adds as much again.
        var rssAtHalfMiB = 0.0
        /// Anonymous memory (heap and stacks: no code pages) once the display has been idle long
        /// enough to let go of its frames and trim the heap: what a board keeps after a burst.
        var idleAnonAfterFirst1kMiB = 0.0
        var idleAnonAfterAllMiB = 0.0
        /// The idle anonymous memory after each checkpoint's count of activities, in order.
        var idleAnonAt: [(count: Int, mib: Double)] = []
        var growthPercent: Double { (rssAfterAllMiB - rssAfterFirst1kMiB) / rssAfterFirst1kMiB * 100 }
        var secondHalfGrowthPercent: Double { (rssAfterAllMiB - rssAtHalfMiB) / rssAtHalfMiB * 100 }
        var idleAnonGrowthPercent: Double { (idleAnonAfterAllMiB - idleAnonAfterFirst1kMiB) / idleAnonAfterFirst1kMiB * 100 }
    }

    let daemon: DaemonFigures
    /// A whole number of batches, at least one.
    let total: Int
    let batch = 1_000

    init(daemon: DaemonFigures, total: Int = 100_000) {
        self.daemon = daemon
        self.total = max(1, total / batch) * batch
    }

    /// Where the idle anonymous memory is read besides the first batch and the end: a bound that
    /// fills shows as a level these reach and keep.
    func isCheckpoint(_ count: Int) -> Bool {
        count < total && (count == 10_000 || count % 100_000 == 0)
    }

    func run() throws -> Result {
        let socket = daemon.scratch + "/soak.sock"
        // As the service runs it (Hardware/systemd/nookd.service), unless MALLOC_ARENA_MAX is
        // given to compare another setting.
        setenv("MALLOC_ARENA_MAX", "2", 0)
        let journal = getenv("NOOK_SOAK_NO_JOURNAL") == nil ? ["--journal", daemon.scratch + "/soak-journal"] : []
        let pid = try daemon.startDaemon(socket: socket, extra: journal)
        defer { daemon.stop(pid) }
        let client = try NookClient(path: socket)
        client.readTimeout = .seconds(60)
        let start = ContinuousClock.now
        var result = Result(seconds: 0, rssAfterFirst1kMiB: 0, rssAfterAllMiB: 0, fdsAfterFirst1k: 0, fdsAfterAll: 0)
        for first in stride(from: 0, to: total, by: batch) {
            try send(first..<(first + batch), through: client)
            try drain(client)
            if first == 0 {
                usleep(200_000)
                result.rssAfterFirst1kMiB = rss(pid)
                result.fdsAfterFirst1k = openDescriptors(pid)
                result.idleAnonAfterFirst1kMiB = idleAnon(pid)
                result.idleAnonAt.append((batch, result.idleAnonAfterFirst1kMiB))
            }
            if isCheckpoint(first + batch) { result.idleAnonAt.append((first + batch, idleAnon(pid))) }
            if first + batch == total / 2 {
                usleep(200_000)
                result.rssAtHalfMiB = rss(pid)
            }
        }
        result.seconds = (ContinuousClock.now - start).nookSeconds
        usleep(200_000)
        result.rssAfterAllMiB = rss(pid)
        result.fdsAfterAll = openDescriptors(pid)
        result.idleAnonAfterAllMiB = idleAnon(pid)
        if total > batch { result.idleAnonAt.append((total, result.idleAnonAfterAllMiB)) }
        let size = (try? FileManager.default.attributesOfItem(atPath: daemon.scratch + "/soak-journal")[.size] as? Int) ?? 0
        result.journalKiB = Double(size) / 1024
        return result
    }

    private func send(_ indices: Range<Int>, through client: NookClient) throws {
        var payload: [UInt8] = []
        var expected = 0
        for index in indices {
            var activity = NookActivity(coalescingKey: index % 10 == 0 ? nil : "soak\(index % 20)",
                                        priority: [.low, .normal, .high][index % 3],
                                        title: "Soak \(index)", subtitle: "one of \(total)", systemImage: "bell",
                                        dwell: .milliseconds(1))
            activity.transition = .zero
            activity.endDelay = .zero
            if index % 97 == 0 { activity.expiresAfter = .microseconds(100) }
            payload += Array((Request(id: .number(Double(index)), operation: .enqueue(activity, module: nil, wait: false)).encoded() + "\n").utf8)
            expected += 1
            if index % 50 == 0 {
                payload += Array((Request(id: .number(-1), operation: .cancel(activity.id)).encoded() + "\n").utf8)
                expected += 1
            }
        }
        let answered = try daemon.pipeline(payload, answers: expected, through: client)
        guard answered == expected else { throw BenchError("soak: \(answered) of \(expected) requests answered") }
    }

    private func drain(_ client: NookClient) throws {
        for _ in 0..<6000 {
            let status = try client.request(Request(id: .number(0), operation: .status))
            let module = status["modules"]?.items.first
            if module?["pending"] == .number(0), module?["current"] == .null { return }
            usleep(5_000)
        }
        throw BenchError("soak: the queue did not drain")
    }

    private func rss(_ pid: pid_t) -> Double { Double(daemon.statusField(pid: pid, "VmRSS:") ?? 0) / 1024 }

    private func anon(_ pid: pid_t) -> Double { Double(daemon.statusField(pid: pid, "RssAnon:") ?? 0) / 1024 }

    /// Waits for the idle display to let go of its frames (after 10 s of home, nookd's
    /// HomeClockService): seen as anonymous memory falling by most of a frame, then steady for
    /// a second while the trim that follows finishes. At most 30 s (the level then, as it is).
    private func idleAnon(_ pid: pid_t) -> Double {
        let busy = anon(pid)
        let frameMiB = Double(1280 * 400 * 4) / 1_048_576  // the mock panel nookd starts with
        var level = busy
        for _ in 0..<120 {
            usleep(250_000)
            level = anon(pid)
            if busy - level >= frameMiB * 0.75 { break }
        }
        while true {
            usleep(1_000_000)
            let next = anon(pid)
            if next >= level - 0.05 { return min(level, next) }
            level = next
        }
    }

    private func openDescriptors(_ pid: pid_t) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).count
    }
}
