import NookActivities
import NookProtocol

/// What the history keeps under its log's lock: the kept entries, the JSON each was written
/// as, and the activities that have not ended yet. Its records are entries, encoded by the
/// log's writer thread, so the queues' recording stays a few pointer moves.
struct HistoryContent: DurableLogContent {
    var bounds: ActivityHistory.Bounds
    /// Entries oldest first; the first `head` of them are dropped already (removed in bulk,
    /// so dropping one per end costs no shifting of the rest).
    var entries: [HistoryEntry] = []
    var head = 0
    /// ``ActivityHistory/size(of:)`` of the kept entries together.
    var keptBytes = 0
    /// The JSON of kept entries by number, as the writer thread encoded them for the file (or
    /// as a query first needed them): `history` answers are these bytes joined, not a tree
    /// built and serialized again per query. Dropped with their entries.
    var encoded: [UInt64: [UInt8]] = [:]
    /// Numbers that more than one entry of a (hand-merged) file carries: never cached by
    /// number, or one entry's JSON would answer for the other.
    var sharedNumbers: Set<UInt64> = []
    var live: [NookActivityID: ActivityHistory.Live] = [:]
    /// Activities the journal restores: when they were first enqueued and whether they had
    /// been on the glass, before the restart.
    var seeds: [NookActivityID: (enqueuedAt: Double, onGlass: Bool)] = [:]
    var nextNumber: UInt64 = 1
    /// Numbers each arrival of an activity (``ActivityHistory/Live/arrival``).
    var nextArrival: UInt64 = 1
    /// Lines in the file, dropped entries included: what a rewrite would shed.
    var fileRecords = 0

    init(bounds: ActivityHistory.Bounds) { self.bounds = bounds }

    var kept: ArraySlice<HistoryEntry> { entries[head...] }

    /// The file holds more than twice the entries kept (and some slack).
    var outgrown: Bool { fileRecords > 2 * kept.count + ActivityHistory.compactionSlack }

    /// Whether the entry with this number is kept (entries are in number order).
    func keeps(_ number: UInt64) -> Bool {
        var low = head, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].number < number { low = middle + 1 } else { high = middle }
        }
        return low < entries.count && entries[low].number == number
    }

    /// Keeps an entry's JSON for `history` answers, unless the entry was dropped or cleared
    /// meanwhile or its number is one that several entries carry.
    mutating func keepJSON(_ body: [UInt8], of number: UInt64) {
        guard keeps(number), !sharedNumbers.contains(number) else { return }
        encoded[number] = body
    }

    // MARK: As the log's content

    mutating func recordsToKeep() -> ArraySlice<HistoryEntry> { kept }

    /// The file's lines for `entries`, and each entry's JSON (kept for `history` answers).
    static func lines(_ entries: ArraySlice<HistoryEntry>) -> DurableLines {
        var lines = DurableLines()
        lines.bodies.reserveCapacity(entries.count)
        for entry in entries {
            let body = entry.json.serializedBytes
            lines.bytes += DurableLine.encoded(body)
            lines.bodies.append(body)
        }
        return lines
    }

    /// Keeps the JSON of the entries that are still kept (one may have been dropped or
    /// cleared while it was being written), and counts the file's lines.
    mutating func wrote(_ entries: ArraySlice<HistoryEntry>, as lines: DurableLines, rewrite: Bool) -> Bool {
        for (entry, body) in zip(entries, lines.bodies) { keepJSON(body, of: entry.number) }
        fileRecords = rewrite ? entries.count : fileRecords + entries.count
        return outgrown
    }

    var savedSummary: String { "\(kept.count) entries" }
}

/// The readable entries of a history file, and what could not be read.
struct HistoryScan {
    var entries: [HistoryEntry] = []
    /// Non-empty lines, readable or not.
    var lines = 0
    var damage: String?

    init(_ bytes: [UInt8]) {
        var offset = 0
        var lineNumber = 0
        var bad = 0
        var first: (line: Int, problem: String)?
        var lastComplete = true
        var lastBad = 0
        var zeros = 0
        while offset < bytes.count {
            lineNumber += 1
            let end = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            defer { offset = min(end + 1, bytes.count) }
            guard end > offset else { continue }
            lines += 1
            switch Self.decode(bytes[offset..<end]) {
            case .success(let entry): entries.append(entry)
            case .failure(let problem):
                bad += 1
                lastBad = lineNumber
                lastComplete = end < bytes.count
                zeros += bytes[offset..<end].reduce(0) { $0 + ($1 == 0 ? 1 : 0) }
                if first == nil { first = (lineNumber, problem.description) }
            }
        }
        guard let first else { return }
        let atEnd = lastBad == lineNumber && bad == 1
        // Only a last line without its newline was cut short; one written whole that cannot be
        // read was changed by something else (an edit, another nookd, a disk error).
        let cause = zeros > 0 ? "zero-filled, as a power cut leaves a file whose length reached the disk before its data"
            : atEnd && !lastComplete ? "cut short: nookd was killed, or the power cut, while it was written"
            : "\(first.problem): written whole, so not a power cut but a change by something else than this nookd"
        damage = atEnd
            ? "dropped an unreadable last line (\(cause)); kept the \(entries.count) entries before it"
            : "dropped \(bad) unreadable line\(bad == 1 ? "" : "s") from line \(first.line) (\(cause)); kept the \(entries.count) readable entries"
    }

    static func decode(_ line: some Collection<UInt8>) -> Result<HistoryEntry, JournalDamage> {
        let body: ArraySlice<UInt8>
        switch DurableLine.body(of: line, what: "an entry") {
        case .success(let checked): body = checked
        case .failure(let damage): return .failure(damage)
        }
        do {
            return .success(try HistoryEntry(json: try JSONValue.parse(body)))
        } catch let error as ProtocolError {
            return .failure(JournalDamage("not an entry: \(error)"))
        } catch {
            return .failure(JournalDamage("not JSON: \(error)"))
        }
    }
}
