import NookActivities

/// The history of ended activities (U4, U5).
public struct HistoryOperations: Sendable {
    typealias Row = NookOperation.Row

    /// Ended activities that pass the query, oldest first.
    public let history = Row<HistoryQuery>(
        .history, fields: ["since", "key", "unseen", "limit", "before"], answer: HistoryAnswer.self, command: .grouped("history", "list"),
        // A kilobyte an entry, a page at most.
        reads: { _ in true },
        answerBytes: { min(NookProtocol.answerPageBytes, max(1, min($0.limit ?? .max, NookProtocol.answerPageBytes)) * 1024) + 1024 },
        make: { .history($0) },
        decode: { reader throws(ProtocolError) in
            var query = HistoryQuery(unseen: try reader.bool("unseen") ?? false)
            if let since = try reader.number("since") {
                guard since.isFinite, since > 0 else { throw ProtocolError(.invalid, field: "since", "must be a number of seconds greater than zero, got \(since)") }
                query.since = since
            }
            if let key = try reader.string("key") {
                guard !key.isEmpty else { throw ProtocolError(.invalid, field: "key", "must not be empty") }
                query.key = key
            }
            if let limit = try reader.number("limit") {
                guard limit >= 1, limit <= 1e9, limit == limit.rounded() else {
                    throw ProtocolError(.invalid, field: "limit", "must be a whole number from 1, got \(limit)")
                }
                query.limit = Int(limit)
            }
            if let before = try reader.number("before") {
                guard before >= 1, before < 1e15, before == before.rounded() else {
                    throw ProtocolError(.invalid, field: "before", "must be a history entry's number (a whole number from 1), got \(before)")
                }
                query.before = UInt64(before)
            }
            return query
        },
        encode: { query in
            var fields: [(String, JSONValue)] = []
            if let since = query.since { fields.append(("since", .number(since))) }
            if let key = query.key { fields.append(("key", .string(key))) }
            if query.unseen { fields.append(("unseen", .bool(true))) }
            if let limit = query.limit { fields.append(("limit", .number(Double(limit)))) }
            if let before = query.before { fields.append(("before", .number(Double(before)))) }
            return fields
        })

    /// One history entry.
    public let historyShow = Row<HistoryReference>(
        .historyShow, fields: ["entry"], answer: HistoryShowAnswer.self, command: .grouped("history", "show"), reads: { _ in true },
        make: { .historyShow($0) }, decode: { reader throws(ProtocolError) in try reader.historyReference() }, encode: entryField)

    /// A history entry's activity enqueued again, as a new activity sent by the requester.
    public let historyReplay = Row<HistoryReference>(
        .historyReplay, fields: ["entry"], answer: HistoryReplayAnswer.self, command: .grouped("history", "replay"),
        make: { .historyReplay($0) }, decode: { reader throws(ProtocolError) in try reader.historyReference() }, encode: entryField)

    /// All entries for root and the admin group, else the caller's own.
    public let historyClear = Row<Void>(.historyClear, answer: HistoryClearAnswer.self, command: .grouped("history", "clear"), scope: .own, .historyClear)
}

@Sendable private func entryField(_ reference: HistoryReference) -> [(String, JSONValue)] { [("entry", .string(reference.description))] }
