import NookLogging
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// nook-http's one connection to nookd, driven by the server's poll loop: requests are written
/// as they come, many in flight at once (nookd answers a connection's lines in order, each
/// after its journal is durable, and a burst shares one sync: group commit, J1). While nookd is
/// unreachable every call fails at once with `.unavailable`; the link tries again with
/// ``ReconnectBackoff`` and a call waits on nothing that may never come (H4).
public final class NookdLink: NookdCalls {
    public struct Options: Sendable {
        public var socketPath: String
        /// Calls sent and not answered; a call past it is `.unavailable` (503) at once.
        /// Under nookd's own bound per client, with room: past it nookd stops reading, and a
        /// client that falls megabytes behind reading its answers is dropped by nookd, which
        /// here would fail every caller's call at once.
        public var maximumInFlight = 128
        /// A call unanswered this long means nookd is stuck: the connection is dropped and
        /// every call in flight fails (`http.nookd_timeout_s`).
        public var callTimeout: Duration = .seconds(15)
        /// The longest line read from nookd (a page of history is at most 1 MiB).
        public var maximumLineBytes = 4 << 20
        /// Request bytes nookd has not yet read; a call past it is `.unavailable` at once.
        public var maximumOutgoingBytes = 4 << 20
        /// Calls that wait in nookd for something to happen (`frame` with `after`, up to
        /// `NookProtocol.frameWaitSeconds`) go on a connection of their own with this call
        /// timeout: nookd answers a connection's lines in order, so on this one they would
        /// hold every call behind them. nil: no such connection (the waiting link itself).
        public var waitingCallTimeout: Duration? = .seconds(Int64(NookProtocol.frameWaitSeconds) + 15)
        /// Which of the two connections this is, as its log lines name it.
        public var role = "calls"
        /// Where ``callTimeout`` comes from, as the message of a timed-out call names it.
        public var callTimeoutSource = "http.nookd_timeout_s"

        public init(socketPath: String) { self.socketPath = socketPath }
    }

    private struct Pending {
        var id: Double
        var sentAt: Duration
        var done: (Result<JSONValue, NookdCallError>) -> Void
    }

    public let options: Options
    private let logger: Logger
    private var socket: FileDescriptor?
    private var outgoing: [UInt8] = []
    private var sent = 0
    private var incoming: [UInt8] = []
    private var pending: [Pending] = []
    private var pendingStart = 0
    private var nextID = 0.0
    private var backoff = ReconnectBackoff()
    private var nextAttempt: Duration = .zero
    private var lastFailure: String?
    private var everConnected = false
    private var readBuffer = [UInt8](repeating: 0, count: 65536)

    /// The connection for calls that wait (see ``Options/waitingCallTimeout``), polled by the
    /// same loop.
    public let waiting: NookdLink?

    /// The monotonic clock's reading (injected by tests).
    private let clock: @Sendable () -> Duration

    public init(options: Options, logger: Logger, clock: @escaping @Sendable () -> Duration = { MonotonicClock.now }) {
        self.options = options
        self.logger = logger
        self.clock = clock
        if let timeout = options.waitingCallTimeout {
            var waitingOptions = options
            waitingOptions.callTimeout = timeout
            waitingOptions.maximumInFlight = 64
            waitingOptions.waitingCallTimeout = nil
            waitingOptions.role = "the live view's waiting calls"
            waitingOptions.callTimeoutSource = "http.nookd_timeout_s plus the \(NookProtocol.frameWaitSeconds) s a frame may wait"
            waiting = NookdLink(options: waitingOptions, logger: logger, clock: clock)
        } else {
            waiting = nil
        }
    }

    /// This link and the one for calls that wait: what the loop polls.
    public var connections: [NookdLink] { [self] + (waiting.map { [$0] } ?? []) }

    public var isConnected: Bool { socket != nil }
    public var callsInFlight: Int { pending.count - pendingStart }

    /// Whole seconds until the next attempt to reach nookd: the `Retry-After` of a 503.
    public var retryAfterSeconds: Int {
        let wait = nextAttempt - clock()
        return max(1, Int((Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18).rounded(.up)))
    }

    public func call(_ request: Request, done: @escaping (Result<JSONValue, NookdCallError>) -> Void) {
        if let waiting, case .frame(after: .some) = request.operation {
            waiting.call(request, done: done)
            return
        }
        if socket == nil { connectIfDue() }
        guard socket != nil else {
            // Why (the socket's path and errno) is in the log: a caller is not told where it is.
            done(.failure(.unavailable(everConnected ? "nookd is not reachable; nook-http tries again" : "nook-http has not reached nookd yet; it tries again")))
            return
        }
        guard callsInFlight < options.maximumInFlight, outgoing.count - sent <= options.maximumOutgoingBytes else {
            done(.failure(.unavailable("nookd has \(callsInFlight) calls from nook-http waiting for an answer (the most allowed)")))
            return
        }
        nextID += 1
        var numbered = request
        numbered.id = .number(nextID)
        let line = Array(numbered.encoded().utf8)
        guard line.count <= NookProtocol.maximumLineBytes else {
            done(.failure(.refused(ProtocolError(.lineTooLong, "the request is \(line.count) bytes; nookd reads at most \(NookProtocol.maximumLineBytes)").json)))
            return
        }
        outgoing += line
        outgoing.append(0x0A)
        pending.append(Pending(id: nextID, sentAt: clock(), done: done))
        // Written by ``sendQueued()`` once the loop's turn has made its calls: one send and one
        // read in nookd for all of them, not one each.
    }

    /// Writes the calls made since the last write; the loop calls it at the end of each turn
    /// (and poll reports the socket writable while anything is left).
    func sendQueued() {
        if sent < outgoing.count { flush() }
    }

    /// The poll entry for the loop, or nil while not connected.
    var pollEntry: pollfd? {
        guard let socket else { return nil }
        var events = Int16(POLLIN)
        if sent < outgoing.count { events |= Int16(POLLOUT) }
        return pollfd(fd: socket.rawValue, events: events, revents: 0)
    }

    /// Called by the loop with the events poll reported on ``pollEntry``.
    func handle(revents: Int16) {
        if revents & Int16(POLLOUT) != 0 { flush() }
        if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { read() }
    }

    /// Reconnects when due and fails calls nookd has sat on too long; the next time this
    /// needs to run.
    func tick(now: Duration) -> Duration? {
        if socket == nil {
            connectIfDue()
            return socket == nil ? nextAttempt : nil
        }
        if pendingStart < pending.count {
            let oldest = pending[pendingStart].sentAt
            if now - oldest >= options.callTimeout {
                lose("nookd has not answered a call in \(options.callTimeout) (\(options.callTimeoutSource))")
                return nextAttempt
            }
            return oldest + options.callTimeout
        }
        return nil
    }

    private func connectIfDue() {
        let now = clock()
        guard now >= nextAttempt else { return }
        guard let address = UnixSocketAddress(path: options.socketPath) else {
            fail(attempt: "the socket path \(options.socketPath) is longer than a Unix socket allows", now: now)
            return
        }
        do throws(SystemCallError) {
            let socket = try FileDescriptor.unixSocket(SOCK_STREAM, nonBlocking: true, name: "nookd's socket \(options.socketPath)")
            try socket.connect(to: address)
            self.socket = socket
        } catch {
            fail(attempt: "\(error)", now: now)
            return
        }
        // The backoff starts again only once nookd answers (``answer(_:)``): a stopped nookd's
        // socket still takes connections into its backlog, and a call on each would wait out
        // the whole call timeout, again and again at the first interval.
        if lastFailure != nil || !everConnected {
            let link = "at \(options.socketPath), for \(options.role)"
            logger.notice(everConnected ? "nookd is reachable again \(link)" : "connected to nookd \(link)")
        }
        everConnected = true
        lastFailure = nil
    }

    private func fail(attempt reason: String, now: Duration) {
        if reason != lastFailure {
            logger.warning("nookd is not reachable for \(options.role) (\(reason)); those calls answer 503 until it is")
        }
        lastFailure = reason
        nextAttempt = now + .milliseconds(Int64(backoff.next() * 1000))
    }

    private func flush() {
        guard let socket else { return }
        while sent < outgoing.count {
            let sending = outgoing.withUnsafeBytes { bytes in
                Result { () throws(SystemCallError) in
                    try nonBlockingSystemCall("send", subject: socket.name) {
                        send(socket.rawValue, bytes.baseAddress! + sent, outgoing.count - sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    }
                }
            }
            switch sending {
            case .failure(let error):
                lose("\(error)")
                return
            case .success(nil):
                return
            case .success(let count?):
                sent += count
            }
        }
        outgoing.removeAll(keepingCapacity: outgoing.capacity <= 1 << 20)
        sent = 0
    }

    private func read() {
        guard let socket else { return }
        while true {
            let reading = readBuffer.withUnsafeMutableBytes { bytes in
                Result { () throws(SystemCallError) in try socket.readIfReady(into: bytes) }
            }
            switch reading {
            case .failure(let error):
                lose("\(error)")
                return
            case .success(nil):
                return
            case .success(.some(0)):
                lose("nookd closed the connection", quiet: pendingStart == pending.count)
                return
            case .success(let count?):
                incoming += readBuffer[..<count]
                takeLines()
                guard self.socket != nil else { return }
                if incoming.count > options.maximumLineBytes {
                    lose("nookd sent a line longer than \(options.maximumLineBytes) bytes")
                    return
                }
            }
        }
    }

    private func takeLines() {
        var lineStart = 0
        while let newline = incoming[lineStart...].firstIndex(of: 0x0A) {
            let line = incoming[lineStart..<newline]
            lineStart = newline + 1
            answer(line)
            guard socket != nil else { return }
        }
        incoming.removeFirst(lineStart)
    }

    private func answer(_ line: ArraySlice<UInt8>) {
        let value: JSONValue
        do { value = try JSONValue.parse(line) } catch {
            lose("nookd sent a line that is not JSON \(error)")
            return
        }
        // Events are not asked for on this connection; anything with `event` is passed over.
        if value["event"] != nil { return }
        guard pendingStart < pending.count else {
            logger.warning("nookd answered a call nook-http did not make: \(String(decoding: line.prefix(200), as: UTF8.self))")
            return
        }
        // nookd answers in order; a refusal without an id (a line it could not read) is the oldest's.
        let call = pending[pendingStart]
        if case .number(let id)? = value["id"], id != call.id {
            lose("nookd answered call \(id) when call \(call.id) was the oldest waiting")
            return
        }
        backoff.reset()
        pendingStart += 1
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
        } else if pendingStart > 1024 {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
        if case .bool(true)? = value["ok"] {
            call.done(.success(value))
        } else {
            call.done(.failure(.refused(value["error"] ?? .object([("code", .string("bad_json")), ("message", .string("nookd refused the call without saying why"))]))))
        }
    }

    /// Drops the connection: every call in flight fails at once, the next attempt is scheduled.
    /// `quiet`: nookd closed a connection with nothing in flight (its idle timeout), which is
    /// no outage: the next call reconnects at once.
    private func lose(_ reason: String, quiet: Bool = false) {
        guard socket != nil else { return }
        if quiet {
            socket = nil
            outgoing.removeAll()
            sent = 0
            incoming.removeAll()
            logger.debug("nookd closed the idle connection; the next call opens another")
            nextAttempt = .zero
            return
        }
        socket = nil
        outgoing.removeAll()
        sent = 0
        incoming.removeAll()
        let waiting = pending[pendingStart...]
        pending = []
        pendingStart = 0
        logger.warning("lost nookd's link for \(options.role): \(reason); \(waiting.count) call(s) in flight answer 503")
        lastFailure = reason
        nextAttempt = clock() + .milliseconds(Int64(backoff.next() * 1000))
        for call in waiting {
            call.done(.failure(.unavailable("nookd went away before it answered; what was asked may have been done (a retry that names its own id is safe)")))
        }
    }
}
