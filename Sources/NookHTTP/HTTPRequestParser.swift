/// How much a request may hold before the parser refuses it (H4).
public struct HTTPParserLimits: Sendable, Equatable {
    /// Request line and header fields together (431 past it).
    public var headerBytes = 16 * 1024
    /// Header fields in one request (431 past it).
    public var headerCount = 100
    /// A body, whether sent with `Content-Length` or chunked (413 past it).
    public var bodyBytes = 64 * 1024

    public init(headerBytes: Int = 16 * 1024, headerCount: Int = 100, bodyBytes: Int = 64 * 1024) {
        (self.headerBytes, self.headerCount, self.bodyBytes) = (headerBytes, headerCount, bodyBytes)
    }
}

/// What the parser read from a connection's bytes.
public enum HTTPParsedItem: Sendable, Equatable {
    /// A whole request; `keepAlive` is false when the client asked to close (or spoke HTTP/1.0
    /// without `Connection: keep-alive`).
    case request(HTTPRequest, keepAlive: Bool)
    /// A head with `Expect: 100-continue` whose body has not come: the client waits for
    /// `100 Continue` before it sends the body.
    case continueExpected
    /// The bytes are not a request the server takes: answer this and close the connection.
    case failure(HTTPAPIError)
}

/// HTTP/1.1 request framing as a pure state machine (RFC 9112): bytes in with ``append(_:)``,
/// requests out with ``next()``, pipelined requests one after another. No I/O and no clock: the
/// server decides how long a head may take, from ``hasPartialRequest``.
public struct HTTPRequestParser: Sendable {
    public let limits: HTTPParserLimits

    private enum State: Sendable {
        case head
        case fixedBody(HTTPRequest, keepAlive: Bool, remaining: Int)
        case chunkSize(HTTPRequest, keepAlive: Bool)
        case chunkData(HTTPRequest, keepAlive: Bool, remaining: Int)
        case chunkDataEnd(HTTPRequest, keepAlive: Bool)
        case trailers(HTTPRequest, keepAlive: Bool, bytes: Int)
        case failed
    }

    private var state: State = .head
    private var buffer: [UInt8] = []
    private var start = 0
    private var continuePending = false
    /// Where the search for the head's end resumes (the start of its last unfinished line), so
    /// a head sent a byte at a time is not scanned again from its start at each byte.
    private var headScan: (start: Int, lineStart: Int, index: Int)?

    public init(limits: HTTPParserLimits = HTTPParserLimits()) { self.limits = limits }

    /// Bytes of a request not yet whole are held (a head begun, or a body under way).
    public var hasPartialRequest: Bool {
        if case .head = state { return start < buffer.count }
        if case .failed = state { return false }
        return true
    }

    /// Whether the head of the request under way has been read (its body may still come).
    public var isReadingBody: Bool {
        switch state {
        case .head, .failed: false
        default: true
        }
    }

    /// Bytes held and not yet parsed.
    public var bufferedBytes: Int { buffer.count - start }

    /// After a 413 for a declared `Content-Length`: how much of that body had not come yet.
    /// The server reads it and lets it go, so a client still sending hears the 413.
    public private(set) var unreadBodyBytes: Int?
    /// After a 413: the request whose body was too large, without its body, so the answer is
    /// said in the language of the route it was for (ntfy's error body on ntfy's paths).
    public private(set) var refusedRequest: HTTPRequest?

    public mutating func append(_ bytes: some Collection<UInt8>) {
        if case .failed = state { return }
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 8192)
            start = 0
            headScan = nil
        } else if start > 32768 {
            if let scan = headScan, scan.start == start { headScan = (0, scan.lineStart - start, scan.index - start) }
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next request, `100 Continue` cue or failure the bytes so far hold; nil when more bytes
    /// are needed. After a failure it returns nil for ever.
    public mutating func next() -> HTTPParsedItem? {
        while true {
            switch state {
            case .failed:
                return nil
            case .head:
                guard start < buffer.count else { return nil }
                switch readHead() {
                case nil: return nil
                case .some(.failure(let error)): return fail(error)
                case .some(.success(let item)):
                    if let item { return item }
                }
            case .fixedBody(var request, let keepAlive, let remaining):
                let available = buffer.count - start
                if available < remaining {
                    if continuePending { continuePending = false; return .continueExpected }
                    return nil
                }
                request.body = Array(buffer[start..<(start + remaining)])
                start += remaining
                state = .head
                continuePending = false
                return .request(request, keepAlive: keepAlive)
            case .chunkSize(let request, let keepAlive):
                guard let line = takeLine(limit: 1024) else {
                    if buffer.count - start > 1024 { return fail(Self.malformed(field: "Transfer-Encoding", "a chunk's size line is longer than 1024 bytes")) }
                    if continuePending { continuePending = false; return .continueExpected }
                    return nil
                }
                continuePending = false
                // Whitespace only after the digits (before an extension), never between them:
                // a proxy in front must read the same size.
                var sizeText = Array(line.prefix { $0 != UInt8(ascii: ";") })
                while let last = sizeText.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { sizeText.removeLast() }
                let digits = sizeText.drop { $0 == UInt8(ascii: "0") }
                guard !sizeText.isEmpty, sizeText.allSatisfy({ Self.hexValue(CollectionOfOne($0)) != nil }) else {
                    return fail(Self.malformed(field: "Transfer-Encoding", "a chunk's size is not a hexadecimal number"))
                }
                // Past 8 digits the size is more than any body limit: refused as too large, not read.
                guard digits.count <= 8, let size = digits.isEmpty ? 0 : Self.hexValue(Array(digits)) else {
                    return failTooLarge(request, chunk: digits)
                }
                if size == 0 {
                    state = .trailers(request, keepAlive: keepAlive, bytes: 0)
                } else if request.body.count + size > limits.bodyBytes {
                    return failTooLarge(request, chunk: digits)
                } else {
                    state = .chunkData(request, keepAlive: keepAlive, remaining: size)
                }
            case .chunkData(var request, let keepAlive, let remaining):
                let available = min(buffer.count - start, remaining)
                guard available > 0 else { return nil }
                request.body.append(contentsOf: buffer[start..<(start + available)])
                start += available
                state = remaining == available ? .chunkDataEnd(request, keepAlive: keepAlive)
                    : .chunkData(request, keepAlive: keepAlive, remaining: remaining - available)
            case .chunkDataEnd(let request, let keepAlive):
                guard let line = takeLine(limit: 2) else {
                    if buffer.count - start >= 2 { return fail(Self.malformed(field: "Transfer-Encoding", "a chunk's data is longer than its size says")) }
                    return nil
                }
                guard line.isEmpty else { return fail(Self.malformed(field: "Transfer-Encoding", "a chunk's data is longer than its size says")) }
                state = .chunkSize(request, keepAlive: keepAlive)
            case .trailers(let request, let keepAlive, let bytes):
                let before = start
                guard let line = takeLine(limit: limits.headerBytes) else {
                    if bytes + buffer.count - start > limits.headerBytes { return fail(Self.headersTooLarge(limits.headerBytes)) }
                    return nil
                }
                let total = bytes + start - before
                if total > limits.headerBytes { return fail(Self.headersTooLarge(limits.headerBytes)) }
                if line.isEmpty {
                    state = .head
                    return .request(request, keepAlive: keepAlive)
                }
                // Trailer fields are read and dropped: no route needs one.
                state = .trailers(request, keepAlive: keepAlive, bytes: total)
            }
        }
    }

    /// A chunk takes the body past the limit: refused, naming the request it was for.
    private mutating func failTooLarge(_ request: HTTPRequest, chunk digits: some Collection<UInt8>) -> HTTPParsedItem {
        refusedRequest = HTTPRequest(method: request.method, path: request.path, rawPath: request.rawPath)
        return fail(Self.chunkTooLarge(String(decoding: digits, as: UTF8.self), limit: limits.bodyBytes))
    }

    private mutating func fail(_ error: HTTPAPIError) -> HTTPParsedItem {
        state = .failed
        buffer = []
        start = 0
        return .failure(error)
    }

    /// One line ending in LF (a CR before it dropped), if whole within `limit` bytes.
    private mutating func takeLine(limit: Int) -> ArraySlice<UInt8>? {
        let end = min(buffer.count, start + limit + 2)
        guard let newline = buffer[start..<end].firstIndex(of: 0x0A) else { return nil }
        var line = buffer[start..<newline]
        if line.last == 0x0D { line = line.dropLast() }
        start = newline + 1
        return line
    }

    /// The end of the head (the index after its blank line), if it is all here.
    private mutating func headEnd() -> Int? {
        var index = start
        var lineStart = start
        if let scan = headScan, scan.start == start { (lineStart, index) = (scan.lineStart, scan.index) }
        while index < buffer.count {
            if buffer[index] == 0x0A {
                let length = index - lineStart
                if (length == 0 || (length == 1 && buffer[lineStart] == 0x0D)) && lineStart != start {
                    headScan = nil
                    return index + 1
                }
                lineStart = index + 1
            }
            index += 1
        }
        headScan = (start, lineStart, index)
        return nil
    }

    /// Reads a head: nil when not all here, a failure, or the next state (and an item when the
    /// request has no body).
    private mutating func readHead() -> Result<HTTPParsedItem?, HTTPAPIError>? {
        // Leading empty lines between pipelined requests.
        while start < buffer.count, buffer[start] == 0x0D || buffer[start] == 0x0A {
            if buffer[start] == 0x0A || (start + 1 < buffer.count && buffer[start + 1] == 0x0A) {
                start += buffer[start] == 0x0A ? 1 : 2
            } else {
                break
            }
        }
        guard start < buffer.count else { return nil }
        guard let end = headEnd() else {
            if buffer.count - start > limits.headerBytes { return .failure(Self.headersTooLarge(limits.headerBytes)) }
            return nil
        }
        if end - start > limits.headerBytes { return .failure(Self.headersTooLarge(limits.headerBytes)) }
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = start
        for index in start..<end where buffer[index] == 0x0A {
            var line = buffer[lineStart..<index]
            if line.last == 0x0D { line = line.dropLast() }
            lines.append(line)
            lineStart = index + 1
        }
        start = end
        lines.removeLast()  // the blank line
        guard let requestLine = lines.first else { return .failure(Self.malformed(field: nil, "the request has no request line")) }
        let head: HTTPRequestHead
        do throws(HTTPAPIError) {
            head = try HTTPRequestHead(requestLine: requestLine, fieldLines: lines.dropFirst(), limits: limits)
        } catch {
            return .failure(error)
        }
        var request = HTTPRequest(method: head.method, path: head.path, query: head.query, headers: head.headers, rawPath: head.rawPath)
        switch head.body {
        case .none:
            return .success(.request(request, keepAlive: head.keepAlive))
        case .length(let length):
            guard length <= limits.bodyBytes else {
                unreadBodyBytes = max(0, length - (buffer.count - start))
                refusedRequest = request
                return .failure(Self.bodyTooLarge(limits.bodyBytes))
            }
            if length == 0 { return .success(.request(request, keepAlive: head.keepAlive)) }
            request.body.reserveCapacity(length)
            continuePending = head.expectsContinue
            state = .fixedBody(request, keepAlive: head.keepAlive, remaining: length)
        case .chunked:
            continuePending = head.expectsContinue
            state = .chunkSize(request, keepAlive: head.keepAlive)
        }
        return .success(nil)
    }

    private static func hexValue(_ digits: some Collection<UInt8>) -> Int? {
        var value = 0
        for digit in digits {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value * 16 + Int(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value * 16 + Int(digit - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = value * 16 + Int(digit - UInt8(ascii: "A")) + 10
            default: return nil
            }
        }
        return value
    }

    static func malformed(field: String?, _ message: String) -> HTTPAPIError {
        HTTPAPIError(status: 400, code: "malformed_request", field: field, message: message)
    }

    static func headersTooLarge(_ limit: Int) -> HTTPAPIError {
        HTTPAPIError(status: 431, code: "headers_too_large", message: "the request line and header fields are more than \(limit) bytes")
    }

    /// A chunk whose size (hexadecimal, as sent, leading zeros dropped) takes the body past the
    /// limit: shown at most 24 digits, since a size past 8 digits is not read as a number.
    static func chunkTooLarge(_ size: String, limit: Int) -> HTTPAPIError {
        let shown = size.count <= 24 ? size : String(size.prefix(24)) + "…"
        return HTTPAPIError(status: 413, code: "body_too_large",
                            message: "a chunk of size 0x\(shown) makes the request body more than \(limit) bytes (http.max_body_bytes)")
    }

    static func bodyTooLarge(_ limit: Int) -> HTTPAPIError {
        HTTPAPIError(status: 413, code: "body_too_large", message: "the request body is more than \(limit) bytes (http.max_body_bytes)")
    }
}
