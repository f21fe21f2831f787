import Foundation
import NookActivities
@testable import NookDaemon
import NookSystem
import NookTestSupport
import NookTestTraits
import Testing

/// Stands in for `fdatasync`/`fsync`: counts them, can hold data syncs until the test lets
/// them go, and remembers how large the file was when each data sync completed.
final class TestSyncer: Sendable {
    private struct State {
        var dataSyncs = 0
        var fullSyncs = 0
        var holdingData = false
        var holdingFull = false
        var held = 0
        /// Bytes of the file covered by the last completed data sync.
        var syncedSize: Int64 = 0
        var failWith: Int32 = 0
    }

    private let state = Locked(State())
    private let release = DispatchSemaphore(value: 0)
    private let entered = DispatchSemaphore(value: 0)

    var dataSyncs: Int { state.withLock { $0.dataSyncs } }
    var fullSyncs: Int { state.withLock { $0.fullSyncs } }
    var syncedSize: Int64 { state.withLock { $0.syncedSize } }

    /// Data syncs (or full ones: a new file, a directory) from now on wait in the syncer until
    /// ``letGo()``.
    func hold(full: Bool = false) { state.withLock { if full { $0.holdingFull = true } else { $0.holdingData = true } } }
    func failNext(with code: Int32) { state.withLock { $0.failWith = code } }

    /// Waits (off the cooperative pool) until a held sync is inside the syncer.
    /// Returns once a held sync was entered; a test whose sync never comes fails (after a bound
    /// generous enough for any load) instead of hanging the suite.
    func waitUntilEntered(sourceLocation: SourceLocation = #_sourceLocation) async {
        if await entered.waitedOnAThread(seconds: 120) != .success {
            Issue.record("no held sync was entered within 120 s", sourceLocation: sourceLocation)
        }
    }

    func letGo() {
        let held = state.withLock { state in
            defer { state.holdingData = false; state.holdingFull = false; state.held = 0 }
            return state.held
        }
        for _ in 0..<held { release.signal() }
    }

    var syncer: DurableFile.Syncer {
        { [self] fd, full in
            let (hold, failure) = state.withLock { state -> (Bool, Int32) in
                let hold = full ? state.holdingFull : state.holdingData
                if hold { state.held += 1 }
                if full { state.fullSyncs += 1; return (hold, 0) }
                defer { state.failWith = 0 }
                return (hold, state.failWith)
            }
            if hold {
                entered.signal()
                release.wait()
            }
            if full { return 0 }
            var info = stat()
            fstat(fd, &info)
            state.withLock { state in
                state.dataSyncs += 1
                if failure == 0 { state.syncedSize = Int64(info.st_size) }
            }
            return failure
        }
    }
}

/// Monotonic seconds that move only when the test says so.
final class TestSeconds: Sendable {
    private let now = Locked(1000.0)
    var value: Double { now.withLock { $0 } }
    func advance(_ seconds: Double) { now.withLock { $0 += seconds } }
    var clock: @Sendable () -> Double { { [self] in value } }
}

/// Warnings a journal logged.
final class Warnings: Sendable {
    private let lines = Locked<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    var sink: @Sendable (String) -> Void { { [self] line in lines.withLock { $0.append(line) } } }
}

/// Waits, yielding, until `condition` holds; the journal's writer thread runs meanwhile.
func until(_ what: String, _ condition: () -> Bool) async throws {
    for _ in 0..<20_000 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(1))
    }
    throw DaemonFailure("never happened: \(what)")
}

/// On threads of their own: a thousand records with compactions is seconds of CPU under a
/// sanitizer, which on the cooperative pool's two threads held up every other test for a minute.
@Suite("J1 J2 durable acknowledgement: group commit, interval syncs, recovery after a power cut", .ownThreads)
struct JournalSyncTests {
    func journal(_ scratch: Scratch, mode: JournalSync = .ack, syncer: TestSyncer, seconds: TestSeconds = TestSeconds(),
                 warnings: Warnings = Warnings()) -> ActivityJournal {
        ActivityJournal(path: scratch.path + "/journal", mode: mode, warn: warnings.sink, monotonic: seconds.clock, syncer: syncer.syncer)
    }

    func activity(_ title: String) -> NookActivity { NookActivity(title: title) }

    /// Where each record of the file ends, by the id it names.
    func recordEnds(_ path: String) throws -> [String: Int] {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var ends: [String: Int] = [:]
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            if case .success(.added(let entry)) = JournalRecord.decode(bytes[start..<index]) { ends[entry.activity.id.description] = index + 1 }
            start = index + 1
        }
        return ends
    }

    @Test func j1_manyConcurrentRequestsShareOneSyncAndNoneIsAnsweredBeforeIt() async throws {
        let scratch = Scratch()
        let syncer = TestSyncer()
        let journal = journal(scratch, syncer: syncer)
        _ = journal.recover()
        // A first request whose sync is held in flight: everything after it queues up behind.
        syncer.hold()
        journal.added(activity("first"), module: "default")
        // A child task, so on this suite's own threads: an unstructured `Task` runs on the
        // concurrency pool, which the ThreadSanitizer and AddressSanitizer passes saw busy for
        // 120 s, and the held sync never came.
        let mark = journal.mark
        async let first = journal.settle(through: mark)
        await syncer.waitUntilEntered()
        #expect(syncer.dataSyncs == 0)

        let answered = Locked<[(id: String, syncedSize: Int64)]>([])
        let ids = (0..<200).map { _ in NookActivityID() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in ids {
                group.addTask {
                    var item = NookActivity(title: "request \(id)")
                    item.id = id
                    journal.added(item, module: "default")
                    await journal.settle(through: journal.mark)
                    // What the syncer had made durable when this request was released.
                    answered.withLock { $0.append((id.description, syncer.syncedSize)) }
                }
            }
            // All 200 are waiting (with the first) and none was answered while the sync was in flight.
            try await until("201 waiters") { journal.log.state.withLock { $0.waiters.count } == 201 }
            #expect(answered.withLock { $0.isEmpty })
            syncer.letGo()
            try await group.waitForAll()
        }
        _ = await first
        // The first sync, then one for all 200 (two at most if the writer woke between).
        #expect(syncer.dataSyncs >= 2 && syncer.dataSyncs <= 3, "\(syncer.dataSyncs) syncs for 201 requests")
        let ends = try recordEnds(scratch.path + "/journal")
        for (id, syncedSize) in answered.withLock({ $0 }) {
            let end = try #require(ends[id])
            #expect(Int64(end) <= syncedSize, "answered with its record (ending at \(end)) beyond the synced \(syncedSize) bytes")
        }
        #expect(answered.withLock { $0.count } == 200)
        await journal.finish()
    }

    /// A held answer is let go by the writer's thread right after the sync that makes it safe,
    /// not by a task that would wait for a pool thread (busy drawing the card just sent): the
    /// journaled ack's distance from the disk's own sync (`journaled_ack_p99_vs_fdatasync_p99`).
    /// Both logs' waiters included: an answer also waits for the history's entries (U4).
    @Test func j1_anAnswerIsLetGoByTheWritersThreadRightAfterItsSync() async throws {
        let scratch = Scratch()
        let syncer = TestSyncer()
        let journal = journal(scratch, syncer: syncer)
        let history = ActivityHistory(path: scratch.path + "/history", warn: { _ in }, syncer: syncer.syncer)
        _ = journal.recover()
        syncer.hold()
        journal.added(activity("Backup complete"), module: "default")
        let released = Locked<(thread: String, syncs: Int)?>(nil)
        journal.whenSettled(through: journal.mark, with: history) { unsaved in
            #expect(unsaved == nil)
            let thread = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
            released.withLock { $0 = (thread.trimmingCharacters(in: .newlines), syncer.dataSyncs) }
        }
        await syncer.waitUntilEntered()
        #expect(released.withLock { $0 } == nil, "let go before its sync")
        syncer.letGo()
        try await until("the answer let go") { released.withLock { $0 } != nil }
        let seen = try #require(released.withLock { $0 })
        #expect(seen.thread == "nookd.journal" && seen.syncs >= 1, "\(seen)")
        await journal.finish()
        await history.finish()
    }

    /// A read's records are set on their way once queued, before anyone waits for them (the
    /// write delay never passes here: the clock stands still), and asking again while their sync
    /// is held, as every refused request of a flood once did, adds no waiter: memory stays flat.
    @Test func j1_hastenedRecordsAreSyncedWithNobodyWaitingAndAskingAgainAddsNoWaiter() async throws {
        let scratch = Scratch()
        let syncer = TestSyncer()
        let journal = journal(scratch, syncer: syncer)
        let history = ActivityHistory(path: scratch.path + "/history", warn: { _ in }, syncer: syncer.syncer)
        _ = journal.recover()
        syncer.hold()
        journal.added(activity("Backup complete"), module: "default")
        journal.hastenSettling(through: journal.mark, with: history)
        await syncer.waitUntilEntered()
        for _ in 0..<10_000 { journal.hastenSettling(through: journal.mark, with: history) }
        #expect(journal.log.state.withLock { $0.waiters.count } == 0)
        syncer.letGo()
        try await until("the hastened record synced") { journal.log.state.withLock { $0.durable } >= journal.mark }
        let lastRecordEnd = Int64(try recordEnds(scratch.path + "/journal").values.max()!)
        #expect(syncer.syncedSize == lastRecordEnd)
        await journal.finish()
    }

    /// Under `journal.sync = "interval"` a hastened record is written at once and synced on the
    /// interval's timer, as an answer's would be (J2).
    @Test func j2_aHastenedRecordIsWrittenAtOnceButNotSynced() async throws {
        let scratch = Scratch()
        let syncer = TestSyncer()
        let journal = journal(scratch, mode: .interval, syncer: syncer)
        let history = ActivityHistory(path: scratch.path + "/history", warn: { _ in }, syncer: syncer.syncer)
        _ = journal.recover()
        journal.added(activity("Backup complete"), module: "default")
        journal.hastenSettling(through: journal.mark, with: history)
        try await until("the hastened record written") { journal.log.state.withLock { $0.written } >= journal.mark }
        #expect(try recordEnds(scratch.path + "/journal").count == 1)
        #expect(syncer.dataSyncs == 0)
        await journal.finish()
    }

    @Test func j1_aPipelinedBurstCostsAFewSyncsNotOneEach() async throws {
        let scratch = Scratch()
        let syncer = TestSyncer()
        let journal = journal(scratch, syncer: syncer)
        _ = journal.recover()
        // As a connection's batch does it: record every add, then wait once for the last mark.
        for number in 0..<1000 { journal.added(activity("burst \(number)"), module: "default") }
        await journal.settle(through: journal.mark)
        #expect(syncer.dataSyncs <= 3, "\(syncer.dataSyncs) syncs for a burst of 1,000")
        #expect(try recordEnds(scratch.path + "/journal").count == 1000)
        await journal.finish()
    }

    @Test func j2_intervalModeAnswersOnceWrittenAndSyncsWithinASecondOfAnUnsyncedWrite() async throws {
        let scratch = Scratch()
        let syncer = TestSyncer()
        let seconds = TestSeconds()
        let journal = journal(scratch, mode: .interval, syncer: syncer, seconds: seconds)
        _ = journal.recover()
        journal.added(activity("A"), module: "default")
        // Answered once written, without waiting for a sync.
        await journal.settle(through: journal.mark)
        #expect(try recordEnds(scratch.path + "/journal").count == 1)
        #expect(syncer.dataSyncs == 0)
        // Nothing more is written, ever: the sync must come from the timer (before the fix a
        // skipped sync waited for a later write that might never come).
        seconds.advance(0.5)
        journal.kick()
        seconds.advance(0.5)
        journal.kick()
        try await until("the interval sync") { syncer.dataSyncs == 1 }
        // A second write starts a new second.
        journal.added(activity("B"), module: "default")
        await journal.settle(through: journal.mark)
        seconds.advance(1)
        journal.kick()
        try await until("the second interval sync") { syncer.dataSyncs == 2 }
        // Read outside `#expect`: Swift 6.0's macro cannot hold a `try` right of an operator.
        let lastRecordEnd = Int64(try recordEnds(scratch.path + "/journal").values.max()!)
        #expect(syncer.syncedSize == lastRecordEnd)
        await journal.finish()
    }

    @Test func j2_intervalModeFinishSyncsWhatIsLeft() async throws {
        let scratch = Scratch()
        let syncer = TestSyncer()
        let journal = journal(scratch, mode: .interval, syncer: syncer)
        _ = journal.recover()
        journal.added(activity("A"), module: "default")
        await journal.settle(through: journal.mark)
        #expect(syncer.dataSyncs == 0)
        await journal.finish()
        #expect(syncer.dataSyncs == 1)
    }

    @Test func j1_theFileAndItsDirectoryAreSyncedWhenCreatedAndWhenReplaced() async throws {
        let scratch = Scratch()
        let syncer = TestSyncer()
        let journal = journal(scratch, syncer: syncer)
        _ = journal.recover()
        // The new file, then its directory, before any request.
        #expect(syncer.fullSyncs == 2)
        // Enough coming and going to compact: each compaction syncs the new file and the directory.
        let filler = String(repeating: "x", count: 400)
        for number in 0..<1000 {
            let item = activity("\(number) \(filler)")
            journal.added(item, module: "default")
            journal.ended(item.id)
        }
        await journal.settle(through: journal.mark)
        try await until("a compaction") { syncer.fullSyncs >= 4 }
        #expect(syncer.fullSyncs % 2 == 0)
        await journal.finish()
    }

    @Test func j1_whatIsRecordedDuringACompactionReachesTheNewFile() async throws {
        let scratch = Scratch()
        let syncer = TestSyncer()
        let path = scratch.path + "/journal"
        let journal = journal(scratch, syncer: syncer)
        _ = journal.recover()
        let keep = activity("kept")
        journal.added(keep, module: "default")
        let filler = String(repeating: "x", count: 400)
        // Grow the log with ended activities until a compaction is wanted, hold the writer in
        // the sync of the new file, and record more meanwhile.
        syncer.hold(full: true)
        for number in 0..<1000 {
            let item = activity("\(number) \(filler)")
            journal.added(item, module: "default")
            journal.ended(item.id)
        }
        await syncer.waitUntilEntered()
        let during = (0..<5).map { activity("during \($0)") }
        for item in during { journal.added(item, module: "default") }
        syncer.letGo()
        await journal.settle(through: journal.mark)
        await journal.finish()
        let again = ActivityJournal(path: path, warn: { _ in })
        let recovery = again.recover()
        #expect(recovery.warnings.isEmpty)
        let recovered = recovery.entries.map(\.activity.id)
        #expect(recovered == [keep.id] + during.map(\.id))
        await again.finish()
    }

    @Test func j1_aFailedSyncDegradesToMemoryReleasesTheWaitersAndIsRewrittenLater() async throws {
        let scratch = Scratch()
        let syncer = TestSyncer()
        let seconds = TestSeconds()
        let warnings = Warnings()
        let path = scratch.path + "/journal"
        let journal = journal(scratch, syncer: syncer, seconds: seconds, warnings: warnings)
        _ = journal.recover()
        syncer.failNext(with: EIO)
        let lost = activity("written, sync failed")
        journal.added(lost, module: "default")
        await journal.settle(through: journal.mark)
        #expect(warnings.all.contains("journal: 'fdatasync' of \(path) failed: (5) Input/output error; keeping activities in memory only until it can be written again"))
        #expect(journal.degraded)
        // Ten seconds on (the writer's timer, here a kick), everything live is rewritten.
        let later = activity("later")
        journal.added(later, module: "default")
        seconds.advance(10)
        journal.kick()
        try await until("the rewrite") { !journal.degraded }
        #expect(warnings.all.last == "journal \(path): writable again; 2 activities saved")
        await journal.finish()
        let again = ActivityJournal(path: path, warn: { _ in })
        #expect(again.recover().entries.map(\.activity.id) == [lost.id, later.id])
        await again.finish()
    }

    @Test func j1_aFIFOOrALinkLeftAtTheJournalsNewFileNeitherBlocksRecoveryNorTruncatesItsTarget() async throws {
        // PATH.new used to be opened with O_CREAT | O_TRUNC: a FIFO there blocked nookd's start
        // for good (no reader), and a symbolic link truncated the file it pointed to.
        for planted in ["fifo", "link"] {
            let scratch = Scratch()
            let path = scratch.path + "/journal"
            let first = journal(scratch, syncer: TestSyncer())
            _ = first.recover()
            let kept = activity("kept across the restart")
            first.added(kept, module: "default")
            await first.settle(through: first.mark)
            await first.finish()
            let target = scratch.file("precious", "not the journal's to truncate\n")
            if planted == "fifo" { #expect(mkfifo(path + ".new", 0o600) == 0) } else { #expect(symlink(target, path + ".new") == 0) }
            let again = journal(scratch, syncer: TestSyncer())
            // On a thread of its own: a recovery blocked in open(2) must not hold a pool thread.
            let recovery = Locked<ActivityJournal.Recovery?>(nil)
            let done = DispatchSemaphore(value: 0)
            Thread { let result = again.recover(); recovery.withLock { $0 = result }; done.signal() }.start()
            #expect(done.wait(timeout: .now() + 20) == .success, "\(planted): recovery blocked on the planted journal.new")
            let recovered = try #require(recovery.withLock { $0 })
            #expect(recovered.entries.map(\.activity.id) == [kept.id], "\(planted)")
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "not the journal's to truncate\n", "\(planted)")
            var info = stat()
            #expect(lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG, "\(planted): the journal is a regular file again")
            await again.finish()
        }
    }

    @Test func n2_anEndIsInTheJournalBeforeTheCallThatCausedItReturns() async throws {
        // Ends used to reach the journal through a task following the queue's
        // events, which nookd cancelled at SIGTERM; an end still in its buffer was lost and the
        // card came back. Now the queue hands each event to the journal as it emits it.
        let scratch = Scratch()
        let journal = journal(scratch, syncer: TestSyncer())
        _ = journal.recover()
        let queue = NookActivityQueue(clock: ManualClock())
        let observation = journal.follow(queue, module: "default")
        let first = activity("first")
        let second = activity("second")
        await queue.enqueue(first)
        await queue.enqueue(second)
        #expect(journal.liveCount == 2)
        await queue.cancel(first.id)
        #expect(journal.liveCount == 1)
        // A refused duplicate id names only itself: the live activity keeps its record.
        var duplicate = activity("duplicate")
        duplicate.id = second.id
        await queue.enqueue(duplicate)
        #expect(journal.liveCount == 1)
        await queue.dismissing(second.id)
        #expect(journal.liveCount == 0)
        observation.cancel()
        await journal.finish()
    }

    @Test func j1_noPrefixOfTheLogKeepsAnEndWithoutTheArrivalThatCausedIt() async throws {
        // Found by the VM power-cut suite: a coalescing enqueue's end of the older activity
        // reached the disk without the newer one's add (the writer took the records between
        // the two), so a cut lost both, the older one acknowledged.
        let scratch = Scratch()
        let path = scratch.path + "/journal"
        let journal = journal(scratch, syncer: TestSyncer())
        _ = journal.recover()
        let queue = NookActivityQueue(clock: ManualClock())
        let observation = journal.follow(queue, module: "default")
        await queue.suspend()
        let older = NookActivity(coalescingKey: "door", title: "older")
        let newer = NookActivity(coalescingKey: "door", title: "newer")
        await queue.enqueue(older)
        await queue.enqueue(newer)
        await journal.settle(through: journal.mark)
        observation.cancel()
        await journal.finish()
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // A power cut can keep any prefix of what was written (or zeros after it).
        for length in 0...bytes.count {
            let records = JournalScan(Array(bytes.prefix(length))).records
            let added = Set(records.compactMap { if case .added(let entry) = $0 { entry.activity.id } else { nil } })
            let ended = Set(records.compactMap { if case .ended(let id) = $0 { id } else { nil } })
            let live = added.subtracting(ended)
            if added.contains(older.id) {
                #expect(!live.isEmpty, "a cut after \(length) bytes keeps neither the older activity nor the newer one")
            }
        }
    }

    // MARK: Recovery after a power cut

    /// Three records from a real journal, as bytes.
    func threeRecords() -> (records: [[UInt8]], ids: [NookActivityID]) {
        let entries = (1...3).map { ActivityJournal.Entry(sequence: UInt64($0), module: "default", activity: activity("Record \($0)"),
                                                          enqueuedAt: ActivityJournal.realtime(), wasShown: false) }
        return (entries.map { JournalRecord.added($0).encoded() }, entries.map(\.activity.id))
    }

    func recover(_ bytes: [UInt8]) throws -> (recovery: ActivityJournal.Recovery, scratch: Scratch) {
        let scratch = Scratch()
        try Data(bytes).write(to: URL(fileURLWithPath: scratch.path + "/journal"))
        let journal = ActivityJournal(path: scratch.path + "/journal", warn: { _ in })
        let recovery = journal.recover()
        return (recovery, scratch)
    }

    @Test func j1_aZeroFilledTailIsReportedAsAPowerCutWithTheRecordsItCanHaveHeld() throws {
        // ext4 committed the file's new size but not its data: the tail reads back as zeros.
        let (records, ids) = threeRecords()
        let bytes = records[0] + records[1] + [UInt8](repeating: 0, count: 4096)
        let (recovery, scratch) = try recover(bytes)
        #expect(recovery.entries.map(\.activity.id) == Array(ids.prefix(2)))
        let offset = records[0].count + records[1].count
        let most = (4096 + JournalRecord.shortestBytes - 1) / JournalRecord.shortestBytes
        #expect(recovery.warnings == [
            "journal \(scratch.path)/journal: the last 4096 bytes from byte \(offset) (line 3) are unreadable, 4096 of them zero-filled: "
                + "the file system kept the journal's length but not its data, as after a power cut; up to \(most) records there are lost; kept the 2 records before them",
        ])
        // A damaged end is the expected outcome of a power cut: the journal is not set aside.
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains("corrupt") }.isEmpty)
    }

    @Test func j1_aRecordCutAtABlockBoundaryThenZerosIsAPowerCutToo() throws {
        let (records, ids) = threeRecords()
        let bytes = records[0] + Array(records[1].prefix(40)) + [UInt8](repeating: 0, count: 1000)
        let (recovery, _) = try recover(bytes)
        #expect(recovery.entries.map(\.activity.id) == [ids[0]])
        let warning = try #require(recovery.warnings.first)
        #expect(warning.contains("the last 1040 bytes from byte \(records[0].count) (line 2) are unreadable, 1000 of them zero-filled"))
        #expect(warning.contains("as after a power cut"))
    }

    @Test func j1_zerosInTheMiddleAreNamedAndTheJournalIsSetAside() throws {
        let (records, ids) = threeRecords()
        let bytes = records[0] + [UInt8](repeating: 0, count: 512) + [UInt8(ascii: "\n")] + records[2]
        let (recovery, scratch) = try recover(bytes)
        #expect(recovery.entries.map(\.activity.id) == [ids[0]])
        #expect(recovery.warnings.first?.contains("513 bytes from byte \(records[0].count) (line 2) are unreadable, 512 of them zero-filled") == true)
        #expect(recovery.warnings.first?.contains("the 1 after them are not used; kept the 1 records before it") == true)
        #expect(recovery.warnings.last?.contains("set aside as \(scratch.path)/journal.corrupt-") == true)
    }

    @Test func q16_aTornLastRecordWithoutZerosIsNamedAsCutShort() throws {
        let (records, ids) = threeRecords()
        let bytes = records[0] + records[1] + Array(records[2].prefix(50))
        let (recovery, _) = try recover(bytes)
        #expect(recovery.entries.map(\.activity.id) == Array(ids.prefix(2)))
        #expect(recovery.warnings.count == 1)
        #expect(recovery.warnings.first?.hasSuffix(
            "dropped a torn last record (checksum mismatch, 50 bytes): nookd was killed, or the power was cut, while it was being written; kept the 2 records before them") == true)
    }

    @Test func j1_aCompleteLastRecordThatCannotBeReadIsNotCalledAPowerCutAndTheJournalIsSetAside() throws {
        let (records, ids) = threeRecords()
        // Whole, with its newline, but a byte changed: not what a kill or a power cut leaves.
        var changed = records[2]
        changed[20] = changed[20] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
        let (recovery, scratch) = try recover(records[0] + records[1] + changed)
        #expect(recovery.entries.map(\.activity.id) == Array(ids.prefix(2)))
        let warning = try #require(recovery.warnings.first)
        #expect(warning.contains("the last record (line 3, \(changed.count) bytes) was written whole but cannot be read (checksum mismatch); "
                                     + "it held one record of \(changed.count) bytes: a card's arrival or update (\(ids[2])), by its text: not a power cut"),
                "\(warning)")
        #expect(!warning.contains("torn"), "\(warning)")
        #expect(recovery.warnings.last?.contains("set aside as \(scratch.path)/journal.corrupt-") == true, "\(recovery.warnings)")
    }

    @Test func j1_aJournalLeftMemoryOnlyByAFailedSyncIsRewrittenWholeWhenNookdStops() async throws {
        let scratch = Scratch()
        let syncer = TestSyncer()
        let seconds = TestSeconds()
        let journal = journal(scratch, syncer: syncer, seconds: seconds)
        _ = journal.recover()
        let first = activity("first"), second = activity("second")
        journal.added(first, module: "default")
        journal.added(second, module: "default")
        await journal.settle(through: journal.mark)
        syncer.failNext(with: EIO)
        let third = activity("third")
        journal.added(third, module: "default")
        #expect(await journal.settle(through: journal.mark)?.contains("Input/output error") == true)
        #expect(journal.degraded)
        // Changes while memory-only, and the stop comes before the ten seconds' retry.
        journal.ended(first.id)
        let fourth = activity("fourth")
        journal.added(fourth, module: "default")
        await journal.finish()
        let again = ActivityJournal(path: scratch.path + "/journal", warn: { _ in })
        let recovery = again.recover()
        #expect(recovery.entries.map(\.activity.title) == ["second", "third", "fourth"])
        #expect(recovery.warnings.isEmpty, "\(recovery.warnings)")
        await again.finish()
    }
}
