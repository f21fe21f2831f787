import NookLogging
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

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
    var client: HTTPClient
    /// The digest of the token the request presented, and the scope its route needs: what a
    /// token file read again is checked against (nil: no token, or no scope needed).
    var token: [UInt8]?
    var scope: HTTPScope?
    /// Whose language the route answering speaks: an error on an ntfy route is said in ntfy's body.
    var shape: HTTPRouteShape = .native
    /// How the handler ends the exchange it holds open, when the server ends it early.
    private var endEarly: ((HTTPEarlyEnd) -> Void)?
    /// A stream's newest part not yet begun: one at most, each part replacing the one before.
    private var pendingPart: [UInt8]?

    /// The kernel doubles it: about two frames of a card (`screen_png_kib` in benchmarks.md).
    static let streamSendBuffer: Int32 = 32 * 1024

    init(request: HTTPRequest, keepAlive: Bool, connection: HTTPConnection, logger: Logger) {
        self.request = request
        self.keepAlive = keepAlive
        headOnly = request.method == "HEAD"
        self.connection = connection
        self.logger = logger
        caller = HTTPCaller(name: "", scopes: [])
        client = HTTPClient(address: connection.address, token: nil)
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

    func respond(_ answer: HTTPResponse) {
        let response = shape == .ntfy ? NtfyErrorBody.shaped(answer) : shape == .lametric ? LaMetricErrorBody.shaped(answer) : answer
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
        if let connection, !headOnly {
            // What the kernel holds for a client is old parts it would read before the newest:
            // a stream's buffer there is kept to about two frames of a card.
            try? System.setSocketOption(connection.socket.rawValue, SOL_SOCKET, SO_SNDBUF, Self.streamSendBuffer, name: "SO_SNDBUF",
                                        subject: connection.socket.name)
        }
        logger.debug("\(connection?.peer ?? "gone"): \(request.method) \(HTTPLogText.escaped(request.path)) -> \(status), streaming")
        if headOnly {
            state = .finished(tail: head)
            connection?.advance()
            return HTTPClosedStream()
        }
        connection?.advance()
        return HTTPChunkedStream(exchange: self)
    }

    /// Holds a part in place of the one that waited before it; the connection writes it once
    /// the client has taken everything before it. False when the client has gone.
    func sendChunk(_ bytes: [UInt8]) -> Bool {
        guard case .streaming = state, let connection, !connection.closed else { return false }
        guard !bytes.isEmpty else { return true }
        pendingPart = bytes
        connection.flush()
        return true
    }

    /// The part waiting, chunked, once this stream's head is written; nil when none waits.
    func takePendingPart() -> [UInt8]? {
        guard case .streaming(nil) = state, let part = pendingPart else { return nil }
        pendingPart = nil
        return HTTPResponseEncoding.chunk(part)
    }

    func finishStream() {
        pendingPart = nil
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
