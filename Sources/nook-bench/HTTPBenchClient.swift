#if canImport(Glibc)
import Glibc
#endif
import NookSystem

/// One keep-alive HTTP/1.1 connection over loopback TCP, as a client on the board keeps one:
/// a request written whole, its answer read to the end of its `Content-Length` body. Small on
/// purpose, so a per-call figure measures the server, not a client library.
final class HTTPBenchClient {
    private let socket: FileDescriptor
    private var buffer: [UInt8] = []
    private var readChunk = [UInt8](repeating: 0, count: 65_536)

    init(port: Int) throws {
        socket = FileDescriptor(owning: try System.socket(AF_INET, SOCK_STREAM, flags: SOCK_CLOEXEC.rawValue),
                                name: "HTTP client")
        let fd = socket.rawValue
        // Requests are single writes; without this each would wait for the previous answer's ACK.
        try System.setSocketOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1, name: "TCP_NODELAY")
        _ = try withIPv4Address("127.0.0.1", port: port) { to, length in try System.connect(fd, to, length) }
    }

    /// The bytes of a `POST` of a JSON body to `path`.
    static func post(_ path: String, json body: String) -> [UInt8] {
        let bytes = Array(body.utf8)
        return Array("POST \(path) HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: \(bytes.count)\r\n\r\n".utf8) + bytes
    }

    func send(_ request: [UInt8]) throws {
        try request.withUnsafeBytes { bytes in try Result { () throws(SystemCallError) in try socket.writeAll(bytes) }.get() }
    }

    /// The next answer's status and body; an error if none is whole within `seconds` or the
    /// server closed the connection.
    func response(seconds: Int32 = 20) throws -> (status: Int, body: [UInt8]) {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            if let answer = try takeResponse() { return answer }
            try readMore(before: deadline, waitingFor: "a whole HTTP answer within \(seconds) s")
        }
    }

    /// Appends what the server sends next to ``buffer``; an error naming `what` if nothing comes
    /// before `deadline`, or if the server closed the connection.
    private func readMore(before deadline: ContinuousClock.Instant, waitingFor what: String) throws {
        let left = Int32(max(0, ((deadline - .now) / .milliseconds(1)).rounded(.up)))
        var entry = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
        guard try System.poll(&entry, timeoutMilliseconds: left) > 0 else { throw BenchError("no \(what)") }
        let count = try readChunk.withUnsafeMutableBytes { bytes in try Result { () throws(SystemCallError) in try socket.read(into: bytes) }.get() }
        guard count > 0 else { throw BenchError("the server closed the connection") }
        buffer += readChunk[..<count]
    }

    /// One whole answer from the bytes read, if they hold one.
    private func takeResponse() throws -> (status: Int, body: [UInt8])? {
        let end: [UInt8] = [13, 10, 13, 10]
        guard buffer.count >= 4, let headEnd = (0...(buffer.count - 4)).first(where: { buffer[$0..<($0 + 4)].elementsEqual(end) }) else { return nil }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1.1 "), let status = Int(statusLine.dropFirst(9).prefix(3)) else {
            throw BenchError("not an HTTP/1.1 answer: \(head.prefix(80))")
        }
        var length = 0
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].lowercased()
            if name == "transfer-encoding" { throw BenchError("a chunked answer (\(statusLine)): this client reads Content-Length bodies only") }
            if name == "content-length", let value = Int(parts[1].trimmed()) { length = value }
        }
        let bodyStart = headEnd + 4
        guard buffer.count >= bodyStart + length else { return nil }
        let body = Array(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeFirst(bodyStart + length)
        return (status, body)
    }
}

extension HTTPBenchClient {
    /// Reads a streamed answer (ntfy's `/TOPIC/json`) until a line holding `text` has come,
    /// within `seconds`; what came before it is dropped.
    func waitForLine(containing text: String, seconds: Int32 = 10) throws {
        let wanted = Array(text.utf8)
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            if let end = buffer.firstIndex(of: 0x0A) {
                let line = buffer[..<end]
                buffer.removeSubrange(...end)
                if line.count >= wanted.count, (0...(line.count - wanted.count)).contains(where: { line.dropFirst($0).starts(with: wanted) }) { return }
                continue
            }
            try readMore(before: deadline, waitingFor: "line with \(text) within \(seconds) s")
        }
    }
}
