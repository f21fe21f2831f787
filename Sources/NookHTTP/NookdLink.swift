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
        /// The answers' bytes in flight, as ``NookOperation/expectedAnswerBytes`` reckons them; a call
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

    struct Pending {
        var id: Double
        var sentAt: Duration
        /// Where its line starts in what this connection has written (``queuedBytes``).
        var start: Int
        /// It changes something: lost after nookd may have read it, its outcome is unknown.
        var changes: Bool
        var answerBytes: Int
        /// Its caller reads only the outcome: an accepted answer is not parsed (``callForOutcome(_:done:)``).
        var outcomeOnly: Bool
        var done: (Result<JSONValue, NookdCallError>) -> Void
    }

    /// A call waiting for room in flight, not yet written.
    struct Waiting {
        var request: Request
        var since: Duration
        var outcomeOnly: Bool
        var done: (Result<JSONValue, NookdCallError>) -> Void
    }

    public let options: Options
    let logger: Logger
    var socket: FileDescriptor?
    var outgoing: [UInt8] = []
    var sent = 0
    var incoming: [UInt8] = []
    /// The start of `incoming` already searched for a newline and holding none: a line of a
    /// megabyte arrives in many reads, and each read searches only what it added.
    var incomingSearched = 0
    var pending: [Pending] = []
    var pendingStart = 0
    /// Bytes of calls put in ``outgoing`` and bytes written, since the connection opened.
    var queuedBytes = 0
    var writtenBytes = 0
    /// ``Pending/answerBytes`` of the calls in flight.
    public internal(set) var answerBytesInFlight = 0
    var waitingCalls: [Waiting] = []
    var waitingStart = 0
    var nextID = 0.0
    var backoff = ReconnectBackoff()
    var nextAttempt: Duration = .zero
    var lastFailure: String?
    var everConnected = false
    var readBuffer = [UInt8](repeating: 0, count: 65536)

    /// The connection for calls that wait (see ``Options/waitingCallTimeout``), polled by the
    /// same loop.
    public let waiting: NookdLink?

    /// The monotonic clock's reading (injected by tests).
    let clock: @Sendable () -> Duration

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
        call(request, outcomeOnly: false, done: done)
    }

    public func callForOutcome(_ request: Request, done: @escaping (Result<Void, NookdCallError>) -> Void) {
        call(request, outcomeOnly: true) { done($0.map { _ in }) }
    }

    func call(_ request: Request, outcomeOnly: Bool, done: @escaping (Result<JSONValue, NookdCallError>) -> Void) {
        if let waiting, case .frame(after: .some) = request.operation {
            waiting.call(request, outcomeOnly: outcomeOnly, done: done)
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
            waitingCalls.append(Waiting(request: request, since: clock(), outcomeOnly: outcomeOnly, done: done))
            return
        }
        write(request, outcomeOnly: outcomeOnly, done: done)
    }

    /// Whether a call may be written now: under the bounds on calls, answers' bytes and request
    /// bytes in flight, or alone (a call larger than the bound still goes, by itself).
    func hasRoom(for request: Request) -> Bool {
        guard callsInFlight > 0 else { return true }
        return callsInFlight < options.maximumInFlight && outgoing.count - sent <= options.maximumOutgoingBytes
            && answerBytesInFlight + request.operation.expectedAnswerBytes <= options.maximumAnswerBytes
    }

    /// Writes the calls that waited while there is room, oldest first.
    func admitWaiting() {
        while waitingStart < waitingCalls.count, socket != nil, hasRoom(for: waitingCalls[waitingStart].request) {
            let call = waitingCalls[waitingStart]
            waitingStart += 1
            write(call.request, outcomeOnly: call.outcomeOnly, done: call.done)
        }
        if waitingStart == waitingCalls.count {
            waitingCalls.removeAll(keepingCapacity: waitingCalls.capacity <= 1024)
            waitingStart = 0
        } else if waitingStart > 1024 {
            waitingCalls.removeFirst(waitingStart)
            waitingStart = 0
        }
    }

    func write(_ request: Request, outcomeOnly: Bool, done: @escaping (Result<JSONValue, NookdCallError>) -> Void) {
        nextID += 1
        var numbered = request
        numbered.id = .number(nextID)
        let line = Array(numbered.encoded().utf8)
        guard line.count <= NookProtocol.maximumLineBytes else {
            done(.failure(.refused(ProtocolError(.lineTooLong, "the request is \(line.count) bytes; nookd reads at most \(NookProtocol.maximumLineBytes)").json)))
            return
        }
        let answerBytes = request.operation.expectedAnswerBytes
        pending.append(Pending(id: nextID, sentAt: clock(), start: queuedBytes, changes: request.operation.changesSomething,
                               answerBytes: answerBytes, outcomeOnly: outcomeOnly, done: done))
        answerBytesInFlight += answerBytes
        outgoing += line
        outgoing.append(0x0A)
        queuedBytes += line.count + 1
        // Written by ``sendQueued()`` once the loop's turn has made its calls: one send and one
        // read in nookd for all of them, not one each.
    }
}
