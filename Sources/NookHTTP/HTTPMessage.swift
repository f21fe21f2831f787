import NookProtocol

/// One HTTP/1.1 request as the server read it: the parser has checked the request line, the
/// header block's size and the body's length against their bounds, and decoded a chunked body.
public struct HTTPRequest: Sendable, Equatable {
    /// Upper case as sent (`GET`, `POST`, `PUT`, `DELETE`, …).
    public var method: String
    /// The path, percent-decoded, without the query (`/api/v1/activities/7`).
    public var path: String
    /// The path as sent, still percent-encoded: routes split it at `/` and then decode each
    /// segment, so an encoded slash (`%2F`) stays inside its segment.
    public var rawPath: String
    /// The query's parameters in order, percent-decoded, `+` read as a space.
    public var query: [(name: String, value: String)]
    /// Header fields in order; names as sent (look them up with ``header(_:)``).
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    /// `rawPath`: the path as sent, when it was percent-encoded; nil takes `path` as it is.
    public init(method: String, path: String, query: [(name: String, value: String)] = [],
                headers: [(name: String, value: String)] = [], body: [UInt8] = [], rawPath: String? = nil) {
        (self.method, self.path, self.query, self.headers, self.body) = (method, path, query, headers, body)
        self.rawPath = rawPath ?? path
    }

    /// The first value of a header field, its name compared without case.
    public func header(_ name: String) -> String? {
        headers.first { Self.sameFieldName($0.name, name) }?.value
    }

    /// Field names are tokens (ASCII, RFC 9110 5.1): compared byte by byte, A-Z as a-z, nothing
    /// made. An ntfy publish looks up some thirty names among the request's fields.
    static func sameFieldName(_ one: String, _ other: String) -> Bool {
        var (one, other) = (one, other)
        return one.withUTF8 { one in
            other.withUTF8 { other in
                guard one.count == other.count else { return false }
                for index in one.indices where one[index] != other[index] {
                    guard asciiLowercased(one[index]) == asciiLowercased(other[index]) else { return false }
                }
                return true
            }
        }
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    /// The first value of a query parameter.
    public func parameter(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.path == rhs.path && lhs.body == rhs.body
            && lhs.query.elementsEqual(rhs.query) { $0 == $1 }
            && lhs.headers.elementsEqual(rhs.headers) { $0 == $1 }
    }
}

/// A whole answer. The server adds `Content-Length`, `Date` and `Connection`.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The error this answer says, when it is one: a route that speaks another server's
    /// language (ntfy's) answers it in that server's error body instead (``NtfyErrorBody``).
    public var apiError: HTTPAPIError?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        (self.status, self.headers, self.body) = (status, headers, body)
    }

    /// `application/json` with the value serialized as nookd serializes it.
    public static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: value.serializedBytes + [0x0A])
    }

    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && lhs.headers.elementsEqual(rhs.headers) { $0 == $1 }
    }
}

/// Every error nook-http answers: JSON naming what was wrong, with the matching status (H1).
/// `{"error": {"status": 422, "code": "invalid_field", "field": "priority", "message": "…"}}`
public struct HTTPAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    /// A stable, machine-readable word: `malformed_json`, `invalid_field`, `missing_field`,
    /// `unknown_field`, `not_found`, `method_not_allowed`, `unauthorized`, `forbidden`,
    /// `body_too_large`, `headers_too_large`, `rate_limited`, `nookd_unavailable`, `nookd_error`,
    /// `outcome_unknown`…
    public var code: String
    /// The field (a JSON key, header or query parameter) that was wrong, when one was.
    public var field: String?
    public var message: String
    /// Extra header fields the answer carries (`Retry-After`, `WWW-Authenticate`, `Allow`).
    public var headers: [(name: String, value: String)]

    public init(status: Int, code: String, field: String? = nil, message: String, headers: [(name: String, value: String)] = []) {
        (self.status, self.code, self.field, self.message, self.headers) = (status, code, field, message, headers)
    }

    public var description: String { "\(status) \(code)\(field.map { " (\($0))" } ?? ""): \(message)" }

    public var response: HTTPResponse {
        var fields: [(String, JSONValue)] = [("status", .number(Double(status))), ("code", .string(code))]
        if let field { fields.append(("field", .string(field))) }
        fields.append(("message", .string(message)))
        var answer = HTTPResponse.json(.object([("error", .object(fields))]), status: status)
        answer.headers += headers
        answer.apiError = self
        return answer
    }

    public static func == (lhs: HTTPAPIError, rhs: HTTPAPIError) -> Bool {
        lhs.status == rhs.status && lhs.code == rhs.code && lhs.field == rhs.field && lhs.message == rhs.message
            && lhs.headers.elementsEqual(rhs.headers) { $0 == $1 }
    }
}
