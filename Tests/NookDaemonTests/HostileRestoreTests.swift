import Foundation
import NookActivities
@testable import NookDaemon
import NookProtocol
import NookSystem
import Testing

/// Records an older nookd wrote under looser limits (a title of one letter and 31,000
/// combining marks was one character then) come back cut to today's limits: neither refused
/// as damage, which would lose every record after them, nor restored whole, which would hold
/// the display loop again after every restart.
@Suite("J1 U4 restoring records written under looser limits")
struct HostileRestoreTests {
    static let hostile = "t" + String(repeating: "\u{301}", count: 31_000)

    @Test func j1_aJournalRecordOverTodaysLimitsIsRestoredCutAndTheRecordsAfterItToo() async throws {
        let activities = [NookActivity(title: "before"), NookActivity(title: Self.hostile, subtitle: Self.hostile), NookActivity(title: "after")]
        let bytes = activities.enumerated().flatMap { index, activity in
            JournalRecord.added(ActivityJournal.Entry(sequence: UInt64(index + 1), module: "default", activity: activity,
                                                      enqueuedAt: ActivityJournal.realtime(), wasShown: false)).encoded()
        }
        let scratch = Scratch()
        try Data(bytes).write(to: URL(fileURLWithPath: scratch.path + "/journal"))
        let journal = ActivityJournal(path: scratch.path + "/journal", warn: { _ in })
        let recovery = journal.recover()
        #expect(recovery.warnings.isEmpty, "\(recovery.warnings)")
        #expect(recovery.entries.map(\.activity.id) == activities.map(\.id))
        let restored = try #require(recovery.entries.dropFirst().first?.activity)
        #expect(restored.title.unicodeScalars.count == NookTextLimit.scalarsPerCharacter)
        #expect(restored.title.unicodeScalars.first == "t")
        try restored.validate()
        await journal.finish()
    }

    @Test func u4_aHistoryEntryOverTodaysLimitsIsReadCut() throws {
        let entry = HistoryEntry(number: 1, activity: NookActivity(title: Self.hostile, subtitle: String(repeating: "é", count: 3000)),
                                 module: "default", enqueuedAt: 1, shownAt: 2, endedAt: 3, ending: "completed", onGlass: true)
        let body = entry.json.serializedBytes
        let line = Array(CRC32.hex(CRC32.checksum(body)).utf8) + [UInt8(ascii: " ")] + body
        let read = try HistoryScan.decode(line).get()
        try read.activity.validate()
        #expect(read.activity.subtitle?.count == NookActivity.Limits.subtitleCharacters)
        #expect(read.activity.subtitle?.hasSuffix("…") == true)
    }
}
