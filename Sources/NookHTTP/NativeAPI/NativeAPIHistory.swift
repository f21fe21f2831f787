import NookProtocol

/// `GET /api/v1/history` (U4): ended activities, newest first, a page at a time (`offset`,
/// `limit`), searched (`q`: words every one of which appears in the title, subtitle, key, icon,
/// module or sender's name, case ignored) and filtered as `nookctl history` filters (`key`,
/// `since`, `unseen`).
enum NativeAPIHistory {
    static let defaultLimit = 50
    static let maximumLimit = 500
    /// Past this many matches skipped the client pages by `since` or `key` instead: each skipped
    /// one is read from nookd on every request.
    static let maximumOffset = 100_000

    struct Search {
        var query = HistoryQuery()
        var words: [String] = []
        var offset = 0
        var limit = NativeAPIHistory.defaultLimit

        func matches(_ entry: JSONValue) -> Bool {
            guard !words.isEmpty else { return true }
            let activity = entry["activity"]
            let texts = [activity?["title"], activity?["subtitle"], activity?["key"], activity?["icon"], entry["module"], entry["sender"]?["name"]]
                .compactMap { $0?.text?.lowercased() }
            return words.allSatisfy { word in texts.contains { $0.contains(word) } }
        }
    }

    static func search(in request: HTTPRequest) throws(HTTPAPIError) -> Search {
        var search = Search()
        search.offset = try NativeAPIBody.count("offset", in: request, range: 0...maximumOffset, fallback: 0)
        search.limit = try NativeAPIBody.count("limit", in: request, range: 1...maximumLimit, fallback: defaultLimit)
        if let q = request.parameter("q") {
            guard q.utf8.count <= 1024 else { throw HTTPAPIError(status: 422, code: "invalid_field", field: "q", message: "must be at most 1024 bytes") }
            search.words = q.lowercased().split(whereSeparator: { $0.isWhitespace }).map(String.init)
        }
        search.query.key = try NativeAPIBody.text("key", in: request)
        if let since = request.parameter("since") {
            switch HistoryAge.seconds(since) {
            case .success(let seconds): search.query.since = seconds
            case .failure(let problem): throw HTTPAPIError(status: 422, code: "invalid_field", field: "since", message: problem.description)
            }
        }
        search.query.unseen = try NativeAPIBody.flag("unseen", in: request) ?? false
        return search
    }

    static func history(_ exchange: any HTTPExchange, _: [String: String], _ nookd: any NookdCalls) {
        let search: Search
        do throws(HTTPAPIError) { search = try self.search(in: exchange.request) } catch {
            exchange.respond(error.response)
            return
        }
        let wanted = search.offset + search.limit + 1
        var matched: [JSONValue] = []
        var skipped = 0
        var total = 0
        // nookd answers the newest entries that fit in one page, oldest first, and where the
        // page before starts (`next`); read newest first until a page past this one is known.
        func page(before: UInt64?) {
            var query = search.query
            query.before = before
            // Without words nookd can count for us: the newest `wanted` are enough.
            if search.words.isEmpty { query.limit = wanted - skipped - matched.count }
            nookd.ask(.history(query), for: exchange) { answer in
                total = answer["total"]?.numberValue.flatMap { Int(exactly: $0) } ?? total
                let entries = answer["entries"]?.items ?? []
                for entry in entries.reversed() where search.matches(entry) {
                    if skipped < search.offset { skipped += 1 } else { matched.append(entry) }
                    if skipped + matched.count >= wanted { break }
                }
                if skipped + matched.count < wanted, !entries.isEmpty,
                   let next = answer["next"]?.numberValue.flatMap({ UInt64(exactly: $0) }), next < (before ?? .max) {
                    page(before: next)
                    return
                }
                let more = matched.count > search.limit
                var members: [(String, JSONValue)] = [("entries", .array(Array(matched.prefix(search.limit)))), ("total", .number(Double(total))),
                                                      ("offset", .number(Double(search.offset)))]
                if more { members.append(("next", .number(Double(search.offset + search.limit)))) }
                exchange.respond(.json(.object(members)))
            }
        }
        page(before: nil)
    }
}
