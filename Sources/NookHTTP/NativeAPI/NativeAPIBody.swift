import NookActivities
import NookProtocol

/// Reading the JSON a request carries, and the query parameters the native API takes (H1).
enum NativeAPIBody {
    /// The body as a JSON object's members; an error naming what was wrong otherwise. An empty
    /// body reads as `{}` when `emptyIsObject`.
    static func object(_ request: HTTPRequest, emptyIsObject: Bool = false) throws(HTTPAPIError) -> [(String, JSONValue)] {
        if emptyIsObject && request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return [] }
        guard !request.body.isEmpty else {
            throw HTTPAPIError(status: 400, code: "malformed_json", message: "the body must be a JSON object; it is empty")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(request.body)
        } catch {
            throw HTTPAPIError(status: 400, code: "malformed_json", message: "the body is not valid JSON: \(error)")
        }
        guard case .object(let members) = value else {
            throw HTTPAPIError(status: 400, code: "wrong_type", message: "the body must be a JSON object, got \(value.typeName)")
        }
        return members
    }

    /// Takes `name` out of `members`: absent (or null), or a string.
    static func takeString(_ name: String, from members: inout [(String, JSONValue)]) throws(HTTPAPIError) -> String? {
        guard let index = members.firstIndex(where: { $0.0 == name }) else { return nil }
        let value = members.remove(at: index).1
        switch value {
        case .null: return nil
        case .string(let text): return text
        default: throw HTTPAPIError(status: 400, code: "wrong_type", field: name, message: "must be a string, got \(value.typeName)")
        }
    }

    /// Takes `name` out of `members`: absent (or null), or true or false.
    static func takeBool(_ name: String, from members: inout [(String, JSONValue)]) throws(HTTPAPIError) -> Bool? {
        guard let index = members.firstIndex(where: { $0.0 == name }) else { return nil }
        let value = members.remove(at: index).1
        switch value {
        case .null: return nil
        case .bool(let flag): return flag
        default: throw HTTPAPIError(status: 400, code: "wrong_type", field: name, message: "must be true or false, got \(value.typeName)")
        }
    }

    /// A query parameter that is a whole number in `range`, or `fallback` when absent.
    static func count(_ name: String, in request: HTTPRequest, range: ClosedRange<Int>, fallback: Int) throws(HTTPAPIError) -> Int {
        guard let text = request.parameter(name) else { return fallback }
        guard let number = Int(text), range.contains(number) else {
            throw HTTPAPIError(status: 422, code: "invalid_field", field: name,
                               message: "must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text.prefix(64))'")
        }
        return number
    }

    /// A query parameter that is `true` or `false` (or `1`/`0`), or nil when absent.
    static func flag(_ name: String, in request: HTTPRequest) throws(HTTPAPIError) -> Bool? {
        guard let text = request.parameter(name) else { return nil }
        switch text {
        case "true", "1": return true
        case "false", "0": return false
        default: throw HTTPAPIError(status: 422, code: "invalid_field", field: name, message: "must be true or false, got '\(text.prefix(64))'")
        }
    }

    /// A query parameter that goes on to nookd as a string: absent, or non-empty text. nookd
    /// refuses NUL in a request line as malformed JSON, which would read as nook-http's fault.
    static func text(_ name: String, in request: HTTPRequest) throws(HTTPAPIError) -> String? {
        guard let text = request.parameter(name) else { return nil }
        guard !text.isEmpty else { throw HTTPAPIError(status: 422, code: "invalid_field", field: name, message: "must not be empty") }
        guard !text.utf8.contains(0) else { throw HTTPAPIError(status: 422, code: "invalid_field", field: name, message: "must not contain NUL") }
        return text
    }

    /// An optional `module` query parameter: absent, or a non-empty name.
    static func module(in request: HTTPRequest) throws(HTTPAPIError) -> String? {
        try text("module", in: request)
    }

    /// The `{id}` of a path: an activity id, or 404 naming it.
    static func activityID(_ parameters: [String: String]) throws(HTTPAPIError) -> NookActivityID {
        let text = parameters["id"] ?? ""
        guard let id = NookActivityID(text) else {
            throw HTTPAPIError(status: 404, code: "not_found", field: "id",
                               message: "no activity has id '\(text.prefix(64))': an id is a UUID (8-4-4-4-12 hexadecimal digits)")
        }
        return id
    }
}
