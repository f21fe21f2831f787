import Logging
import NookSystem

/// The server's ``HTTPExchange``: one request and the one answer it gets, now or later, whole
/// or as a chunked stream. Its answer waits in its connection's order (pipelining).
final class HTTPServerExchange: HTTPExchange {
    enum State {
        case waiting
        case answered([UInt8])
        /// The head not yet moved to the connection's bytes, or nil once it was.
        case streaming(head: [UInt8]?)
        case finished(tail: [UInt8])
    }

    let request: HTTPRequest
    var caller: HTTPCaller
    let keepAlive: Bool
    let headOnly: Bool
    var state: State = .waiting
    weak var connection: HTTPConnection?
    private let logger: Logger
    /// Bytes a stream client may leave unread before parts it is sent are dropped.
    let streamBacklogBytes: Int
    /// The digest of the token the request presented, and the scope its route needs: what a
    /// token file read again is checked against (nil: no token, or no scope needed).
    var token: [UInt8]?
    var scope: HTTPScope?
    /// How the handler ends the exchange it holds open, when the server ends it early.
    private var endEarly: ((HTTPEarlyEnd) -> Void)?

    init(request: HTTPRequest, keepAlive: Bool, connection: HTTPConnection, streamBacklogBytes: Int, logger: Logger) {
        self.request = request
        self.keepAlive = keepAlive
        headOnly = request.method == "HEAD"
        self.connection = connection
        self.streamBacklogBytes = streamBacklogBytes
        self.logger = logger
        caller = HTTPCaller(name: "", scopes: [])
    }

    /// A handler holds this exchange open and has said how to end it.
    var canEndEarly: Bool { endEarly != nil && isOpen }

    func whenEndedEarly(_ end: @escaping (HTTPEarlyEnd) -> Void) { endEarly = end }

    /// Ends the exchange now through its handler (which answers or finishes the stream).
    func end(_ why: HTTPEarlyEnd) {
        guard isOpen, let end = endEarly else { return }
        endEarly = nil
        end(why)
    }

    var isOpen: Bool {
        guard let connection, !connection.closed else { return false }
        switch state {
        case .waiting, .streaming: return true
        case .answered, .finished: return false
        }
    }

    func respond(_ response: HTTPResponse) {
        guard case .waiting = state else {
            logger.error("a handler answered \(request.method) \(HTTPLogText.escaped(request.path)) twice; the second answer (\(response.status)) is dropped")
            return
        }
        state = .answered(HTTPResponseEncoding.encode(response, headOnly: headOnly, keepAlive: keepAlive))
        logger.debug("\(connection?.peer ?? "gone"): \(request.method) \(HTTPLogText.escaped(request.path)) -> \(response.status)")
        connection?.advance()
    }

    func startStream(status: Int, headers: [(name: String, value: String)]) -> any HTTPStreamWriter {
        guard case .waiting = state else {
            logger.error("a handler started a stream for \(request.method) \(HTTPLogText.escaped(request.path)) after answering it")
            return HTTPClosedStream()
        }
        var head: [UInt8] = []
        // A stream is never cached; the route may have said so already (one field, once).
        let saysCache = headers.contains { $0.name.lowercased() == "cache-control" }
        HTTPResponseEncoding.head(status: status, headers: saysCache ? headers : headers + [("Cache-Control", "no-store")], contentLength: headOnly ? 0 : nil,
                                  keepAlive: keepAlive, into: &head)
        state = .streaming(head: head)
        logger.debug("\(connection?.peer ?? "gone"): \(request.method) \(HTTPLogText.escaped(request.path)) -> \(status), streaming")
        if headOnly {
            state = .finished(tail: head)
            connection?.advance()
            return HTTPClosedStream()
        }
        connection?.advance()
        return HTTPChunkedStream(exchange: self)
    }

    /// Queues a chunk if this stream is the connection's answer being written and the client
    /// keeps up; false when it is dropped.
    func sendChunk(_ bytes: [UInt8]) -> Bool {
        guard case .streaming(nil) = state, let connection, !connection.closed,
              connection.exchanges.first === self, connection.backlog <= streamBacklogBytes else { return false }
        guard !bytes.isEmpty else { return true }
        if connection.backlog == 0 { connection.lastWriteProgress = MonotonicClock.now }
        connection.outgoing += HTTPResponseEncoding.chunk(bytes)
        connection.flush()
        return true
    }

    func finishStream() {
        switch state {
        case .streaming(let head):
            state = .finished(tail: (head ?? []) + HTTPResponseEncoding.lastChunk)
            connection?.advance()
        default:
            return
        }
    }
}

final class HTTPChunkedStream: HTTPStreamWriter {
    private weak var exchange: HTTPServerExchange?
    init(exchange: HTTPServerExchange) { self.exchange = exchange }

    @discardableResult func send(_ bytes: [UInt8]) -> Bool { exchange?.sendChunk(bytes) ?? false }
    func finish() { exchange?.finishStream() }
}

/// A stream whose client is gone (or that was never started): sends nothing.
final class HTTPClosedStream: HTTPStreamWriter {
    @discardableResult func send(_ bytes: [UInt8]) -> Bool { false }
    func finish() {}
}
