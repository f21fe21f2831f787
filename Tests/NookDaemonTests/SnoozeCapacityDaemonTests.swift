import Foundation
import NookActivities
@testable import NookDaemon
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// A real nookd started with a journal that holds more snoozes (T2) or cards than its `queue.capacity`
/// now allows, as after an owner lowered the capacity and restarted it.
@Suite("U4 J1 T2 cards beyond a lowered queue.capacity in a real nookd: snoozes and the journal's", .serialized, .ownThreads)
struct SnoozeCapacityDaemonTests {
    @Test func u4_j1_t2_snoozesBeyondALoweredCapacityEndInHistoryAndStayEndedAcrossARestart() async throws {
        let scratch = Scratch()
        let journalPath = scratch.path + "/journal"
        // Three snoozes a previous nookd kept, due back in ten, eleven and twelve minutes.
        let journal = ActivityJournal(path: journalPath, warn: { _ in })
        _ = journal.recover()
        let now = ActivityJournal.realtime()
        let cards = ["Kettle", "Dryer", "Oven"].map { NookActivity(title: $0, presentation: .blocker(timeout: nil)) }
        for (offset, card) in cards.enumerated() { journal.snoozed(card, module: "default", until: now + 600 + Double(offset) * 60) }
        await journal.finish()

        let config = scratch.file("nook.toml", """
            [daemon]
            journal = "\(journalPath)"
            [history]
            path = "\(scratch.path)/history"
            [queue]
            capacity = 1
            """)
        let first = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        func queueFull(_ daemon: DaemonProcess) throws -> [String] {
            let entries = (try daemon.request(.history(HistoryQuery())))["entries"]?.items ?? []
            return entries.filter { $0["ending"] == .string("queueFull") }.compactMap { $0["activity"]?["title"]?.text }.sorted()
        }
        #expect(try queueFull(first) == ["Dryer", "Oven"], "the kettle, due back first, keeps the one slot")
        let dropped = first.log.components(separatedBy: "\n").filter { $0.contains("was snoozed but does not come back") }
        #expect(dropped.count == 2 && dropped.contains { $0.contains("Dryer") } && dropped.contains { $0.contains("Oven") },
                "one log line each: \(first.log)")
        #expect(first.log.contains("\"Kettle\" is still snoozed"))
        #expect(first.stop().status == 0)

        // The journal agrees: the next start finds only the kettle's snooze, and the history
        // keeps one entry for each of the others.
        let second = try DaemonProcess(scratch: Scratch(), arguments: ["--config", config])
        #expect(second.log.contains("\"Kettle\" is still snoozed"))
        #expect(!second.log.contains("Dryer") && !second.log.contains("Oven"), "\(second.log)")
        #expect(try queueFull(second) == ["Dryer", "Oven"])
        #expect(second.stop().status == 0)
    }

    /// The journal's pending cards meet the same lowered capacity: those refused end in history
    /// as "queueFull", as an arrival refused by a full queue does, and do not come back again.
    @Test func u4_j1_q16_journalCardsBeyondALoweredCapacityEndInHistory() async throws {
        let scratch = Scratch()
        let journalPath = scratch.path + "/journal"
        let journal = ActivityJournal(path: journalPath, warn: { _ in })
        _ = journal.recover()
        let titles = ["One", "Two", "Three", "Four", "Five"]
        for title in titles {
            let card = NookActivity(title: title, presentation: .blocker(timeout: nil))
            journal.record([NookActivityEvent(activity: card, kind: .enqueued, at: .origin, module: "default")], module: "default")
        }
        await journal.finish()
        let config = scratch.file("nook.toml", """
            [daemon]
            journal = "\(journalPath)"
            [history]
            path = "\(scratch.path)/history"
            [queue]
            capacity = 1
            """)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let module = (try daemon.request(.status))["modules"]?.items.first
        let current = module?["current"]?["title"]?.text
        let live = Int(module?["pending"]?.numberValue ?? 0) + (current == nil ? 0 : 1)
        let entries = (try daemon.request(.history(HistoryQuery())))["entries"]?.items ?? []
        let refused = entries.filter { $0["ending"] == .string("queueFull") }.compactMap { $0["activity"]?["title"]?.text }
        // One pending at most, and perhaps one already on the glass: the others were refused.
        #expect(live <= 2 && refused.count >= 3 && live + refused.count == titles.count && Set(refused).count == refused.count,
                "every card is live or has its entry: \(live) live, refused \(refused): \(daemon.log)")
        #expect(current.map { !refused.contains($0) } ?? true)
        #expect(daemon.stop().status == 0)

        let again = try DaemonProcess(scratch: Scratch(), arguments: ["--config", config])
        let after = (try again.request(.history(HistoryQuery())))["entries"]?.items ?? []
        #expect(after.filter { $0["ending"] == .string("queueFull") }.count == refused.count, "no second entry, no card back")
        #expect(again.stop().status == 0)
    }
}
