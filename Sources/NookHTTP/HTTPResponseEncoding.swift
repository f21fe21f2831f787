#if canImport(Glibc)
import Glibc
#endif

/// An answer's bytes on the wire: status line, the handler's fields, then `Content-Length`,
/// `Date` and `Connection` (which the server owns), then the body (none for HEAD).
enum HTTPResponseEncoding {
    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }

    /// The server's own fields, which a handler's copies of are dropped.
    static let ownedFields: Set<String> = ["content-length", "date", "connection", "transfer-encoding"]

    static func head(status: Int, headers: [(name: String, value: String)], contentLength: Int?, keepAlive: Bool, into bytes: inout [UInt8]) {
        bytes += "HTTP/1.1 \(status) \(reason(status))\r\n".utf8
        for field in headers where !ownedFields.contains(field.name.lowercased()) {
            // A value a handler built from input must not end the head or add a field.
            let value = field.value.utf8.contains { $0 == 0x0D || $0 == 0x0A } ? String(decoding: field.value.utf8.map { $0 == 0x0D || $0 == 0x0A ? 0x20 : $0 }, as: UTF8.self) : field.value
            bytes += "\(field.name): \(value)\r\n".utf8
        }
        if let contentLength {
            bytes += "Content-Length: \(contentLength)\r\n".utf8
        } else {
            bytes += "Transfer-Encoding: chunked\r\n".utf8
        }
        bytes += "Date: \(HTTPDate.now)\r\n".utf8
        bytes += keepAlive ? "Connection: keep-alive\r\n\r\n".utf8 : "Connection: close\r\n\r\n".utf8
    }

    static func encode(_ response: HTTPResponse, headOnly: Bool, keepAlive: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + (headOnly ? 0 : response.body.count))
        // 1xx, 204 and 304 carry no body and no length (RFC 9110 8.6).
        let bodiless = response.status < 200 || response.status == 204 || response.status == 304
        head(status: response.status, headers: response.headers, contentLength: bodiless ? 0 : response.body.count, keepAlive: keepAlive, into: &bytes)
        if bodiless {
            // Content-Length: 0 was written; 204 and 304 should carry none, so drop that line.
            if let range = bytes.firstRange(of: Array("Content-Length: 0\r\n".utf8)) { bytes.removeSubrange(range) }
        } else if !headOnly {
            bytes += response.body
        }
        return bytes
    }

    static func chunk(_ body: [UInt8]) -> [UInt8] {
        guard !body.isEmpty else { return [] }
        var bytes = Array(String(body.count, radix: 16).utf8) + [0x0D, 0x0A]
        bytes.reserveCapacity(bytes.count + body.count + 2)
        bytes += body
        bytes += [0x0D, 0x0A]
        return bytes
    }

    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
}

/// The `Date` field's IMF-fixdate, made at most once a second.
enum HTTPDate {
    nonisolated(unsafe) private static var cached: (second: Int, text: String) = (-1, "")

    /// Only the loop thread calls this.
    static var now: String {
        var seconds = time(nil)
        if seconds == cached.second { return cached.text }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let text = "\(days[Int(parts.tm_wday) % 7]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon) % 12]) \(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
        cached = (seconds, text)
        return text
    }
}
