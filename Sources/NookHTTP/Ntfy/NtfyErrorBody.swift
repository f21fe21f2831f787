import NookProtocol

/// ntfy's error body, `{"code": 40301, "http": 403, "error": "…", "link": "…"}`, for every
/// error answered on a route that speaks ntfy (M5): ntfy's clients (`aiontfy`, so Home
/// Assistant's integration) read only that shape and fail on Nook's own. The status and the
/// headers (`Retry-After`, `WWW-Authenticate`, `Allow`) stay Nook's; `error` says ntfy's words,
/// then everything Nook said (its code, the field, the message), as ntfy's own `Wrap` adds detail.
public enum NtfyErrorBody {
    /// ntfy's code for one of Nook's errors: the first row whose Nook code (nil: any) and field
    /// (nil: any) match, else the status's row. The one table of the mapping, which
    /// docs/ntfy-clients.md prints; a status ntfy has no code for gets `status × 100` (as
    /// ntfy's own 40000 is its plain 400).
    public struct Row: Sendable, Equatable {
        public var status: Int
        public var nookCode: String?
        public var field: String?
        public var ntfyCode: Int
        public var words: String
        public var link: String?

        init(status: Int, nookCode: String? = nil, field: String? = nil, ntfyCode: Int, words: String, link: String? = nil) {
            (self.status, self.nookCode, self.field, self.ntfyCode, self.words, self.link) = (status, nookCode, field, ntfyCode, words, link)
        }
    }

    static let authentication = "https://ntfy.sh/docs/publish/#authentication"
    static let limitations = "https://ntfy.sh/docs/publish/#limitations"

    public static let table: [Row] = [
        Row(status: 400, nookCode: "malformed_json", ntfyCode: 40024, words: "invalid request: request body must be valid JSON"),
        Row(status: 400, field: "priority", ntfyCode: 40007, words: "invalid priority parameter",
            link: "https://ntfy.sh/docs/publish/#message-priority"),
        Row(status: 400, field: "topic", ntfyCode: 40009, words: "invalid request: topic invalid"),
        Row(status: 400, field: "template", ntfyCode: 40043, words: "invalid request: could not parse template",
            link: "https://ntfy.sh/docs/publish/#message-templating"),
        Row(status: 400, ntfyCode: 40000, words: "invalid request"),
        Row(status: 401, ntfyCode: 40101, words: "unauthorized", link: authentication),
        Row(status: 403, ntfyCode: 40301, words: "forbidden", link: authentication),
        Row(status: 404, ntfyCode: 40401, words: "page not found"),
        Row(status: 413, ntfyCode: 41301, words: "attachment too large, or bandwidth limit reached", link: limitations),
        Row(status: 429, nookCode: "too_many_failures", ntfyCode: 42909, words: "limit reached: too many auth failures", link: limitations),
        Row(status: 429, ntfyCode: 42901, words: "limit reached: too many requests", link: limitations),
        Row(status: 500, ntfyCode: 50001, words: "internal server error"),
    ]

    /// The row for `error`: ntfy's code, words and link.
    public static func row(for error: HTTPAPIError) -> Row {
        table.first { $0.status == error.status && ($0.nookCode == nil || $0.nookCode == error.code) && ($0.field == nil || $0.field == error.field) }
            ?? Row(status: error.status, ntfyCode: error.status * 100, words: "nook-http")
    }

    /// `response` in ntfy's shape when it is an error of Nook's; anything else as it is.
    public static func shaped(_ response: HTTPResponse) -> HTTPResponse {
        guard let error = response.apiError else { return response }
        let row = row(for: error)
        var fields: [(String, JSONValue)] = [
            ("code", .number(Double(row.ntfyCode))), ("http", .number(Double(error.status))),
            ("error", .string("\(row.words); \(error.code)\(error.field.map { " (\($0))" } ?? ""): \(error.message)")),
        ]
        if let link = row.link { fields.append(("link", .string(link))) }
        var answer = HTTPResponse.json(.object(fields), status: error.status)
        answer.headers += error.headers
        answer.apiError = error
        return answer
    }
}

