import Foundation
import NookActivities
@testable import NookDaemon
import NookProtocol
import NookTestSupport
import Testing

/// The files' bytes stay as they were: what the nookd before the shared log wrote is read the
/// same, and what this one writes is, byte for byte, what that one wrote for the same content.
@Suite("J1 U4 journal and history files are read and written as the nookd before the shared log did")
struct OldLogFilesTests {
    func lines(_ bytes: [UInt8]) -> [[UInt8]] {
        bytes.split(separator: UInt8(ascii: "\n")).map { Array($0) + [UInt8(ascii: "\n")] }
    }

    @Test func j1_anOldJournalIsRestoredAndRewrittenToTheBytesTheOldNookdWroteAtItsStart() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/journal"
        try Data(OldLogFiles.journal).write(to: URL(fileURLWithPath: path))
        let journal = ActivityJournal(path: path, warn: { _ in })
        let recovery = journal.recover()
        #expect(recovery.warnings.isEmpty, "\(recovery.warnings)")
        #expect(recovery.entries.map(\.activity.title) == ["Door open", "Build 5/7"], "the blocker on the glass first, the update in place")
        #expect(recovery.entries.map(\.wasShown) == [true, false])
        #expect(recovery.entries.last?.activity.progress == 0.7)
        // The fresh file: the old nookd's start wrote these two records (and then its `shown`).
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(lines(written) == Array(lines(OldLogFiles.journalRestarted).prefix(2)))
        await journal.finish()
        let again = ActivityJournal(path: path, warn: { _ in })
        #expect(again.recover().entries.map(\.activity.title) == ["Door open", "Build 5/7"])
        await again.finish()
    }

    @Test func j1_theOldNookdsRewrittenJournalIsRestoredWithItsCardOnTheGlassFirst() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/journal"
        try Data(OldLogFiles.journalRestarted).write(to: URL(fileURLWithPath: path))
        let journal = ActivityJournal(path: path, warn: { _ in })
        let recovery = journal.recover()
        #expect(recovery.warnings.isEmpty, "\(recovery.warnings)")
        #expect(recovery.entries.map(\.activity.title) == ["Door open", "Build 5/7"])
        #expect(recovery.entries.map(\.wasShown) == [true, false])
        await journal.finish()
    }

    @Test func u4_anOldHistoryIsReadAndARewriteWritesItsOwnBytesAgain() async throws {
        let scratch = Scratch()
        let path = scratch.path + "/history"
        try Data(OldLogFiles.history).write(to: URL(fileURLWithPath: path))
        let history = ActivityHistory(path: path, bounds: .init(maxAge: 1e9), warn: { _ in })
        #expect(history.start().isEmpty)
        let entries = history.query(HistoryQuery()).entries
        #expect(entries.map(\.activity.title) == ["Shown then completed", "Cancelled while pending", "Another gone"])
        #expect(entries.map(\.ending) == ["completed", "cancelled", "cancelled"])
        #expect(entries.map(\.onGlass) == [true, false, false])
        #expect(entries.first?.activity.subtitle == "onGlass ü \"quoted\"")
        // A clear of nobody's entries rewrites the file with every entry kept.
        #expect(await history.clear(sentBy: 4_000_000_000) == (0, nil))
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == OldLogFiles.history)
        // And what this nookd appends is a line as the old one wrote it.
        #expect(history.encodedJSON(of: entries).map { CRC32.line(body: $0) } == lines(OldLogFiles.history))
        await history.finish()
    }
}
