import NookActivities

/// What the journal keeps under its log's lock: every activity that has not ended, and how
/// much of the file is theirs (a rewrite keeps only that). Its records are the file's lines,
/// encoded as they are appended so that the bytes are counted exactly.
struct JournalContent: DurableLogContent {
    var live: [NookActivityID: ActivityJournal.Entry] = [:]
    /// Cards snoozed by a long press (T2), each until its return; they are the queue's as much
    /// as the live ones, so a rewrite keeps them.
    var snoozed: [NookActivityID: ActivityJournal.Snooze] = [:]
    /// The apps (A1), by name: they live until removed, so a rewrite keeps them.
    var apps: [String: NookAppShelf.Entry] = [:]
    var appBytes: [String: Int] = [:]
    var nextSequence: UInt64 = 1
    /// Bytes in the file, and those of the records of activities still live.
    var bytes = 0
    var liveBytes = 0
    var recordBytes: [NookActivityID: Int] = [:]
    var snoozeBytes: [NookActivityID: Int] = [:]

    /// The log has grown past ``ActivityJournal/compactionBytes`` and twice what is live.
    var outgrown: Bool { bytes > ActivityJournal.compactionBytes && bytes > 2 * liveBytes }

    /// Every live activity's record, oldest first; the card on the glass keeps its mark, so it
    /// still goes back first after a crash. The file's byte counts start again from these.
    mutating func recordsToKeep() -> ArraySlice<[UInt8]> {
        var records: [[UInt8]] = []
        recordBytes = [:]
        for entry in live.values.sorted(by: { $0.sequence < $1.sequence }) {
            let record = JournalRecord.added(entry).encoded() + (entry.wasShown ? JournalRecord.shown(entry.activity.id).encoded() : [])
            recordBytes[entry.activity.id] = record.count
            records.append(record)
        }
        snoozeBytes = [:]
        for snooze in snoozed.values.sorted(by: { $0.until < $1.until }) {
            let record = JournalRecord.snoozed(snooze).encoded()
            snoozeBytes[snooze.entry.activity.id] = record.count
            records.append(record)
        }
        appBytes = [:]
        for entry in apps.values.sorted(by: { $0.arrival < $1.arrival }) {
            let record = JournalRecord.appSet(entry).encoded()
            appBytes[entry.app.name] = record.count
            records.append(record)
        }
        bytes = records.reduce(0) { $0 + $1.count }
        liveBytes = bytes
        return records[...]
    }

    static func lines(_ records: ArraySlice<[UInt8]>) -> DurableLines {
        var lines = DurableLines()
        lines.bytes.reserveCapacity(records.reduce(0) { $0 + $1.count })
        for record in records { lines.bytes += record }
        return lines
    }

    mutating func wrote(_ records: ArraySlice<[UInt8]>, as lines: DurableLines, rewrite: Bool) -> Bool { false }

    var savedSummary: String { "\(live.count) activities" + (snoozed.isEmpty ? "" : " and \(snoozed.count) snoozed")
        + (apps.isEmpty ? "" : " and \(apps.count) apps") }
}
