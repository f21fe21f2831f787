/// A request's head checked and decoded: method, target, version, fields and how its body is
/// framed. Every refusal names what was wrong.
struct HTTPRequestHead {
    enum Body { case none, length(Int), chunked }

    var method: String
    var path: String
    /// The path as sent, still percent-encoded (routes split it before decoding).
    var rawPath: String
    var query: [(name: String, value: String)]
    var headers: [(name: String, value: String)]
    var keepAlive: Bool
    var body: Body
    var expectsContinue: Bool

    init(requestLine: ArraySlice<UInt8>, fieldLines: ArraySlice<ArraySlice<UInt8>>, limits: HTTPParserLimits) throws(HTTPAPIError) {
        let parts = requestLine.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw HTTPRequestParser.malformed(field: nil, "the request line is not 'METHOD TARGET HTTP/1.1'")
        }
        guard parts[0].allSatisfy(Self.isTokenByte) else {
            throw HTTPRequestParser.malformed(field: nil, "the method is not a token")
        }
        method = String(decoding: parts[0], as: UTF8.self)
        let version = parts[2]
        let minor: Int
        if version.elementsEqual("HTTP/1.1".utf8) {
            minor = 1
        } else if version.elementsEqual("HTTP/1.0".utf8) {
            minor = 0
        } else if version.starts(with: "HTTP/".utf8) {
            throw HTTPAPIError(status: 505, code: "version_not_supported", message: "only HTTP/1.0 and HTTP/1.1 are served")
        } else {
            throw HTTPRequestParser.malformed(field: nil, "the request line does not end in an HTTP version")
        }
        let target = parts[1]
        guard target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw HTTPRequestParser.malformed(field: nil, "the request target holds a control character, a space or a byte over 0x7E (send them percent-encoded)")
        }
        var rawPath = target
        var rawQuery: ArraySlice<UInt8> = []
        if let question = target.firstIndex(of: UInt8(ascii: "?")) {
            rawPath = target[..<question]
            rawQuery = target[(question + 1)...]
        }
        if let hash = rawQuery.firstIndex(of: UInt8(ascii: "#")) { rawQuery = rawQuery[..<hash] }
        // An absolute form (a proxy may send one): only its path matters.
        if rawPath.starts(with: "http://".utf8) || rawPath.starts(with: "https://".utf8) {
            let afterScheme = rawPath.dropFirst(rawPath.starts(with: "https".utf8) ? 8 : 7)
            rawPath = afterScheme.firstIndex(of: UInt8(ascii: "/")).map { afterScheme[$0...] } ?? ArraySlice([UInt8(ascii: "/")])
        }
        guard rawPath.first == UInt8(ascii: "/") || (method == "OPTIONS" && rawPath.elementsEqual("*".utf8)) else {
            throw HTTPRequestParser.malformed(field: nil, "the request target must start with '/'")
        }
        path = try Self.decodePercent(rawPath, plusIsSpace: false, what: "the path")
        self.rawPath = String(decoding: rawPath, as: UTF8.self)
        var query: [(name: String, value: String)] = []
        for pair in rawQuery.split(separator: UInt8(ascii: "&")) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let rawName = equals.map { pair[..<$0] } ?? pair
            let rawValue = equals.map { pair[($0 + 1)...] } ?? []
            let name = try Self.decodePercent(rawName, plusIsSpace: true, what: "a query parameter's name")
            let value = try Self.decodePercent(rawValue, plusIsSpace: true, what: "query parameter '\(name)'", field: name)
            query.append((name, value))
        }
        self.query = query

        guard fieldLines.count <= limits.headerCount else {
            throw HTTPAPIError(status: 431, code: "headers_too_large", message: "the request has \(fieldLines.count) header fields; at most \(limits.headerCount) are read")
        }
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(fieldLines.count)
        for line in fieldLines {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                if line.first == UInt8(ascii: " ") || line.first == UInt8(ascii: "\t") {
                    throw HTTPRequestParser.malformed(field: nil, "a header field is folded over lines (obsolete line folding is not accepted)")
                }
                throw HTTPRequestParser.malformed(field: nil, "a header line has no ':'")
            }
            let rawName = line[..<colon]
            guard !rawName.isEmpty, rawName.allSatisfy(Self.isTokenByte) else {
                throw HTTPRequestParser.malformed(field: nil, "a header field's name is empty or not a token (no spaces before the ':')")
            }
            let name = String(decoding: rawName, as: UTF8.self)
            var rawValue = line[(colon + 1)...]
            while let first = rawValue.first, first == 0x20 || first == 0x09 { rawValue = rawValue.dropFirst() }
            while let last = rawValue.last, last == 0x20 || last == 0x09 { rawValue = rawValue.dropLast() }
            guard !rawValue.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
                throw HTTPRequestParser.malformed(field: name, "header \(name) holds a control character")
            }
            guard let value = String(validating: rawValue, as: UTF8.self) else {
                throw HTTPRequestParser.malformed(field: name, "header \(name) is not valid UTF-8")
            }
            headers.append((name, value))
        }
        self.headers = headers

        func values(_ wanted: String) -> [String] {
            headers.filter { $0.name.lowercased() == wanted }.map(\.value)
        }
        // RFC 9112 §3.2: two Host lines (or one naming two authorities) leave the target in
        // doubt, and a proxy in front may have read the other one.
        let hosts = values("host")
        guard hosts.count <= 1 else {
            throw HTTPRequestParser.malformed(field: "Host", "the request has \(hosts.count) Host header fields; it may have one")
        }
        if let host = hosts.first, host.contains(",") {
            throw HTTPRequestParser.malformed(field: "Host", "Host names more than one authority: '\(HTTPLogText.escaped(host.prefix(80)))'")
        }
        let connection = values("connection").flatMap { $0.lowercased().split(separator: ",").map { $0.trimmingSpaces } }
        keepAlive = minor == 1 ? !connection.contains("close") : connection.contains("keep-alive")
        let transferCodings = values("transfer-encoding").flatMap { $0.lowercased().split(separator: ",").map { $0.trimmingSpaces } }.filter { !$0.isEmpty }
        let lengths = values("content-length").flatMap { $0.split(separator: ",").map { $0.trimmingSpaces } }
        if !transferCodings.isEmpty {
            guard lengths.isEmpty else {
                throw HTTPRequestParser.malformed(field: "Content-Length", "a request may not have both Content-Length and Transfer-Encoding")
            }
            guard minor == 1 else {
                throw HTTPRequestParser.malformed(field: "Transfer-Encoding", "Transfer-Encoding is not allowed in HTTP/1.0")
            }
            guard transferCodings == ["chunked"] else {
                throw HTTPAPIError(status: 501, code: "not_implemented", field: "Transfer-Encoding",
                                   message: "only the chunked transfer coding is accepted, got '\(transferCodings.joined(separator: ", "))'")
            }
            body = .chunked
        } else if let first = lengths.first {
            guard lengths.allSatisfy({ $0 == first }) else {
                throw HTTPRequestParser.malformed(field: "Content-Length", "Content-Length is given more than once with different values")
            }
            guard !first.isEmpty, first.count <= 18, first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let length = Int(first) else {
                throw HTTPRequestParser.malformed(field: "Content-Length", "Content-Length must be a whole number of bytes, got '\(first)'")
            }
            body = length == 0 ? .none : .length(length)
        } else {
            body = .none
        }
        let expectations = values("expect").map { $0.lowercased() }
        if let expectation = expectations.first(where: { $0 != "100-continue" }) {
            throw HTTPAPIError(status: 417, code: "expectation_failed", field: "Expect", message: "only 'Expect: 100-continue' is understood, got '\(expectation)'")
        }
        expectsContinue = minor == 1 && !expectations.isEmpty
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Percent-decoding (and `+` as a space in a query), then UTF-8: a bad escape or bytes
    /// that are not UTF-8 are a 400 naming `what`.
    static func decodePercent(_ raw: ArraySlice<UInt8>, plusIsSpace: Bool, what: String, field: String? = nil) throws(HTTPAPIError) -> String {
        guard raw.contains(UInt8(ascii: "%")) || (plusIsSpace && raw.contains(UInt8(ascii: "+"))) else {
            // Only bytes 0x21...0x7E reach here: ASCII, so valid UTF-8.
            return String(decoding: raw, as: UTF8.self)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < raw.endIndex, let high = hexDigit(raw[index + 1]), let low = hexDigit(raw[index + 2]) else {
                    throw HTTPRequestParser.malformed(field: field, "\(what) has a '%' not followed by two hexadecimal digits")
                }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? 0x20 : byte)
                index += 1
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw HTTPRequestParser.malformed(field: field, "\(what) is not valid UTF-8 once percent-decoded")
        }
        return text
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension Substring {
    var trimmingSpaces: String {
        var text = self[...]
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
