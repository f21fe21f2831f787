extension NookClient {
    /// `history` whole: an answer larger than one page (``NookProtocol/answerPageBytes``) says
    /// where the next starts, and the pages are asked for in turn and joined, oldest first.
    /// Also returns the joined result as JSON, each entry as nookd sent it (for `--json`).
    public func history(_ query: HistoryQuery) throws(ClientError) -> (HistoryAnswer, JSONValue) {
        let limit = query.limit
        var query = query
        var (answer, result) = try request(Request(id: .number(1), operation: .history(query)), as: HistoryAnswer.self)
        let total = answer.total
        var pages = [(answer.entries, result["entries"]?.items ?? [])]
        var count = answer.entries.count
        while let before = answer.next, !answer.entries.isEmpty, before < (query.before ?? .max) {
            if let limit {
                guard limit > count else { break }
                query.limit = limit - count
            }
            query.before = before
            (answer, result) = try request(Request(id: .number(1), operation: .history(query)), as: HistoryAnswer.self)
            pages.append((answer.entries, result["entries"]?.items ?? []))
            count += answer.entries.count
        }
        let entries = pages.reversed().flatMap(\.0)
        let json = JSONValue.object([("entries", .array(pages.reversed().flatMap(\.1))), ("total", .number(Double(total)))])
        return (HistoryAnswer(entries: entries, total: total), json)
    }

    /// `list` whole, page by page, each asked for after the cursor of the one before: cards
    /// that end meanwhile move nothing between pages, so a card held throughout is listed once;
    /// one that moved (a card on the glass put back, an update of its priority) is kept once.
    /// `betweenPages` runs before each page after the first (a test ends cards there).
    public func list(module: String?, betweenPages: () throws(ClientError) -> Void = {}) throws(ClientError) -> (ListAnswer, JSONValue) {
        var (answer, _) = try request(Request(id: .number(1), operation: .list(module: module)), as: ListAnswer.self)
        var whole = ListAnswer(modules: answer.modules)
        var seen = Set(whole.modules.flatMap { ($0.current.map { [$0.id] } ?? []) + $0.pending.map(\.id) })
        var previous: ListCursor?
        while let text = answer.cursor {
            // A page that names where it started as the next would loop.
            guard let cursor = ListCursor(text: text), cursor != previous else {
                throw ClientError.daemon(ProtocolError(.invalid, field: "result.cursor", "is not a later list cursor: \(text)"))
            }
            previous = cursor
            try betweenPages()
            (answer, _) = try request(Request(id: .number(1), operation: .list(module: module, after: cursor)), as: ListAnswer.self)
            whole.join(answer, seen: &seen)
        }
        return (whole, whole.json)
    }
}
