/// The readable records of a journal file up to its first damage, and what that damage is, so
/// that recovery can say what it found: a record cut short, a tail the file system kept the
/// length of but not the data (zero-filled after a power cut) and how many records that can
/// have held, or damaged lines and what each held, as far as what is left of it says.
struct JournalScan {
    var records: [JournalRecord] = []
    var damage: Damage?

    struct Damage: Equatable {
        /// Byte offset and line (1-based) of the first unreadable byte.
        var offset: Int
        var line: Int
        /// Unreadable bytes: to the next readable record, or to the end.
        var length: Int
        /// How many of them are zero.
        var zeroBytes: Int
        /// Readable records after the span (not used: they may depend on what was lost).
        var recordsAfter: Int
        /// Why the first line failed to decode.
        var problem: String
        /// The first unreadable line ended with its newline: it was written whole, so it was
        /// not cut short by a kill or a power cut.
        var complete: Bool
        /// What the first ``heldShown`` unreadable lines held (``JournalRemains``), in order: only
        /// those are said, and a journal of damaged lines may have millions of them.
        var held: [String] = []
        /// How many unreadable lines the span has.
        var heldLines = 0
        static let heldShown = 4

        var atEnd: Bool { recordsAfter == 0 }
        /// What a kill or a power cut leaves: a last record cut short, or a zero-filled tail.
        var torn: Bool { atEnd && (zeroFilled || !complete) }
        /// Mostly zeros: what a power cut leaves when the size reached the disk before the data.
        var zeroFilled: Bool { zeroBytes > 0 && zeroBytes * 2 >= length }

        /// The most records `length` bytes can have held (the shortest record is an end).
        var mostRecords: Int { (length + JournalRecord.shortestBytes - 1) / JournalRecord.shortestBytes }

        /// Each record is one line, so a span that is not zeros held its lines' records: say what
        /// they were rather than how many of the shortest record its bytes could hold.
        var heldDescription: String {
            if heldLines == 1, let only = held.first { return only }
            let listed = held.joined(separator: "; ") + (heldLines > held.count ? "; and \(heldLines - held.count) more lines" : "")
            return "\(heldLines) lines: \(listed)"
        }

        func description(keptRecords: Int) -> String {
            let span = "\(length) bytes from byte \(offset) (line \(line))"
            let lost = zeroFilled || held.isEmpty
                ? "up to \(mostRecords) record\(mostRecords == 1 ? "" : "s") there are lost"
                : "they held \(heldDescription), lost"
            let kept = "kept the \(keptRecords) records before \(atEnd ? "them" : "it")"
            if zeroFilled {
                let cause = "zero-filled: the file system kept the journal's length but not its data, as after a power cut"
                if atEnd { return "the last \(span) are unreadable, \(zeroBytes) of them \(cause); \(lost); \(kept)" }
                return "\(span) are unreadable, \(zeroBytes) of them \(cause); \(lost) and the \(recordsAfter) after them are not used; \(kept)"
            }
            if atEnd && complete {
                return "the last record (line \(line), \(length) bytes) was written whole but cannot be read (\(problem)); it held \(heldDescription): "
                    + "not a power cut or a kill, but a change by something else than this nookd (an edit, another version of nookd, "
                    + "a disk error); \(kept)"
            }
            if atEnd {
                return "dropped a torn last record (\(problem), \(length) bytes): nookd was killed, or the power was cut, while it was being written; \(kept)"
            }
            return "line \(line) is damaged (\(problem)): \(span) are unreadable; \(lost); the \(recordsAfter) after them are not used; \(kept)"
        }
    }

    init(_ bytes: [UInt8]) {
        var offset = 0
        var line = 0
        var damageStart: (offset: Int, line: Int, problem: String, complete: Bool)?
        var damageEnd = 0
        var held: [String] = []
        var heldLines = 0
        var recordsAfter = 0
        while offset < bytes.count {
            line += 1
            let end = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let next = min(end + 1, bytes.count)
            defer { offset = next }
            if end == offset { continue }
            switch JournalRecord.decode(bytes[offset..<end]) {
            case .success(let record):
                if damageStart == nil { records.append(record) } else { recordsAfter += 1 }
            case .failure(let problem):
                if damageStart == nil { damageStart = (offset, line, problem.description, end < bytes.count) }
                // A second damaged stretch after readable records extends the span: nothing
                // after the first damage is used anyway.
                if recordsAfter == 0 {
                    damageEnd = next
                    heldLines += 1
                    if held.count < Damage.heldShown { held.append(JournalRemains.described(bytes[offset..<end], bytes: next - offset)) }
                }
            }
        }
        guard let start = damageStart else { return }
        // At the end the span runs to the end of the file; in the middle, to the next readable
        // record.
        let stop = recordsAfter == 0 ? bytes.count : damageEnd
        let zeros = bytes[start.offset..<stop].reduce(0) { $0 + ($1 == 0 ? 1 : 0) }
        damage = Damage(offset: start.offset, line: start.line, length: stop - start.offset, zeroBytes: zeros,
                        recordsAfter: recordsAfter, problem: start.problem, complete: start.complete, held: held, heldLines: heldLines)
    }
}
