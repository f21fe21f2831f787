import NookActivities

/// One ended activity as nookd's history keeps it (U4): the activity as it last was (its
/// sender inside), where and when it lived, how it ended and whether it ever reached the glass.
/// The same JSON is the wire form (`history`, `history-show`) and a line of the history file.
public struct HistoryEntry: Sendable, Equatable {
    /// Numbers entries in the order they ended; not reused while the file keeps any entry (a
    /// history cleared and restarted counts from 1 again).
    public var number: UInt64
    public var activity: NookActivity
    public var module: String
    /// Wall-clock seconds (Unix time).
    public var enqueuedAt: Double
    /// When it first took the glass; nil if it never did in this run of nookd.
    public var shownAt: Double?
    public var endedAt: Double
    /// How it ended: `completed`, `dismissed`, `cancelled`, `timedOut` (its time on the
    /// glass ended) or `cancelled`, `coalesced`, `expired`, `queueFull`, `dismissed`,
    /// `suppressed` (it ended while pending).
    public var ending: String
    /// Ever on the glass (taken it at least once, in this run or one before a restart).
    public var onGlass: Bool
    /// What became of the sound it slid in with (B3): `played`, `played at 20 (quiet hours)`,
    /// `silenced (nobody there)`; nil when it had none.
    public var sound: String?

    public init(number: UInt64, activity: NookActivity, module: String, enqueuedAt: Double, shownAt: Double?, endedAt: Double,
                ending: String, onGlass: Bool, sound: String? = nil) {
        (self.number, self.activity, self.module, self.enqueuedAt) = (number, activity, module, enqueuedAt)
        (self.shownAt, self.endedAt, self.ending, self.onGlass, self.sound) = (shownAt, endedAt, ending, onGlass, sound)
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("number", .number(Double(number))), ("activity", ActivityPayload.encode(activity)),
                                               ("module", .string(module)), ("enqueuedAt", .number(enqueuedAt))]
        if let sender = activity.sender { members.append(("sender", SenderPayload.encode(sender))) }
        if let shownAt { members.append(("shownAt", .number(shownAt))) }
        members += [("endedAt", .number(endedAt)), ("ending", .string(ending)), ("onGlass", .bool(onGlass))]
        if let sound { members.append(("sound", .string(sound))) }
        return .object(members)
    }

    public init(json: JSONValue, path: String = "entry") throws(ProtocolError) {
        let reader = try FieldReader(json, path: path)
        let number = try reader.requiredNumber("number")
        guard number >= 1, number < 1e15, number == number.rounded() else {
            throw ProtocolError(.invalid, field: reader.name("number"), "must be a whole number from 1, got \(number)")
        }
        self.number = UInt64(number)
        guard let payload = reader.value("activity") else { throw ProtocolError(.missingField, field: reader.name("activity"), "is required") }
        // Entries are nookd's own records, kept under the limits of whichever nookd wrote them.
        activity = try ActivityPayload.decode(payload, path: reader.name("activity"), clampingText: true)
        activity.sender = reader.value("sender").flatMap(SenderPayload.decode)
        module = try reader.requiredString("module")
        enqueuedAt = try reader.requiredNumber("enqueuedAt", in: FieldReader.wallClock)
        shownAt = try reader.number("shownAt", in: FieldReader.wallClock)
        endedAt = try reader.requiredNumber("endedAt", in: FieldReader.wallClock)
        ending = try reader.requiredString("ending")
        onGlass = try reader.requiredBool("onGlass")
        sound = try reader.string("sound")
    }
}

/// What `history` asks for (U5). Every filter is optional; entries come oldest first.
public struct HistoryQuery: Hashable, Sendable {
    /// Only entries that ended at most this many seconds ago.
    public var since: Double?
    /// Only entries with this coalescing key.
    public var key: String?
    /// Only entries that never reached the glass: what the user missed.
    public var unseen: Bool
    /// Only the newest this many (after the other filters).
    public var limit: Int?
    /// Only entries numbered below this: the next page of an answer too large for one line
    /// (its `next`).
    public var before: UInt64?

    public init(since: Double? = nil, key: String? = nil, unseen: Bool = false, limit: Int? = nil, before: UInt64? = nil) {
        (self.since, self.key, self.unseen, self.limit, self.before) = (since, key, unseen, limit, before)
    }

    /// Whether `entry` passes the filters, at wall-clock `now`. Inlinable: nookd runs it over
    /// every kept entry in place, and a call across modules took a copy of each.
    @inlinable
    public func admits(_ entry: HistoryEntry, now: Double) -> Bool {
        if let since, entry.endedAt < now - since { return false }
        if let key, entry.activity.coalescingKey != key { return false }
        if unseen && entry.onGlass { return false }
        if let before, entry.number >= before { return false }
        return true
    }
}

/// How a request names one history entry: its number, or an activity's id (its latest entry:
/// a script may send one id many times).
public enum HistoryReference: Hashable, Sendable, CustomStringConvertible {
    case number(UInt64)
    case id(NookActivityID)

    /// `42`, `#42` or a UUID; nil for anything else.
    public init?(_ text: String) {
        let digits = text.hasPrefix("#") ? String(text.dropFirst()) : text
        if let number = UInt64(digits), number >= 1 { self = .number(number); return }
        guard let id = NookActivityID(text) else { return nil }
        self = .id(id)
    }

    public var description: String {
        switch self {
        case .number(let number): "#\(number)"
        case .id(let id): id.description
        }
    }

    static let expected = "a history entry's number (such as 42 or #42) or an activity id (a UUID)"
}

/// Ages such as `90s`, `45m`, `2h`, `7d` (`nookctl history --since`, the `history.max_age`
/// setting): a positive number and one unit.
public enum HistoryAge {
    public static let expected = "a duration such as 90s, 45m, 2h or 7d"

    /// Seconds, or what is wrong (without the name of the option or key, which the caller adds).
    public static func seconds(_ text: String) -> Result<Double, FieldProblem> {
        // A second at least: a history that keeps nothing is a typo, as is more than ten years.
        DurationText.seconds(text, expected: expected, range: 1...(3650 * 86_400))
    }
}

/// `history`: the entries that pass the query, oldest first, and how many the history holds.
public struct HistoryAnswer: NookAnswer {
    public var entries: [HistoryEntry]
    public var total: Int
    /// Set when more entries pass the query than fit in one answer
    /// (``NookProtocol/answerPageBytes``): these are the newest of them, and asking again with
    /// `before` set to this gives the ones before.
    public var next: UInt64?

    public init(entries: [HistoryEntry], total: Int, next: UInt64? = nil) { (self.entries, self.total, self.next) = (entries, total, next) }

    public var json: JSONValue {
        .object([("entries", .array(entries.map(\.json))), ("total", .number(Double(total)))]
                + (next.map { [("next", .number(Double($0)))] } ?? []))
    }

    /// How many of `sizes` (the entries' JSON lengths, oldest first) the page holds: the newest
    /// that fit in `budget` together, at least one.
    public static func pageCount(sizes: [Int], budget: Int = NookProtocol.answerPageBytes) -> Int {
        var bytes = 0, count = 0
        for size in sizes.reversed() {
            if count > 0 && bytes + size + 1 > budget { break }
            bytes += size + 1
            count += 1
        }
        return count
    }

    /// The whole answer line in UTF-8 (no newline) for a request `id`, from each entry's JSON already
    /// serialized (nookd keeps them so): the same line as ``json`` would give, without building
    /// and walking a tree of thousands of entries per query.
    public static func lineBytes(id: RequestID?, entries: [[UInt8]], total: Int, next: UInt64? = nil) -> [UInt8] {
        // `{"v":1,"id":…,"ok":true,"result":` from the encoder itself: all but `null}`.
        var line = Array(Array(ResponseLine.success(id: id, result: .null).encoded().utf8).dropLast(5))
        line.reserveCapacity(line.count + entries.reduce(32) { $0 + $1.count + 1 })
        line.append(contentsOf: #"{"entries":["#.utf8)
        for (index, entry) in entries.enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            line.append(contentsOf: entry)
        }
        line.append(contentsOf: #"],"total":"#.utf8)
        line.append(contentsOf: String(total).utf8)
        if let next { line.append(contentsOf: #","next":\#(next)"#.utf8) }
        line.append(contentsOf: "}}".utf8)
        return line
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        entries = try reader.requiredArray("entries").enumerated().map { (index, value) throws(ProtocolError) in
            try HistoryEntry(json: value, path: reader.name("entries[\(index)]"))
        }
        total = try reader.requiredCount("total")
        next = try reader.count("next").map { UInt64($0) }
    }
}

/// `history-show`: one entry.
public struct HistoryShowAnswer: NookAnswer {
    public var entry: HistoryEntry

    public init(entry: HistoryEntry) { self.entry = entry }

    public var json: JSONValue { .object([("entry", entry.json)]) }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        guard let value = reader.value("entry") else { throw ProtocolError(.missingField, field: reader.name("entry"), "is required") }
        entry = try HistoryEntry(json: value, path: reader.name("entry"))
    }
}

/// `history-replay`: the new activity made from the entry, and the module it went to.
public struct HistoryReplayAnswer: NookAnswer {
    public var id: NookActivityID
    public var module: String
    /// The entry it was made from.
    public var replayed: UInt64

    public init(id: NookActivityID, module: String, replayed: UInt64) { (self.id, self.module, self.replayed) = (id, module, replayed) }

    public var json: JSONValue {
        .object([("id", .string(id.description)), ("module", .string(module)), ("replayed", .number(Double(replayed)))])
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        id = try reader.requiredID("id")
        module = try reader.requiredString("module")
        replayed = UInt64(max(0, try reader.requiredInt("replayed")))
    }
}

/// `history-clear`: how many entries were removed, and whether the caller could clear all of
/// them (`all`: root or the admin group) or only the ones it sent (`own`).
public struct HistoryClearAnswer: NookAnswer {
    public enum Scope: String, CaseIterable, Sendable {
        case all, own
    }

    public var cleared: Int
    public var scope: Scope

    public init(cleared: Int, scope: Scope) { (self.cleared, self.scope) = (cleared, scope) }

    public var json: JSONValue { .object([("cleared", .number(Double(cleared))), ("scope", .string(scope.rawValue))]) }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, path: "result")
        cleared = try reader.requiredCount("cleared")
        scope = try reader.requiredOneOf("scope", Scope.self)
    }
}
