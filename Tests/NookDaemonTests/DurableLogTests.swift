import Foundation
import NookActivities
@testable import NookDaemon
import NookProtocol
import NookSystem
import NookTestSupport
import NookTestTraits
import Testing

/// One use of the durable log, driven the same way for the journal and the history: what one
/// use must survive, the other must too.
enum DurableUse: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case journal, history

    var testDescription: String { rawValue }

    func open(_ path: String, syncer: TestSyncer = TestSyncer(), seconds: TestSeconds = TestSeconds(),
              warnings: Warnings = Warnings()) -> UsedLog {
        switch self {
        case .journal:
            .journal(ActivityJournal(path: path, warn: warnings.sink, monotonic: seconds.clock, syncer: syncer.syncer))
        case .history:
            .history(ActivityHistory(path: path, warn: warnings.sink, monotonic: seconds.clock, syncer: syncer.syncer))
        }
    }

    /// The use's record of `title` as the file holds it (for hand-made files).
    func line(_ title: String) -> [UInt8] {
        switch self {
        case .journal:
            JournalRecord.added(ActivityJournal.Entry(sequence: 1, module: "default", activity: NookActivity(title: title),
                                                      enqueuedAt: ActivityJournal.realtime(), wasShown: false)).encoded()
        case .history:
            CRC32.line(HistoryEntry(number: 1, activity: NookActivity(title: title), module: "default", enqueuedAt: 1, shownAt: nil,
                                    endedAt: ActivityJournal.realtime(), ending: "completed", onGlass: false).json)
        }
    }
}

/// A journal or a history, with what each keeps as titles: the journal's live activities, the
/// history's entries. Each title is its own sender's (uid), so the history can drop one.
enum UsedLog: Sendable {
    case journal(ActivityJournal)
    case history(ActivityHistory)

    var log: (degraded: Bool, mark: UInt64) {
        switch self {
        case .journal(let journal): (journal.log.degraded, journal.log.mark)
        case .history(let history): (history.log.degraded, history.log.mark)
        }
    }

    /// Starts it; the warnings recovery had.
    @discardableResult
    func start() -> [String] {
        switch self {
        case .journal(let journal): journal.recover().warnings
        case .history(let history): history.start()
        }
    }

    static func activity(_ title: String) -> NookActivity {
        let hash = title.utf8.reduce(UInt64(7)) { $0 &* 31 &+ UInt64($1) }
        var activity = NookActivity(title: title)
        activity.id = NookActivityID(high: hash, low: ~hash)
        activity.sender = NookSender(uid: UInt32(truncatingIfNeeded: hash % 1_000_000 + 1000), pid: 1)
        return activity
    }

    /// Records `title` as kept: a journal's arrival, a history's end.
    func keep(_ title: String) {
        let activity = Self.activity(title)
        switch self {
        case .journal(let journal): journal.added(activity, module: "default")
        case .history(let history):
            history.record([NookActivityEvent(activity: activity, kind: .enqueued, at: .origin, module: "default")], module: "default")
            history.record([NookActivityEvent(activity: activity, kind: .hidden(.completed), at: .origin, module: "default")], module: "default")
        }
    }

    /// Records that `title` is no longer kept: a journal's end, a history's clear of it.
    func drop(_ title: String) async {
        let activity = Self.activity(title)
        switch self {
        case .journal(let journal): journal.ended(activity.id)
        case .history(let history): _ = await history.clear(sentBy: activity.sender!.uid)
        }
    }

    /// Waits until what was recorded is on stable storage; why not, if it is not.
    func settle() async -> String? {
        switch self {
        case .journal(let journal): await journal.log.wait(for: journal.log.mark, durable: true)
        case .history(let history): await history.log.wait(for: history.log.mark, durable: true)
        }
    }

    var kept: [String] {
        switch self {
        case .journal(let journal): journal.log.state.withLock { $0.content.live.values.sorted { $0.sequence < $1.sequence }.map(\.activity.title) }
        case .history(let history): history.query(HistoryQuery()).entries.map(\.activity.title)
        }
    }

    func kick() {
        switch self {
        case .journal(let journal): journal.kick()
        case .history(let history): history.kick()
        }
    }

    func finish() async {
        switch self {
        case .journal(let journal): await journal.finish()
        case .history(let history): await history.finish()
        }
    }
}

/// The durability rules of the one log, for each of its uses: a rule that breaks in one use
/// fails here.
@Suite("J1 U4 one durable log: every durability rule holds for the journal and the history", .serialized, .ownThreads)
struct DurableLogTests {
    /// What a restart finds at `path`.
    func reopened(_ use: DurableUse, _ path: String) async -> (kept: [String], warnings: [String]) {
        let again = use.open(path)
        let warnings = again.start()
        let kept = again.kept
        await again.finish()
        return (kept, warnings)
    }

    @Test(arguments: DurableUse.allCases)
    func j1_u4_aFailedSyncMakesTheLogMemoryOnlyReleasesItsWaitersAndTenSecondsLaterItIsRewritten(_ use: DurableUse) async throws {
        let scratch = Scratch()
        let path = scratch.path + "/" + use.rawValue
        let syncer = TestSyncer(), seconds = TestSeconds(), warnings = Warnings()
        let log = use.open(path, syncer: syncer, seconds: seconds, warnings: warnings)
        log.start()
        log.keep("before")
        #expect(await log.settle() == nil)
        syncer.failNext(with: EIO)
        log.keep("sync failed")
        #expect(await log.settle()?.contains("Input/output error") == true, "the waiter is released with the reason")
        #expect(log.log.degraded)
        #expect(warnings.all.contains("\(use.rawValue): 'fdatasync' of \(path) failed: (5) Input/output error; keeping "
            + "\(use == .journal ? "activities" : "the history") in memory only until it can be written again"), "\(warnings.all)")
        log.keep("while memory-only")
        seconds.advance(10)
        log.kick()
        try await until("the rewrite") { !log.log.degraded }
        #expect(warnings.all.last?.hasPrefix("\(use.rawValue) \(path): writable again; 3 ") == true, "\(warnings.all)")
        // Read while the log still runs: a kill now loses nothing.
        #expect(await reopened(use, path).kept == ["before", "sync failed", "while memory-only"])
        await log.finish()
    }

    @Test(arguments: DurableUse.allCases)
    func j1_u4_aMemoryOnlyLogIsRewrittenWholeWhenNookdStops(_ use: DurableUse) async throws {
        let scratch = Scratch()
        let path = scratch.path + "/" + use.rawValue
        let syncer = TestSyncer()
        let log = use.open(path, syncer: syncer)
        log.start()
        for title in ["first", "second"] { log.keep(title) }
        #expect(await log.settle() == nil)
        syncer.failNext(with: ENOSPC)
        log.keep("third")
        #expect(await log.settle() != nil)
        #expect(log.log.degraded)
        // Changes while memory-only, and the stop comes before the ten seconds' retry.
        await log.drop("first")
        log.keep("fourth")
        await log.finish()
        let restart = await reopened(use, path)
        #expect(restart.kept == ["second", "third", "fourth"], "nothing dropped comes back, nothing kept is lost")
        #expect(restart.warnings.isEmpty, "\(restart.warnings)")
    }

    @Test(arguments: DurableUse.allCases)
    func j1_u4_recordsMadeWhileAMemoryOnlyLogIsBeingRewrittenStartAnotherRewrite(_ use: DurableUse) async throws {
        let scratch = Scratch()
        let path = scratch.path + "/" + use.rawValue
        let syncer = TestSyncer(), seconds = TestSeconds()
        let log = use.open(path, syncer: syncer, seconds: seconds)
        log.start()
        log.keep("before")
        #expect(await log.settle() == nil)
        syncer.failNext(with: EIO)
        log.keep("sync failed")
        #expect(await log.settle() != nil)
        try #require(log.log.degraded)
        // The retry's new file waits in its sync; what comes meanwhile is memory-only.
        syncer.hold(full: true)
        seconds.advance(10)
        log.kick()
        await syncer.waitUntilEntered()
        log.keep("during the rewrite")
        syncer.letGo()
        try await until("the rewrite") { !log.log.degraded }
        try await until("the second rewrite") { (try? String(contentsOfFile: path, encoding: .utf8))?.contains("during the rewrite") == true }
        #expect(await reopened(use, path).kept == ["before", "sync failed", "during the rewrite"])
        await log.finish()
    }

    @Test(arguments: DurableUse.allCases)
    func j1_u4_aWholeLastRecordThatCannotBeReadIsNotCalledAPowerCut(_ use: DurableUse) async throws {
        let scratch = Scratch()
        let path = scratch.path + "/" + use.rawValue
        var changed = use.line("third")
        changed[20] = changed[20] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
        try Data(use.line("first") + use.line("second") + changed).write(to: URL(fileURLWithPath: path))
        let (_, warnings) = await reopened(use, path)
        let warning = try #require(warnings.first)
        #expect(warning.contains("not a power cut"), "\(warning)")
        #expect(!warning.contains("torn") && !warning.contains("cut short") && !warning.contains("zero-filled"), "\(warning)")
        // Cut short, it is one.
        try Data(use.line("first") + use.line("second") + use.line("third").prefix(50)).write(to: URL(fileURLWithPath: path))
        let cut = try #require(await reopened(use, path).warnings.first)
        #expect(cut.contains("power") && !cut.contains("not a power cut"), "\(cut)")
    }

    @Test(arguments: DurableUse.allCases)
    func j1_u4_theFileAndItsDirectoryAreSyncedWhenReplaced(_ use: DurableUse) async throws {
        let scratch = Scratch()
        let path = scratch.path + "/" + use.rawValue
        let syncer = TestSyncer()
        let log = use.open(path, syncer: syncer)
        log.start()
        log.keep("kept")
        await log.drop("kept")
        log.keep("again")
        _ = await log.settle()
        // The journal's start and the history's clear each replace the file: the new file,
        // then its directory.
        try await until("a replacement") { syncer.fullSyncs >= 2 }
        #expect(syncer.fullSyncs % 2 == 0, "\(syncer.fullSyncs) full syncs")
        #expect(!FileManager.default.fileExists(atPath: path + ".new"))
        await log.finish()
    }

    @Test(arguments: DurableUse.allCases)
    func j1_u4_aFIFOOrALinkAtTheNewFileNeitherBlocksNorTruncatesItsTarget(_ use: DurableUse) async throws {
        for planted in ["fifo", "link"] {
            let scratch = Scratch()
            let path = scratch.path + "/" + use.rawValue
            let target = scratch.file("precious", "not the log's to truncate\n")
            if planted == "fifo" { #expect(mkfifo(path + ".new", 0o600) == 0) } else { #expect(symlink(target, path + ".new") == 0) }
            let log = use.open(path)
            // On a thread of its own: a start or a rewrite blocked in open(2) must not hold a pool thread.
            let done = DispatchSemaphore(value: 0)
            Thread { log.start(); done.signal() }.start()
            #expect(done.wait(timeout: .now() + 20) == .success, "\(planted): the start blocked on the planted .new")
            log.keep("kept")
            await log.drop("kept")
            let finished = DispatchSemaphore(value: 0)
            // Off the cooperative pool too: a stop blocked in open(2) must not hold a pool thread.
            Task.onOwnThreads { await log.finish(); finished.signal() }
            #expect(await finished.waitedOnAThread(seconds: 20) == .success, "\(planted): a rewrite blocked")
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "not the log's to truncate\n", "\(planted)")
            var info = stat()
            #expect(lstat(path + ".new", &info) == 0 && info.st_mode & S_IFMT == (planted == "fifo" ? S_IFIFO : S_IFLNK),
                    "\(planted): not nookd's, so not removed")
        }
    }

    /// A real full disk (tmpfs): the write cut short is taken back, so a kill right after leaves
    /// a file that ends on a whole record.
    @Test(.enabled(if: SmallDisk.mountable, SmallDisk.skipReason), arguments: DurableUse.allCases)
    func j1_u4_aRecordCutShortByAFullDiskIsTakenBack(_ use: DurableUse) async throws {
        let scratch = Scratch()
        let disk = try SmallDisk(in: scratch)
        let path = disk.path + "/" + use.rawValue
        let log = use.open(path)
        log.start()
        log.keep("first")
        #expect(await log.settle() == nil)
        disk.fill()
        var saved = ["first"]
        for number in 1...12 where !log.log.degraded {
            let title = "card \(number) " + String(repeating: "c", count: 500)
            log.keep(title)
            if await log.settle() == nil { saved.append(title) }
        }
        #expect(log.log.degraded)
        // As a kill would find it (the log is not stopped).
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.last == UInt8(ascii: "\n"), "the file ends in a torn record")
        disk.free()
        let restart = await reopened(use, path)
        #expect(restart.kept == saved)
        #expect(restart.warnings.isEmpty, "\(restart.warnings)")
        await log.finish()
    }

    /// The file removed, or its directory moved away and made again, while nookd runs: what is
    /// recorded after goes to a new file at the path, with everything kept, and is then settled;
    /// writes to the old file would be acknowledged and lost at the next start.
    @Test(arguments: DurableUse.allCases)
    func j1_u4_aLogRemovedOrWhoseDirectoryIsMovedAwayWhileRunningIsWrittenAgainAtItsPath(_ use: DurableUse) async throws {
        let scratch = Scratch()
        let directory = scratch.path + "/state"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/" + use.rawValue
        let log = use.open(path)
        log.start()
        log.keep("before")
        #expect(await log.settle() == nil)
        #expect(unlink(path) == 0)
        log.keep("after removal")
        #expect(await log.settle() == nil)
        #expect(await reopened(use, path).kept == ["before", "after removal"])
        #expect(rename(directory, directory + ".old") == 0 && mkdir(directory, 0o700) == 0)
        log.keep("after move")
        #expect(await log.settle() == nil)
        #expect(await reopened(use, path).kept == ["before", "after removal", "after move"])
        await log.finish()
    }

    /// Written (an `interval` answer), then the file removed before its sync: the sync of the
    /// removed file is not counted as stable storage; everything goes to a new file first.
    @Test func j1_aRecordWhoseFileIsRemovedBetweenItsWriteAndItsSyncIsSyncedInANewFile() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/journal"
        let journal = ActivityJournal(path: path, mode: .interval, warn: { _ in })
        _ = journal.recover()
        journal.added(UsedLog.activity("written"), module: "default")
        #expect(await journal.log.wait(for: journal.mark, durable: false) == nil)
        #expect(unlink(path) == 0)
        #expect(await journal.log.wait(for: journal.mark, durable: true) == nil)
        #expect(await reopened(.journal, path).kept == ["written"])
        await journal.finish()
    }

    /// A FIFO, a link or a directory swapped in at the path while nookd runs is as foreign as at
    /// start: a rewrite does not rename over it; the log is memory-only, saying why.
    @Test(arguments: DurableUse.allCases)
    func j1_u4_somethingNotALogSwappedInAtThePathWhileRunningIsNotReplaced(_ use: DurableUse) async throws {
        for planted in ["fifo", "link", "directory"] {
            let scratch = Scratch()
            let path = scratch.path + "/" + use.rawValue
            let target = scratch.file("precious", "not the log's\n")
            let warnings = Warnings()
            let log = use.open(path, warnings: warnings)
            log.start()
            log.keep("before")
            #expect(await log.settle() == nil)
            #expect(unlink(path) == 0)
            switch planted {
            case "fifo": #expect(mkfifo(path, 0o600) == 0)
            case "link": #expect(symlink(target, path) == 0)
            default: #expect(mkdir(path, 0o700) == 0)
            }
            log.keep("after")
            #expect(await log.settle() != nil, "\(planted): answered as saved")
            #expect(log.log.degraded, "\(planted)")
            let finished = DispatchSemaphore(value: 0)
            // Off the cooperative pool too: a stop blocked in open(2) must not hold a pool thread.
            Task.onOwnThreads { await log.finish(); finished.signal() }
            #expect(await finished.waitedOnAThread(seconds: 20) == .success, "\(planted): the stop blocked")
            var info = stat()
            let kind: mode_t = planted == "fifo" ? S_IFIFO : planted == "link" ? S_IFLNK : S_IFDIR
            #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == kind, "\(planted) was replaced")
            #expect(warnings.all.contains { $0.contains("not nookd's: nookd does not replace it") }, "\(planted): \(warnings.all)")
        }
    }
}
