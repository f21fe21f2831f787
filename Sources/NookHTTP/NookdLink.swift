import NookActivities
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
///
/// What is in flight is bounded twice: by calls and by the bytes their answers may take (a
/// history page is hundreds of kilobytes). A call past either waits here, in order, unsent,
/// until answers make room; past ``Options/maximumWaiting`` waiting, or after waiting the call
/// timeout, it fails `.unavailable` (503): nothing was asked of nookd. When the link is lost,
/// a call nookd may have read (its first byte was written) and that changes something fails
/// `.outcomeUnknown` (504): it may have been done.
public final class NookdLink: NookdCalls {
    public struct Options: Sendable {
        public var socketPath: String
        /// Calls sent and not answered; a call past it waits (see ``maximumWaiting``).
        public var maximumInFlight = 128
        /// The answers' bytes in flight, as ``expectedAnswerBytes(_:)`` reckons them; a call
        /// past it waits, unless nothing is in flight. nookd holds a client's next request
        /// back while half a megabyte of answers waits for it; this keeps nook-http's own
        /// calls from queueing behind more than a few pages of another caller's.
        public var maximumAnswerBytes = 4 << 20
        /// Calls waiting for room, unsent; one more is `.unavailable` (503) at once.
        public var maximumWaiting = 256
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
        /// Where its line starts in what this connection has written (``queuedBytes``).
        var start: Int
        /// It changes something: lost after nookd may have read it, its outcome is unknown.
        var changes: Bool
        var answerBytes: Int
        var done: (Result<JSONValue, NookdCallError>) -> Void
    }

    /// A call waiting for room in flight, not yet written.
    private struct Waiting {
        var request: Request
        var since: Duration
        var done: (Result<JSONValue, NookdCallError>) -> Void
    }

    public let options: Options
    private let logger: Logger
    private var socket: FileDescriptor?
    private var outgoing: [UInt8] = []
    private var sent = 0
    private var incoming: [UInt8] = []
    /// The start of `incoming` already searched for a newline and holding none: a line of a
    /// megabyte arrives in many reads, and each read searches only what it added.
    private var incomingSearched = 0
    private var pending: [Pending] = []
    private var pendingStart = 0
    /// Bytes of calls put in ``outgoing`` and bytes written, since the connection opened.
    private var queuedBytes = 0
    private var writtenBytes = 0
    /// ``Pending/answerBytes`` of the calls in flight.
    public private(set) var answerBytesInFlight = 0
    private var waitingCalls: [Waiting] = []
    private var waitingStart = 0
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
    /// Calls waiting for room in flight, unsent.
    public var callsWaiting: Int { waitingCalls.count - waitingStart }

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
        // In order: a call never overtakes one that waits.
        guard callsWaiting == 0, hasRoom(for: request) else {
            guard callsWaiting < options.maximumWaiting else {
                done(.failure(.unavailable("nook-http already has \(callsInFlight) calls in flight to nookd and \(callsWaiting) waiting for room (the most allowed); nothing was sent")))
                return
            }
            waitingCalls.append(Waiting(request: request, since: clock(), done: done))
            return
        }
        write(request, done: done)
    }

    /// Whether a call may be written now: under the bounds on calls, answers' bytes and request
    /// bytes in flight, or alone (a call larger than the bound still goes, by itself).
    private func hasRoom(for request: Request) -> Bool {
        guard callsInFlight > 0 else { return true }
        return callsInFlight < options.maximumInFlight && outgoing.count - sent <= options.maximumOutgoingBytes
            && answerBytesInFlight + Self.expectedAnswerBytes(request.operation) <= options.maximumAnswerBytes
    }

    /// Roughly the most an answer takes: a history page by its limit (a kilobyte an entry, a
    /// page at most), a list page, a frame's PNG as a card's usually is, every app; a few kilobytes for the
    /// rest. Only the pace of the calls depends on it: nookd holds nook-http's requests back
    /// while answers wait unread, whatever their size.
    static func expectedAnswerBytes(_ operation: NookOperation) -> Int {
        switch operation {
        case .history(let query):
            min(NookProtocol.answerPageBytes, max(1, min(query.limit ?? .max, NookProtocol.answerPageBytes)) * 1024) + 1024
        case .list: 64 << 10
        case .frame: 512 << 10
        case .status: 16 << 10
        // Every app at its largest (text, fragments, icon path, chart, sender: 8 KiB with escapes).
        case .appList: NookApp.Limits.count * (8 << 10)
        case .appShow: 8 << 10
        default: 2 << 10
        }
    }

    /// Writes the calls that waited while there is room, oldest first.
    private func admitWaiting() {
        while waitingStart < waitingCalls.count, socket != nil, hasRoom(for: waitingCalls[waitingStart].request) {
            let call = waitingCalls[waitingStart]
            waitingStart += 1
            write(call.request, done: call.done)
        }
        if waitingStart == waitingCalls.count {
            waitingCalls.removeAll(keepingCapacity: waitingCalls.capacity <= 1024)
            waitingStart = 0
        } else if waitingStart > 1024 {
            waitingCalls.removeFirst(waitingStart)
            waitingStart = 0
        }
    }

    private func write(_ request: Request, done: @escaping (Result<JSONValue, NookdCallError>) -> Void) {
        nextID += 1
        var numbered = request
        numbered.id = .number(nextID)
        let line = Array(numbered.encoded().utf8)
        guard line.count <= NookProtocol.maximumLineBytes else {
            done(.failure(.refused(ProtocolError(.lineTooLong, "the request is \(line.count) bytes; nookd reads at most \(NookProtocol.maximumLineBytes)").json)))
            return
        }
        let answerBytes = Self.expectedAnswerBytes(request.operation)
        pending.append(Pending(id: nextID, sentAt: clock(), start: queuedBytes, changes: request.operation.changesSomething,
                               answerBytes: answerBytes, done: done))
        answerBytesInFlight += answerBytes
        outgoing += line
        outgoing.append(0x0A)
        queuedBytes += line.count + 1
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
        // A call that waited for room as long as a call may wait for its answer gives up,
        // unsent; the oldest waited longest.
        while waitingStart < waitingCalls.count, now - waitingCalls[waitingStart].since >= options.callTimeout {
            let call = waitingCalls[waitingStart]
            waitingStart += 1
            call.done(.failure(.unavailable("nookd's link to nook-http stayed full for \(options.callTimeout) (\(options.callTimeoutSource)); nothing was sent")))
        }
        let waitingDeadline = waitingStart < waitingCalls.count ? waitingCalls[waitingStart].since + options.callTimeout : nil
        if pendingStart < pending.count {
            let oldest = pending[pendingStart].sentAt
            if now - oldest >= options.callTimeout {
                lose("nookd has not answered a call in \(options.callTimeout) (\(options.callTimeoutSource))")
                return nextAttempt
            }
            return min(oldest + options.callTimeout, waitingDeadline ?? oldest + options.callTimeout)
        }
        return waitingDeadline
    }

    private func connectIfDue() {
        let now = clock()
        guard now >= nextAttempt else { return }
        guard let address = UnixSocketAddress(path: options.socketPath) else {
            fail(attempt: "the socket path \(options.socketPath) is longer than a Unix socket allows", now: now)
            return
        }
        do throws(SystemCallError) {
            socket = try Self.connected(to: address, path: options.socketPath)
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

    /// A new non-blocking connection to nookd's socket.
    private static func connected(to address: UnixSocketAddress, path: String) throws(SystemCallError) -> FileDescriptor {
        let socket = try FileDescriptor.unixSocket(SOCK_STREAM, nonBlocking: true, name: "nookd's socket \(path)")
        try socket.connect(to: address)
        return socket
    }

    private func fail(attempt reason: String, now: Duration) {
        if reason != lastFailure {
            logger.warning("nookd is not reachable for \(options.role) (\(reason)); those calls answer 503 until it is")
        }
        lastFailure = reason
        nextAttempt = now + .milliseconds(Int64(backoff.next() * 1000))
    }

    private func flush() {
        guard socket != nil else { return }
        var reopened = false
        while let socket, sent < outgoing.count {
            let sending = outgoing.withUnsafeBytes { bytes in
                Result { () throws(SystemCallError) in
                    try System.sendIfReady(socket.rawValue, bytes.baseAddress! + sent, outgoing.count - sent, flags: Int32(MSG_NOSIGNAL | MSG_DONTWAIT),
                                           subject: socket.name)
                }
            }
            switch sending {
            case .failure(let error):
                // nookd closes a link idle for its idle_timeout, and that close can cross the
                // first calls after a quiet spell. When not a byte of any unanswered call
                // reached it, they go again on a new link, once: no call was lost.
                if !reopened, error.errno == .brokenPipe || error.errno == .connectionReset, nothingUnansweredWritten, reopen() {
                    reopened = true
                    continue
                }
                lose("\(error)")
                return
            case .success(nil):
                return
            case .success(let count?):
                sent += count
                writtenBytes += count
            }
        }
        outgoing.removeAll(keepingCapacity: outgoing.capacity <= 1 << 20)
        sent = 0
        // Calls that waited for the requests' bytes to go: written on the loop's next turn.
        admitWaiting()
    }

    /// Whether no byte of a call still unanswered has been written on this connection, and what
    /// is left to write begins with the oldest of them (not the tail of a call answered early).
    private var nothingUnansweredWritten: Bool {
        pendingStart < pending.count && writtenBytes == pending[pendingStart].start
    }

    /// Moves the unwritten calls to a new connection to nookd (the old one closed before any of
    /// them was written); false, leaving everything as it was, when nookd cannot be reached.
    private func reopen() -> Bool {
        guard let address = UnixSocketAddress(path: options.socketPath) else { return false }
        let fresh: FileDescriptor
        do throws(SystemCallError) {
            fresh = try Self.connected(to: address, path: options.socketPath)
        } catch {
            logger.warning("nookd closed the idle connection as calls were written, and a new one failed (\(error))")
            return false
        }
        logger.debug("nookd closed the idle connection as calls were written; they go on a new one")
        socket = fresh
        let offset = writtenBytes
        outgoing.removeFirst(sent)
        sent = 0
        queuedBytes -= offset
        writtenBytes = 0
        for index in pendingStart..<pending.count { pending[index].start -= offset }
        incoming.removeAll()
        incomingSearched = 0
        return true
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

    private static let newline: [UInt8] = [0x0A]

    /// Where the next end of a line is in `incoming`, searched from `start` (memchr, see ByteSearch).
    private func nextNewline(from start: Int) -> Int? {
        incoming.withUnsafeBytes { bytes in
            ByteSearch.firstOffset(of: Self.newline, in: UnsafeRawBufferPointer(rebasing: bytes[start...])).map { start + $0 }
        }
    }

    private func takeLines() {
        var lineStart = 0
        while let newline = nextNewline(from: max(lineStart, incomingSearched)) {
            let line = incoming[lineStart..<newline]
            lineStart = newline + 1
            answer(line)
            guard socket != nil else { return }
        }
        incoming.removeFirst(lineStart)
        incomingSearched = incoming.count
    }

    private func answer(_ line: ArraySlice<UInt8>) {
        let value: JSONValue
        do { value = try JSONValue.parse(line) } catch {
            lose("nookd sent a line that is not JSON \(error)")
            return
        }
        // Events are not asked for on this connection; anything with `event` is passed over.
        if value["event"] != nil { return }
        // nookd's word that it closes this connection and carries out nothing more of it: refused
        // at its connection limit or as it stops, before reading a byte, or closed over a line
        // left half-sent: no call still unanswered here was done, however much of it was
        // written. At a stop it names the last call it began (`started_through`): those after
        // it were not done, one up to it and unanswered may have been.
        if value["id"] == nil, value["error"]?["code"]?.text == ProtocolError.Code.unavailable.rawValue {
            let begun: Closing
            switch StoppingLine.startedThrough(in: value) {
            case nil: begun = .begunThrough(nil)
            case .number(let id)?: begun = .begunThrough(id)
            // Not an id of this link's: what was begun cannot be told.
            case .string?: begun = .unsaid
            }
            lose("nookd closed the connection: \(value["error"]?["message"]?.text ?? "no reason given")", closing: begun)
            return
        }
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
        answerBytesInFlight -= call.answerBytes
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
        admitWaiting()
    }

    /// Fails every call in flight or waiting as a lost link does (nook-http stops).
    public func abandon(_ reason: String) { lose(reason) }

    /// Drops the connection: every call in flight fails at once, the next attempt is scheduled.
    /// `quiet`: nookd closed a connection with nothing in flight (its idle timeout), which is
    /// no outage: the next call reconnects at once.
    ///
    /// A call that changes something and whose line nookd may have read (a byte of it was
    /// written: nookd handles a last line without its newline too) may have been carried out:
    /// it fails `.outcomeUnknown`, never `.unavailable`, which says nothing was done. A call
    /// still unwritten, or one that only reads, fails `.unavailable`; so does every call
    /// nookd said it did not begin (`closing`).
    /// What nookd said, closing the connection, of the calls it began.
    private enum Closing {
        /// Nothing: any call it may have read may have been begun.
        case unsaid
        /// It began the calls up to this id (nil: none) and none after.
        case begunThrough(Double?)
    }

    private func lose(_ reason: String, quiet: Bool = false, closing: Closing = .unsaid) {
        guard socket != nil else { return }
        socket = nil
        outgoing.removeAll()
        sent = 0
        incoming.removeAll()
        incomingSearched = 0
        let written = writtenBytes
        queuedBytes = 0
        writtenBytes = 0
        answerBytesInFlight = 0
        if quiet {
            logger.debug("nookd closed the idle connection; the next call opens another")
            nextAttempt = .zero
            return
        }
        let inFlight = pending[pendingStart...]
        pending = []
        pendingStart = 0
        let waiting = waitingCalls[waitingStart...]
        waitingCalls = []
        waitingStart = 0
        // Whether nookd may have begun the call: it said which it began, or it may have read it.
        func mayHaveBegun(_ call: Pending) -> Bool {
            switch closing {
            case .unsaid: call.start < written
            case .begunThrough(let last): last.map { call.id <= $0 } ?? false
            }
        }
        let unknown = inFlight.filter { $0.changes && mayHaveBegun($0) }.count
        logger.warning("lost nookd's link for \(options.role): \(reason); of \(inFlight.count + waiting.count) call(s) in flight or waiting, \(unknown) that nookd may have carried out answer 504 (outcome unknown), the rest 503")
        lastFailure = reason
        nextAttempt = clock() + .milliseconds(Int64(backoff.next() * 1000))
        for call in inFlight {
            if call.changes && mayHaveBegun(call) {
                call.done(.failure(.outcomeUnknown("nookd went away (\(reason)) after it received the request and before it answered: it may or may not have been carried out")))
            } else if mayHaveBegun(call) {
                call.done(.failure(.unavailable("nookd went away before it answered (\(reason)); the request only reads, so nothing was done")))
            } else if case .begunThrough = closing {
                call.done(.failure(.unavailable("\(reason); the request was not carried out")))
            } else {
                call.done(.failure(.unavailable("nookd went away before nook-http could send the request: nothing was done")))
            }
        }
        for call in waiting {
            call.done(.failure(.unavailable("nookd went away while the request waited in nook-http: it was never sent, nothing was done")))
        }
    }
}

extension NookOperation {
    /// Whether carrying it out changes something, so that a lost answer leaves its outcome
    /// unknown; reading the state (status, list, history, the glass) changes nothing.
    var changesSomething: Bool {
        switch self {
        case .status, .list, .watch, .snapshot, .inputs, .history, .historyShow, .frame, .quiet(.status): false
        default: true
        }
    }
}
