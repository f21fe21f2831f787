import Foundation
import NookActivities
import NookConfig
@testable import NookDaemon
import NookProtocol
import NookTestSupport
import Testing

/// The history store (U4) on injected clocks and syncs: what it records, what it leaves out,
/// its bounds, its rewrites and what it recovers from a damaged file.
@Suite("U4 history: every end recorded, bounded, crash-safe, compacted")
struct HistoryTests {
    let wall = TestSeconds()
    let monotonic = TestSeconds()
    let warnings = Warnings()

    func history(_ path: String?, bounds: ActivityHistory.Bounds = .init(), syncer: TestSyncer = TestSyncer()) -> ActivityHistory {
        ActivityHistory(path: path, bounds: bounds, warn: warnings.sink, wallClock: wall.clock, monotonic: monotonic.clock, syncer: syncer.syncer)
    }

    func event(_ activity: NookActivity, _ kind: NookActivityEvent.Kind, module: NookModuleID = "default") -> NookActivityEvent {
        NookActivityEvent(activity: activity, kind: kind, at: .origin, module: module)
    }

    /// Enqueues, optionally shows, then ends `activity` with `end`, advancing the wall clock by
    /// a second between steps.
    func live(_ history: ActivityHistory, _ activity: NookActivity, shown: Bool, end: NookActivityEvent.Kind, module: NookModuleID = "default") {
        history.record([event(activity, .enqueued, module: module)], module: module)
        wall.advance(1)
        if shown {
            history.record([event(activity, .animateIn, module: module)], module: module)
            wall.advance(1)
        }
        history.record([event(activity, .presented, module: module), event(activity, .animateOut, module: module), event(activity, end, module: module)],
                       module: module)
    }

    func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test func u4_everyEndReasonIsRecordedWithItsTimesSenderModuleAndWhetherItWasOnTheGlass() throws {
        let history = history(nil)
        _ = history.start()
        let ends: [(NookActivityEvent.Kind, Bool, String)] = [
            (.hidden(.completed), true, "completed"), (.hidden(.dismissed), true, "dismissed"), (.hidden(.cancelled), true, "cancelled"),
            (.hidden(.timedOut), true, "timedOut"), (.rejected(.cancelled), false, "cancelled"), (.rejected(.coalesced), false, "coalesced"),
            (.rejected(.expired), false, "expired"), (.rejected(.dismissed), false, "dismissed"), (.rejected(.suppressed), false, "suppressed"),
            (.rejected(.queueFull), false, "queueFull"),
        ]
        let start = wall.value
        for (index, (kind, shown, _)) in ends.enumerated() {
            var activity = NookActivity(coalescingKey: "k\(index)", priority: .high, title: "card \(index)", subtitle: "sub")
            activity.sender = NookSender(uid: 1000, pid: Int32(100 + index), name: "make")
            live(history, activity, shown: shown, end: kind, module: "side")
        }
        let entries = history.query(HistoryQuery()).entries
        #expect(entries.map(\.ending) == ends.map(\.2))
        #expect(entries.map(\.onGlass) == ends.map(\.1))
        #expect(entries.map(\.number) == Array(1...UInt64(ends.count)))
        for (index, entry) in entries.enumerated() {
            #expect(entry.activity.title == "card \(index)" && entry.activity.subtitle == "sub" && entry.activity.priority == .high)
            #expect(entry.activity.sender == NookSender(uid: 1000, pid: Int32(100 + index), name: "make"))
            #expect(entry.module == "side")
            #expect(entry.enqueuedAt >= start && entry.endedAt > entry.enqueuedAt)
            #expect(entry.shownAt.map { $0 == entry.enqueuedAt + 1 } ?? !entry.onGlass, "shown a second after it came: \(entry)")
        }
    }

    @Test func u4_aRealQueuesPendingEndsAreRecordedAndRefusedArrivalsAreNot() async throws {
        let clock = ManualClock()
        let queue = NookActivityQueue(clock: clock, engagement: ScriptedEngagement(), configuration: .init(capacity: 2))
        let history = history(nil)
        _ = history.start()
        let observation = history.follow(queue, module: "default")
        defer { observation.cancel() }
        // Never bound to a surface: nothing is shown, every end here happens while pending.
        let first = NookActivity(coalescingKey: "dl", title: "40 %")
        let second = NookActivity(coalescingKey: "dl", title: "70 %")
        await queue.enqueue(first)
        await queue.enqueue(second)  // coalesces the first
        let expiring = NookActivity(priority: .low, title: "soon stale", expiresAfter: .seconds(5))
        await queue.enqueue(expiring)
        let refused = NookActivity(priority: .low, title: "no room")
        #expect(await queue.enqueue(refused) == .rejected(refused.id, .queueFull), "refused at the door: never accepted")
        clock.advance(by: .seconds(6))
        _ = await queue.pending  // expires the stale one
        let cancelled = NookActivity(title: "cancel me")
        await queue.enqueue(cancelled)
        #expect(await queue.cancel(cancelled.id))
        var invalid = NookActivity(title: "bad")
        invalid.dwell = .zero
        await queue.enqueue(invalid)
        let entries = history.query(HistoryQuery()).entries
        #expect(entries.map(\.activity.title) == ["40 %", "soon stale", "cancel me"])
        #expect(entries.map(\.ending) == ["coalesced", "expired", "cancelled"])
        #expect(entries.allSatisfy { !$0.onGlass && $0.shownAt == nil })
    }

    @Test func u4_anEndARequestRecordsOnTheGlassIsTheCardAsUpdatedKeptOnceAndNeverANewerArrivalOfItsId() throws {
        let history = history(nil)
        _ = history.start()
        var card = NookActivity(title: "Door open")
        history.record([event(card, .enqueued), event(card, .animateIn)], module: "default")
        card.subtitle = "since 2 minutes"
        history.record([event(card, .updated(previous: NookActivity(id: card.id, title: "Door open")))], module: "default")
        let arrival = history.arrival(of: card.id)
        wall.advance(1)
        history.ended(card.id, arrival: arrival, how: "dismissed")
        var entries = history.query(HistoryQuery()).entries
        #expect(entries.map(\.ending) == ["dismissed"] && entries.first?.activity.subtitle == "since 2 minutes" && entries.first?.onGlass == true)
        // The queue's own end after the slide out finds it recorded.
        history.record([event(card, .animateOut), event(card, .hidden(.dismissed))], module: "default")
        #expect(history.query(HistoryQuery()).entries.count == 1)
        // A newer activity under the freed id is not ended by a late request for the old one.
        let newer = NookActivity(id: card.id, title: "Door open again")
        history.record([event(newer, .enqueued)], module: "default")
        history.ended(card.id, arrival: arrival, how: "cancelled")
        history.ended(card.id, arrival: nil, how: "cancelled")
        entries = history.query(HistoryQuery()).entries
        #expect(entries.count == 1 && history.arrival(of: card.id) != arrival)
    }

    @Test func u4_j1_anEndTheHistoryKeptIsNotRecordedAgainWhenTheJournalStillHoldsTheCard() throws {
        let history = history(nil)
        _ = history.start()
        let enqueuedAt = wall.value
        let card = NookActivity(title: "Parcel at the door")
        history.record([event(card, .enqueued)], module: "default")
        wall.advance(2)
        history.record([event(card, .rejected(.expired))], module: "default")
        // After a crash the journal, which noted the enqueue a moment apart, holds it still.
        history.expiredWhileDown(card, module: "default", enqueuedAt: enqueuedAt + 0.004)
        history.endedAway(card, module: "default", enqueuedAt: enqueuedAt - 0.004, how: .queueFull)
        #expect(history.query(HistoryQuery()).entries.map(\.ending) == ["expired"])
        // A later card under the same id is another arrival: its end is recorded.
        wall.advance(60)
        history.expiredWhileDown(NookActivity(id: card.id, title: "Parcel at the door"), module: "default", enqueuedAt: wall.value - 5)
        #expect(history.query(HistoryQuery()).entries.count == 2)
    }

    @Test func u4_transientActivitiesAreNotRecorded() throws {
        let history = history(nil)
        _ = history.start()
        let volume = NookActivity(title: "Volume 40 %", isTransient: true)
        live(history, volume, shown: true, end: .hidden(.completed))
        // Made transient by an update while it was live: its last version counts.
        let build = NookActivity(title: "Build 3/7")
        history.record([event(build, .enqueued)], module: "default")
        var quiet = build
        quiet.isTransient = true
        history.record([event(quiet, .updated(previous: build)), event(quiet, .rejected(.cancelled))], module: "default")
        let kept = NookActivity(title: "Backup complete")
        live(history, kept, shown: true, end: .hidden(.completed))
        #expect(history.query(HistoryQuery()).entries.map(\.activity.title) == ["Backup complete"])
    }

    @Test func u4_theCountBoundKeepsTheNewest() throws {
        let history = history(nil, bounds: .init(maxEntries: 3))
        _ = history.start()
        for index in 1...5 { live(history, NookActivity(title: "card \(index)"), shown: true, end: .hidden(.completed)) }
        let result = history.query(HistoryQuery())
        #expect(result.entries.map(\.activity.title) == ["card 3", "card 4", "card 5"])
        #expect(result.total == 3)
        #expect(history.entry(.number(1)) == nil && history.entry(.number(5))?.activity.title == "card 5")
    }

    @Test func u4_theAgeBoundDropsOldEntriesOnTheInjectedClockAlsoAfterARestart() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/history"
        var history = history(path, bounds: .init(maxEntries: 100, maxAge: 3600))
        _ = history.start()
        live(history, NookActivity(title: "old"), shown: true, end: .hidden(.completed))
        wall.advance(1800)
        live(history, NookActivity(title: "newer"), shown: false, end: .rejected(.expired))
        #expect(history.query(HistoryQuery()).entries.map(\.activity.title) == ["old", "newer"])
        #expect(history.query(HistoryQuery(since: 60)).entries.map(\.activity.title) == ["newer"], "--since 1m")
        #expect(await history.finish(within: .seconds(30)))

        wall.advance(1800)
        history = self.history(path, bounds: .init(maxEntries: 100, maxAge: 3600))
        _ = history.start()
        #expect(history.query(HistoryQuery()).entries.map(\.activity.title) == ["newer"], "an hour and two seconds old: gone")
        wall.advance(3600)
        #expect(history.query(HistoryQuery()).entries.isEmpty)
        #expect(history.query(HistoryQuery()).total == 0)
        #expect(await history.finish(within: .seconds(30)))
    }

    /// `history` is answered from each entry's JSON as the writer encoded it: what is
    /// kept of it must be exactly the kept entries' JSON, through drops, a clear and a restart,
    /// and a history in memory only makes it when asked.
    @Test func u5_theJSONKeptForAnswersIsEachKeptEntrysOwnAndNothingMore() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/history"
        func check(_ history: ActivityHistory, _ label: String) {
            let entries = history.query(HistoryQuery()).entries
            #expect(history.encodedJSON(of: entries) == entries.map(\.json.serializedBytes), "\(label)")
            // Numbers two entries share are never kept by number.
            let once = Set(Dictionary(grouping: entries, by: \.number).filter { $0.value.count == 1 }.keys)
            let cached = history.log.state.withLock { Set($0.content.encoded.keys) }
            #expect(cached == once, "\(label): the JSON kept is that of the kept entries")
        }
        var history = history(path, bounds: .init(maxEntries: 4))
        _ = history.start()
        for index in 1...7 {
            var activity = NookActivity(title: "card \(index) \"quoted\" · ünïcode", subtitle: "line\nbreak")
            activity.sender = NookSender(uid: index % 2 == 0 ? 1000 : 1001, pid: Int32(index), name: "make")
            live(history, activity, shown: index % 3 != 0, end: .hidden(.completed))
            // Each written (and its JSON kept) before the next ends: the first three are
            // dropped by the bound after they were written.
            await history.settleWritten(within: .seconds(30))
        }
        #expect(history.log.state.withLock { $0.content.encoded.count } == 4, "written entries keep their JSON; the three dropped do not")
        check(history, "after writes and drops")
        #expect(await history.clear(sentBy: 1000).removed == 2)
        check(history, "after a clear")
        #expect(await history.finish(within: .seconds(30)))

        history = self.history(path, bounds: .init(maxEntries: 4))
        #expect(history.start().isEmpty)
        check(history, "after a restart")
        #expect(await history.finish(within: .seconds(30)))

        // A file's line that decodes need not be in the encoder's form (spaces, another key
        // order), and a hand-merged file may carry a number twice: the answer still says what
        // each entry is, twice over (the second query from what was kept).
        let odd = HistoryEntry(number: 9, activity: NookActivity(title: "spaced"), module: "default", enqueuedAt: wall.value - 5,
                               shownAt: nil, endedAt: wall.value - 1, ending: "completed", onGlass: false)
        let spaced = Array(String(decoding: odd.json.serializedBytes, as: UTF8.self).replacingOccurrences(of: ",", with: " , ").utf8)
        var twin = odd
        twin.activity.title = "twin"
        let merged = scratch.path + "/merged"
        #expect(FileManager.default.createFile(atPath: merged, contents: Data(CRC32.line(body: spaced) + CRC32.line(twin.json))))
        let reread = self.history(merged)
        #expect(reread.start().isEmpty)
        check(reread, "a spaced line and a number twice")
        check(reread, "the same, from what was kept")
        #expect(await reread.finish(within: .seconds(30)))

        let memory = self.history(nil)
        _ = memory.start()
        live(memory, NookActivity(title: "in memory"), shown: true, end: .hidden(.dismissed))
        #expect(memory.log.state.withLock { $0.content.encoded.isEmpty })
        check(memory, "in memory only")
    }

    @Test func u4_entriesSurviveARestartAndNumbersGoOn() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/history"
        var history = history(path)
        _ = history.start()
        var sent = NookActivity(coalescingKey: "ci", title: "Build finished", subtitle: "all green", systemImage: "hammer", progress: 1)
        sent.sender = NookSender(uid: 1000, pid: 42, name: "make")
        live(history, sent, shown: true, end: .hidden(.completed))
        live(history, NookActivity(title: "Doorbell"), shown: false, end: .rejected(.cancelled))
        let before = history.query(HistoryQuery()).entries
        #expect(await history.finish(within: .seconds(30)))

        history = self.history(path)
        #expect(history.start().isEmpty)
        #expect(history.query(HistoryQuery()).entries == before)
        live(history, NookActivity(title: "third"), shown: true, end: .hidden(.dismissed))
        #expect(history.query(HistoryQuery()).entries.map(\.number) == [1, 2, 3])
        #expect(await history.finish(within: .seconds(30)))
    }

    @Test func u4_theLogIsRewrittenWhenItOutgrowsItsBound() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/history"
        let syncer = TestSyncer()
        let history = history(path, bounds: .init(maxEntries: 5), syncer: syncer)
        _ = history.start()
        for index in 1...400 {
            live(history, NookActivity(title: "card \(index)"), shown: true, end: .hidden(.completed))
            if index % 50 == 0 { await history.settleWritten(within: .seconds(30)) }
        }
        await history.settleWritten(within: .seconds(30))
        // The rewrite follows the write that made the log outgrow its bound, on the writer's next
        // step: settling waits for the write only (under ThreadSanitizer the test read in between).
        var written = try lines(path)
        for _ in 0..<600 where written.count > 2 * 5 + ActivityHistory.compactionSlack {
            try await Task.sleep(for: .milliseconds(50))
            written = try lines(path)
        }
        #expect(written.count <= 2 * 5 + ActivityHistory.compactionSlack, "\(written.count) lines for 5 kept entries")
        #expect(syncer.fullSyncs >= 2 * 3, "rewritten through PATH.new and a directory sync, several times")
        #expect(!FileManager.default.fileExists(atPath: path + ".new"))
        #expect(await history.finish(within: .seconds(30)))
        let reread = self.history(path, bounds: .init(maxEntries: 5))
        _ = reread.start()
        #expect(reread.query(HistoryQuery()).entries.map(\.activity.title) == (396...400).map { "card \($0)" })
        #expect(await reread.finish(within: .seconds(30)))
    }

    @Test func u4_recoveryDropsATornOrZeroFilledTailAndKeepsWhatCameBefore() async throws {
        for tail in [Array("4f3a2b1c {\"number\":3,\"activity\":{\"ti".utf8), [UInt8](repeating: 0, count: 4096)] {
            let scratch = Scratch()
            let path = scratch.path + "/history"
            var history = history(path)
            _ = history.start()
            live(history, NookActivity(title: "first"), shown: true, end: .hidden(.completed))
            live(history, NookActivity(title: "second"), shown: false, end: .rejected(.coalesced))
            #expect(await history.finish(within: .seconds(30)))
            let handle = try #require(FileHandle(forWritingAtPath: path))
            handle.seekToEndOfFile()
            handle.write(Data(tail))
            handle.closeFile()

            history = self.history(path)
            let found = history.start()
            #expect(found.count == 1 && found[0].contains("kept the 2 entries"), "\(found)")
            #expect(found.first?.contains(tail[0] == 0 ? "zero-filled" : "cut short") == true, "\(found)")
            #expect(history.query(HistoryQuery()).entries.map(\.activity.title) == ["first", "second"])
            // The damage is rewritten away before anything is appended after it.
            live(history, NookActivity(title: "third"), shown: true, end: .hidden(.completed))
            #expect(await history.finish(within: .seconds(30)))
            history = self.history(path)
            #expect(history.start().isEmpty)
            #expect(history.query(HistoryQuery()).entries.map(\.activity.title) == ["first", "second", "third"])
            #expect(await history.finish(within: .seconds(30)))
        }
    }

    @Test func u5_aClearTheFileCouldNotTakeSaysSoAndNookdsStopWritesIt() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/history"
        let syncer = TestSyncer()
        var history = history(path, syncer: syncer)
        _ = history.start()
        for title in ["a", "b"] { live(history, NookActivity(title: title), shown: true, end: .hidden(.completed)) }
        await history.settleWritten(within: .seconds(30))
        #expect(try lines(path).count == 2)
        // The rewrite that a clear makes cannot be synced: the file keeps both entries.
        syncer.failNext(with: ENOSPC)
        live(history, NookActivity(title: "c"), shown: true, end: .hidden(.completed))
        await history.settleWritten(within: .seconds(30))
        _ = await history.log.wait(for: history.log.mark, durable: true)
        #expect(history.degraded)
        let (removed, unsaved) = await history.clear(sentBy: nil)
        #expect(removed == 3)
        #expect(unsaved?.contains("No space left on device") == true, "\(String(describing: unsaved))")
        // Stopped before the ten seconds' retry: the stop writes what is kept (nothing).
        #expect(await history.finish(within: .seconds(30)))
        history = self.history(path)
        #expect(history.start().isEmpty)
        #expect(history.query(HistoryQuery()).entries.isEmpty)
        #expect(await history.finish(within: .seconds(30)))
    }

    @Test func u4_aDamagedLineInTheMiddleCostsOnlyThatEntry() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/history"
        var history = history(path)
        _ = history.start()
        for title in ["a", "b", "c"] { live(history, NookActivity(title: title), shown: true, end: .hidden(.completed)) }
        #expect(await history.finish(within: .seconds(30)))
        var text = try lines(path)
        text[1] = String(text[1].dropLast(3)) + "xx}"
        try (text.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        history = self.history(path)
        let found = history.start()
        #expect(found.first?.contains("from line 2") == true, "\(found)")
        #expect(history.query(HistoryQuery()).entries.map(\.activity.title) == ["a", "c"])
        #expect(await history.finish(within: .seconds(30)))
    }

    @Test func u4_clearRemovesEveryEntryOrOnlyTheCallersFromMemoryAndFile() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/history"
        var history = history(path)
        _ = history.start()
        for (index, uid) in [1000, 1001, 1000, 0].enumerated() {
            var activity = NookActivity(title: "card \(index)")
            activity.sender = NookSender(uid: UInt32(uid), pid: 1)
            live(history, activity, shown: true, end: .hidden(.completed))
        }
        #expect(await history.clear(sentBy: 1000).removed == 2)
        #expect(history.query(HistoryQuery()).entries.map(\.activity.title) == ["card 1", "card 3"])
        // On disk before the answer: nothing cleared comes back after a crash.
        #expect(try lines(path).count == 2)
        #expect(try !String(contentsOfFile: path, encoding: .utf8).contains("card 0"))
        #expect(await history.clear(sentBy: nil).removed == 2)
        #expect(try lines(path).isEmpty)
        #expect(await history.finish(within: .seconds(30)))
        history = self.history(path)
        _ = history.start()
        #expect(history.query(HistoryQuery()).entries.isEmpty)
    }

    @Test func u4_aStalledDiskBlocksNeitherRecordingNorQueries() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/history"
        let syncer = TestSyncer()
        let history = history(path, syncer: syncer)
        _ = history.start()
        await history.settleWritten(within: .seconds(30))
        syncer.hold()
        live(history, NookActivity(title: "first"), shown: true, end: .hidden(.completed))
        await history.settleWritten(within: .seconds(30))
        // The writer asks for its data sync a second after the first unsynced write: then it hangs there.
        monotonic.advance(2)
        history.kick()
        live(history, NookActivity(title: "second"), shown: true, end: .hidden(.completed))
        await syncer.waitUntilEntered()
        // The writer thread is stuck in fdatasync: recording and reading still answer.
        for index in 0..<100 { live(history, NookActivity(title: "while stalled \(index)"), shown: false, end: .rejected(.coalesced)) }
        #expect(history.query(HistoryQuery()).entries.count == 102)
        syncer.letGo()
        #expect(await history.finish(within: .seconds(30)))
    }

    @Test func u4_historySettingsAreCheckedWithTheKeyAndTheValue() throws {
        func config(_ text: String) throws -> DaemonConfig {
            try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml")))
        }
        let good = try config("[daemon]\njournal = \"/var/lib/nook/journal\"\n[history]\nmax_entries = 50\nmax_age = \"2d\"\n")
        #expect(good.history.bounds == ActivityHistory.Bounds(maxEntries: 50, maxAge: 2 * 86_400))
        #expect(good.historyPath == "/var/lib/nook/history", "beside the journal")
        #expect(try config("[daemon]\njournal = \"none\"\n").historyPath == nil)
        #expect(try config("[history]\npath = \"none\"\n[daemon]\njournal = \"/j/journal\"\n").historyPath == nil)
        #expect(try config("[history]\npath = \"/h/history\"\n").historyPath == "/h/history")
        for (text, expected) in [("max_age = \"banana\"", ["history.max_age", "banana", "such as 90s"]),
                                 ("max_age = \"-2h\"", ["history.max_age", "-2h"]),
                                 ("max_entries = 0", ["history.max_entries"]),
                                 ("max_entries = 1000000", ["history.max_entries", "20000"]),
                                 ("path = \"relative\"", ["history.path", "absolute"]),
                                 ("max_entrie = 5", ["history.max_entrie"])] {
            do {
                _ = try config("[history]\n\(text)\n")
                Issue.record("accepted \(text)")
            } catch {
                for word in expected { #expect("\(error)".contains(word), "\(text): \(error)") }
            }
        }
    }
}
