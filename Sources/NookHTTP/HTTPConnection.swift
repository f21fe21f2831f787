import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// One client's TCP connection: its parser, the requests it sent whose answers are not yet
/// written (answered in the order asked, however the handlers finish), and the bytes on their
/// way out. Only the server's loop thread touches it.
final class HTTPConnection {
    let id: Int
    let socket: FileDescriptor
    let peer: String
    /// The peer's address without its port.
    let address: String
    let loopback: Bool
    /// TLS on this connection (the LaMetric listener's), or nil for plain HTTP.
    let tls: HTTPTLSSession?
    var parser: HTTPRequestParser
    /// Requests read and not yet wholly written, oldest first.
    var exchanges: [HTTPServerExchange] = []
    var outgoing: [UInt8] = []
    var sent = 0
    /// No more requests are read: the client asked to close, sent something refused, or
    /// closed its side. The connection ends once what is owed is written.
    var closeAfterAnswers = false
    var closed = false
    /// After a refusal that ends the connection (a 413 above all): the client may still be
    /// sending the body. Closing on unread bytes resets the connection, and a client that is
    /// not reading yet (no `Expect: 100-continue`) loses the answer, so what comes is read and
    /// let go, within bounds, and the write side is shut once the answer is out.
    struct Linger {
        /// Bytes still read and let go; at 0 nothing more is read.
        var discardLeft: Int
        /// When the write side was shut (the answer written); the linger ends a bound after it.
        var shutAt: Duration?
        /// When bytes last came: a client that stops sending is not waited for long.
        var lastRead: Duration
    }
    var linger: Linger?
    /// No more requests are read while the client owes this many bytes of answers unread.
    var heldBack = false
    /// When the first byte of the request under way came (slowloris: the head must complete
    /// within a bound from here, however slowly bytes trickle in).
    var requestStarted: Duration?
    /// When the connection last had nothing under way (the keep-alive idle timeout runs from here).
    var idleSince: Duration
    /// When bytes last left for the client, or the backlog began (a reader that stopped).
    var lastWriteProgress: Duration
    weak var server: HTTPServer?

    init(id: Int, socket: FileDescriptor, peer: String, loopback: Bool, tls: HTTPTLSSession? = nil, limits: HTTPParserLimits, now: Duration,
         server: HTTPServer) {
        (self.id, self.socket, self.peer, self.loopback, self.tls) = (id, socket, peer, loopback, tls)
        address = peer.lastIndex(of: ":").map { String(peer[..<$0]) } ?? peer
        parser = HTTPRequestParser(limits: limits)
        idleSince = now
        lastWriteProgress = now
        self.server = server
    }

    var backlog: Int { outgoing.count - sent }

    /// Nothing read and unanswered, nothing half read, nothing to write.
    var isIdle: Bool { exchanges.isEmpty && !parser.hasPartialRequest && backlog == 0 }

    /// Moves the answers that are ready, in order, to the outgoing bytes and writes what the
    /// socket takes now.
    func advance() {
        guard !closed else { return }
        while let first = exchanges.first {
            switch first.state {
            case .waiting:
                break
            case .answered(let bytes):
                if backlog == 0 { lastWriteProgress = MonotonicClock.now }
                outgoing += bytes
                exchanges.removeFirst()
                if !first.keepAlive { closeAfterAnswers = true }
                continue
            case .streaming(let head):
                if let head {
                    if backlog == 0 { lastWriteProgress = MonotonicClock.now }
                    outgoing += head
                    first.state = .streaming(head: nil)
                }
            case .finished(let tail):
                outgoing += tail
                exchanges.removeFirst()
                if !first.keepAlive { closeAfterAnswers = true }
                continue
            }
            break
        }
        if exchanges.isEmpty && !parser.hasPartialRequest { idleSince = MonotonicClock.now }
        flush()
    }

    /// Writes what the socket takes without blocking; a failed write ends the connection.
    /// A stream's waiting part goes out once everything before it is taken, so what waits for
    /// a client that reads slowly is the part being written and the newest, never a queue.
    func flush() {
        guard !closed else { return }
        while true {
            if backlog == 0, let part = exchanges.first?.takePendingPart() {
                outgoing.removeAll(keepingCapacity: true)
                sent = 0
                outgoing += part
                lastWriteProgress = MonotonicClock.now
            }
            guard backlog > 0 else { break }
            let sending = outgoing.withUnsafeBytes { bytes in transmit(bytes.baseAddress! + sent, count: outgoing.count - sent) }
            guard case .success(let ready) = sending else {
                if case .failure(let failure) = sending { server?.close(self, reason: failure.why) }
                return
            }
            guard let count = ready else { break }
            sent += count
            lastWriteProgress = MonotonicClock.now
        }
        if backlog == 0 {
            // An idle connection keeps little: a thousand of them must not hold a megabyte each.
            outgoing.removeAll(keepingCapacity: outgoing.capacity <= 4096)
            sent = 0
            if closeAfterAnswers && exchanges.isEmpty { server?.endAfterAnswers(self) }
        } else if sent > 65536 {
            outgoing.removeFirst(sent)
            sent = 0
        }
    }

    /// What one read from the client gave: bytes, nothing yet, or the end of what it sends.
    enum Received {
        case bytes(Int)
        case wouldBlock
        case ended
        /// The connection failed (a reset, a TLS alert): why, for the log, when it says more than a reset.
        case failed(String?)
    }

    /// Reads what the client sent, through TLS on a TLS connection.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Received {
        if let tls {
            switch tls.read(into: buffer) {
            case .bytes(let count): return .bytes(count)
            case .wouldBlock: return .wouldBlock
            case .ended: return .ended
            case .failed(let why): return .failed("TLS: \(why)")
            }
        }
        switch Result(catching: { () throws(SystemCallError) in try socket.readIfReady(into: buffer) }) {
        case .success(nil): return .wouldBlock
        case .success(0?): return .ended
        case .success(let count?): return .bytes(count)
        case .failure: return .failed(nil)
        }
    }

    /// Writes what the socket takes now: the count, nil when it takes nothing yet, or failure
    /// (with why, for the log, when it says more than a reset).
    private func transmit(_ bytes: UnsafeRawPointer, count: Int) -> Result<Int?, Failure> {
        if let tls {
            switch tls.write(bytes, count: count) {
            case .bytes(let count): return .success(count)
            case .wouldBlock: return .success(nil)
            case .ended: return .failure(Failure(nil))
            case .failed(let why): return .failure(Failure("TLS: \(why)"))
            }
        }
        do {
            return .success(try System.sendIfReady(socket.rawValue, bytes, count, flags: Int32(MSG_NOSIGNAL | MSG_DONTWAIT), subject: socket.name))
        } catch {
            return .failure(Failure(nil))
        }
    }

    struct Failure: Error {
        let why: String?
        init(_ why: String?) { self.why = why }
    }

    /// The poll events the transport needs besides what the server asks for: a TLS read that
    /// waits for the socket to take bytes, a TLS write that waits for bytes to come.
    func pollEvents(reading: Bool) -> Int16 {
        var events: Int16 = 0
        if reading || tls?.writeWaitsForReadable == true { events |= Int16(POLLIN) }
        if backlog > 0 || tls?.readWaitsForWritable == true { events |= Int16(POLLOUT) }
        return events
    }

    /// What the server acts on for `revents`: a TLS read waiting for the socket to be writable
    /// reads on POLLOUT, a write waiting for bytes writes on POLLIN, and bytes OpenSSL already
    /// holds (which no poll announces) are read when the server reads from this connection.
    func readiness(_ revents: Int16, reading: Bool) -> Int16 {
        guard let tls else { return revents }
        var ready = revents
        if revents & Int16(POLLOUT) != 0, tls.readWaitsForWritable { ready |= Int16(POLLIN) }
        if revents & Int16(POLLIN) != 0, tls.writeWaitsForReadable { ready |= Int16(POLLOUT) }
        if reading, tls.holdsBytes { ready |= Int16(POLLIN) }
        return ready
    }

    /// TLS bytes are waiting in OpenSSL for a read the server wants: the poll must not wait.
    func holdsUnreadBytes(reading: Bool) -> Bool { reading && tls?.holdsBytes == true }
}
