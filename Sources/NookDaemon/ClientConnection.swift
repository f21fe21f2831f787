#if canImport(Glibc)
import Glibc
#endif
import NookProtocol
import NookActivities
import NookSystem
import Synchronization

/// Bytes queued for every client together, bounded by `daemon.max_buffered_bytes`: 256 clients
/// that never read, each under the per-client bound, would otherwise hold a gigabyte. Past the
/// budget the server drops the clients with the most waiting (``SocketServer``).
final class OutboundBudget: Sendable {
    /// Default for `daemon.max_buffered_bytes`: a small board's spare memory, several times
    /// what the busiest reading clients need.
    static let defaultLimit = 16 << 20
    let limit: Int
    private let total = Atomic<Int>(0)

    init(limit: Int) { self.limit = limit }

    var buffered: Int { total.load(ordering: .relaxed) }
    var isExceeded: Bool { buffered > limit }

    /// Adds `delta` (negative when bytes left); true when that took the total past the limit.
    func change(by delta: Int) -> Bool {
        guard delta != 0 else { return false }
        let now = total.add(delta, ordering: .relaxed).newValue
        return delta > 0 && now > limit
    }
}

/// One client. Answers and events are queued with ``send(_:)`` from any task; the server's
/// poll loop writes them out, or the handler task at the end of a batch of requests (see
/// ``holdOutput()``), once the journal records they depend on are settled
/// (``dependOn(_:)``).
///
/// Two bounds keep a client that does not read from growing the daemon's memory, and they
/// differ by who asked for the bytes. Answers were asked for, one request each: past
/// ``answersHighWater`` waiting, nookd stops handling (and reading) the client's requests until
/// it has read them down to ``answersLowWater`` (``makeRoom()``), so a client that asks for much
/// at once (a pipelined burst of history pages) is slowed to its reading pace, never dropped for
/// the size of what it asked; one held back that reads nothing for `daemon.unread_timeout` is
/// dropped (``activity``). Events were not asked for one by one (a watch): nookd cannot stop
/// them, so a client with more than ``outboundLimit`` of them waiting is dropped; the answers
/// waiting beside them do not count there (they are bounded by the holding back).
///
/// Flow control lives here, behind methods the server's poll thread calls: how many lines are
/// in flight (inbound back-pressure), what is queued to write, and when the connection is done.
/// The socket is owned here and closed when the last reference goes, so no task that still
/// holds the connection can ever write to a descriptor number that was handed out again.
public final class ClientConnection: Sendable {
    /// What may wait for a client that does not read its events (a watch) before it is dropped.
    public static let outboundLimit = 4 << 20
    /// Bytes waiting for the client past which its next request waits (back-pressure), and
    /// what they must drain to before it is handled. As much as a client could always leave
    /// unread: one that writes all its requests before it reads any answer (a script, a test)
    /// would otherwise wait for ever with nookd, each for the other to read. One answer (a page,
    /// 1 MiB, or a frame, under 3 MiB of Base64) may go past it.
    public static let answersHighWater = outboundLimit
    public static let answersLowWater = 1 << 20
    /// Lines handed to the handler and not yet answered, past which the server stops reading.
    public static let maximumInFlight = 256
    public let peer: PeerCredentials
    public let number: Int
    private let socket: FileDescriptor
    var fd: Int32 { socket.rawValue }
    private let wake: @Sendable () -> Void
    private let settle: SocketServer.Settle
    /// Told when the socket closes, which is when the last holder lets go (a task waiting for
    /// the journal may hold it after the server let go): the server counts descriptors, not
    /// connections it still serves, against `daemon.max_connections`.
    private let released: @Sendable () -> Void
    private let budget: OutboundBudget?
    private let clock: @Sendable () -> Duration

    struct State {
        /// What the poll thread may write; `written` bytes of it are gone already.
        var outbound: [UInt8] = []
        var written = 0
        /// Answers of the batch being handled, not yet visible to the poll thread.
        var held: [UInt8] = []
        /// Lines handed to the handler and not yet answered (inbound back-pressure).
        var inFlight = 0
        /// Set while the handler answers a batch of lines: answers collect in `held` and go
        /// out in one `send` when the batch is done instead of waking the poll thread for each.
        var holdingOutput = false
        var finishWhenFlushed = false
        /// Dropped on purpose (it stopped reading answers): what it sent and nookd has not read
        /// is not handled. A client that merely hung up has every line it sent handled.
        var dropped = false
        /// The journal mark the held answers depend on (0: none).
        var mark: UInt64 = 0
        var closed = false
        /// nookd stops: no request of the connection begins from now on (``begin(through:)``).
        var stopping = false
        /// The id of the last request with one that was handed to its handler, which the
        /// line nookd closes the connection with at a stop names.
        var startedThrough: RequestID?

        /// Answers released by their batch but waiting for the journal records they depend on
        /// (mark 0: nothing, only order), oldest first; they go out in order.
        var gated: [(mark: UInt64, bytes: [UInt8])] = []
        var gatedBytes = 0
        /// The highest mark known settled.
        var settled: UInt64 = 0
        /// When the last batch of requests was answered (the server's clock), for idle timeouts.
        var lastAnswered: Duration = .zero
        /// The handler task waiting for the client to read its answers down (``makeRoom()``).
        var roomWaiter: CheckedContinuation<Void, Never>?
        /// Since when the socket has taken none of the bytes written to it (full: the client
        /// does not read); nil while it takes them or nothing waits.
        var unreadSince: Duration?
        /// Bytes the socket has taken since the connection opened, where `outbound` lines end
        /// in that count: the lines queued outside a batch (events) are found there once sent.
        var sentTotal = 0
        /// Lines queued outside a batch (events of a watch, mostly), by where they end in
        /// ``sentTotal``'s count, oldest from `streamedHead`: what ``outboundLimit`` bounds.
        /// Answers a batch asked for are bounded by holding requests back instead, so they
        /// must not count here: an event to a client held back would drop it for its answers.
        var streamed: [(end: Int, size: Int)] = []
        var streamedHead = 0
        var streamedBytes = 0
        /// Such lines queued behind gated answers (not yet in `outbound`); zero once none wait.
        var gatedStreamedBytes = 0

        var backlog: Int { outbound.count - written + held.count + gatedBytes }
        /// What waits of the lines queued outside a batch: what ``outboundLimit`` judges.
        var streamedBacklog: Int { streamedBytes + gatedStreamedBytes }

        /// Notes a line queued outside a batch that was just appended to `outbound`.
        mutating func noteStreamed(_ size: Int) {
            streamed.append((end: sentTotal + outbound.count - written, size: size))
            streamedBytes += size
        }

        /// Forgets the lines the socket has taken in full.
        mutating func forgetSent() {
            while streamedHead < streamed.count, streamed[streamedHead].end <= sentTotal {
                streamedBytes -= streamed[streamedHead].size
                streamedHead += 1
            }
            if streamedHead == streamed.count {
                streamed.removeAll(keepingCapacity: streamed.count < 4096)
                streamedHead = 0
            } else if streamedHead > 4096 {
                streamed.removeFirst(streamedHead)
                streamedHead = 0
            }
        }
    }

    private let state = Locked(State())
    private let closedGate = Latch()

    init(socket: FileDescriptor, peer: PeerCredentials, number: Int, wake: @escaping @Sendable () -> Void,
         settle: @escaping SocketServer.Settle = { _, done in done(nil) }, released: @escaping @Sendable () -> Void = {},
         budget: OutboundBudget? = nil, clock: @escaping @Sendable () -> Duration = { MonotonicClock.now }) {
        self.socket = socket
        self.peer = peer
        self.number = number
        self.wake = wake
        self.settle = settle
        self.released = released
        self.budget = budget
        self.clock = clock
        state.withLock { $0.lastAnswered = clock() }
    }

    deinit { released() }

    /// Changes the state, counting what that adds to or takes from the bytes waiting for the
    /// client against the shared budget; wakes the server when that passed the budget.
    /// Resumes the handler task waiting for room (``makeRoom()``) once the client has read its
    /// answers down to the low mark, or the connection closed.
    private func mutate<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
        let (result, delta, roomMade) = state.withLock { state -> (Result, Int, CheckedContinuation<Void, Never>?) in
            let before = state.backlog
            let result = body(&state)
            var roomMade: CheckedContinuation<Void, Never>?
            if state.roomWaiter != nil, state.closed || state.backlog <= Self.answersLowWater {
                roomMade = state.roomWaiter
                state.roomWaiter = nil
            }
            return (result, state.backlog - before, roomMade)
        }
        if budget?.change(by: delta) == true { wake() }
        if let roomMade {
            roomMade.resume()
            // The poll thread reads the client's input again.
            wake()
        }
        return result
    }

    /// Bytes waiting to be written to the client (queued, held, or gated by the journal).
    var backlog: Int { state.withLock { $0.backlog } }

    /// What the server's timeouts need: whether nookd owes the client anything (requests in
    /// flight, which a running watch, inputs or enqueue-with-wait stream is until it ends, or
    /// answers unwritten), and when its last batch was answered.
    /// `unreadSince`: while nookd holds the client's requests back for answers it does not read
    /// (``makeRoom()``), since when the socket has taken none of them: judged by whether the
    /// client reads, not by how much it asked for.
    var activity: (answering: Bool, lastAnswered: Duration, unreadSince: Duration?) {
        state.withLock { ($0.inFlight > 0 || $0.backlog > 0, $0.lastAnswered, $0.roomWaiter == nil ? nil : $0.unreadSince) }
    }

    /// Whether the socket has taken none of what waits for the client since it last filled up.
    var isUnread: Bool { state.withLock { $0.unreadSince != nil && $0.outbound.count > $0.written } }

    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Closed because the client stopped reading (see ``send(_:)``), not because it went away.
    var wasDropped: Bool { state.withLock { $0.dropped } }

    /// Wakes the poll loop to look at this connection again (input room, output, closing).
    func nudge() { wake() }

    // MARK: Flow control, for the server's poll thread and the connection's handler task

    /// The `poll` events the server waits for: input while the client may send more lines
    /// (its input is open, fewer than ``maximumInFlight`` wait for answers and its answers are
    /// not held back, ``makeRoom()``), output while anything is queued.
    func pollEvents(inputOpen: Bool) -> Int16 {
        state.withLock { state in
            var events: Int16 = 0
            if inputOpen && state.inFlight < Self.maximumInFlight && state.roomWaiter == nil { events |= Int16(POLLIN) }
            if state.outbound.count > state.written { events |= Int16(POLLOUT) }
            return events
        }
    }

    /// The poll thread handed `count` lines to the handler.
    func received(lines count: Int) {
        state.withLock { $0.inFlight += count }
    }

    /// The handler answered `count` lines; wakes the poll thread if that takes the connection
    /// back under the in-flight limit, where it had stopped reading.
    func answered(lines count: Int) {
        let now = clock()
        let wasAtLimit = state.withLock { state -> Bool in
            defer { state.inFlight -= count; state.lastAnswered = now }
            return state.inFlight >= Self.maximumInFlight
        }
        if wasAtLimit { wake() }
    }

    /// The client closed its sending side and every line is answered: the connection ends
    /// once its output is written.
    func finishWhenFlushed() {
        state.withLock { $0.finishWhenFlushed = true }
        wake()
    }

    /// Writes what the socket takes now (the poll thread saw it writable).
    func flush() {
        let broken = mutate { Self.writeOut(fd, &$0, clock: clock) == .broken }
        if broken { markClosed() }
    }

    /// Whether the server may let the connection go: it was closed or dropped, or it has
    /// finished (input closed, every answer written).
    func isDone(inputClosed: Bool) -> Bool {
        state.withLock { $0.closed || ($0.finishWhenFlushed && inputClosed && $0.outbound.count == $0.written && $0.gated.isEmpty) }
    }

    /// Queues one line (a newline is added) to be written. False if the connection is gone or
    /// was dropped for not reading. (Writing each answer from the calling thread was tried:
    /// one `send` per answer is slower than one per burst of answers.)
    @discardableResult
    public func send(_ line: String) -> Bool {
        send(utf8: line.utf8)
    }

    private enum SendOutcome { case closed, held, overLimit, visible }

    /// ``send(_:)`` for a line already in bytes (UTF-8, no newline): a large answer (`history`)
    /// is not validated again as a `String` on its way out.
    @discardableResult
    public func send(utf8 line: some Collection<UInt8>) -> Bool {
        var outcome = mutate { state -> SendOutcome in
            guard !state.closed else { return .closed }
            if !state.holdingOutput, !state.gated.isEmpty {
                // Behind answers still waiting for the disk: keep the order.
                state.gated.append((0, Array(line) + [0x0A]))
                state.gatedBytes += line.count + 1
                state.gatedStreamedBytes += line.count + 1
                return state.streamedBacklog <= Self.outboundLimit ? .held : .overLimit
            }
            guard state.holdingOutput else { return .visible }
            // An answer of the batch being handled: the client asked for it, and ``makeRoom()``
            // bounds what waits by holding its next request back, so its size drops nobody.
            state.held.append(contentsOf: line)
            state.held.append(0x0A)
            return .held
        }
        if outcome == .visible {
            outcome = mutate { state -> SendOutcome in
                guard !state.closed else { return .closed }
                state.outbound.append(contentsOf: line)
                state.outbound.append(0x0A)
                state.noteStreamed(line.count + 1)
                return state.streamedBacklog <= Self.outboundLimit ? .visible : .overLimit
            }
        }
        switch outcome {
        case .closed: return false
        case .held: return true
        case .visible: wake(); return true
        case .overLimit: markClosed(droppedForNotReading: true); wake(); return false
        }
    }

    /// Back-pressure on answers: when more than ``answersHighWater`` bytes wait for the client,
    /// releases what is held (once its journal records are settled, as at the end of a batch)
    /// and returns only when the client has read them down to ``answersLowWater``, or the
    /// connection closed; meanwhile the poll thread reads none of its input. The handler calls
    /// it before each request, so a pipelined burst of large answers is served at the pace the
    /// client reads. Output is held again when it returns. False when nookd dropped the client
    /// for not reading: its requests not yet handled are not carried out.
    public func makeRoom() async -> Bool {
        let (full, dropped) = state.withLock { ($0.backlog > Self.answersHighWater, $0.dropped) }
        guard full, !dropped else { return !dropped }
        await releaseOutputWhenSettled()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let roomAlready = mutate { state -> Bool in
                if state.closed || state.backlog <= Self.answersLowWater { return true }
                state.roomWaiter = continuation
                return false
            }
            if roomAlready { continuation.resume() }
            // The poll thread stops reading this client and times how long it reads nothing.
            wake()
        }
        holdOutput()
        return !wasDropped
    }

    /// Answers sent from now on wait for ``releaseOutput()``. The handler task holds output
    /// while it answers a batch of pipelined lines, so the batch costs one `send` and no
    /// wake-up of the poll thread per answer.
    func holdOutput() {
        state.withLock { $0.holdingOutput = true }
    }

    /// The answers held now (and until the release) depend on the journal's records up to
    /// `mark`: ``releaseOutputWhenSettled()`` waits for them. Only for held output.
    public func dependOn(_ mark: UInt64) {
        state.withLock { $0.mark = max($0.mark, mark) }
    }

    /// Answers waiting for the disk beyond this make the batch wait too (back-pressure, so a
    /// fast client on a slow disk is slowed down, not dropped at ``outboundLimit``).
    static let gatedLimit = 1 << 20

    /// Releases what was held once the records the held answers depend on are settled (synced
    /// under `journal.sync = "ack"`), without waiting for that: the connection's next batch is
    /// handled meanwhile, so its records join the sync in flight or the next one (group commit
    /// across batches). Operations that stream (watch, enqueue with wait) release this way before
    /// they start; their events queue behind the answers still waiting, in order.
    public func releaseOutputWhenSettled() async {
        enum Next { case now, gated(UInt64), wait(UInt64) }
        let next = state.withLock { state -> Next in
            let mark = state.mark
            state.mark = 0
            if state.gated.isEmpty && (mark == 0 || mark <= state.settled) { return .now }
            state.holdingOutput = false
            state.gated.append((mark, state.held))
            state.gatedBytes += state.held.count
            state.held = []
            if mark == 0 { return .gated(0) }
            return state.gatedBytes > Self.gatedLimit ? .wait(mark) : .gated(mark)
        }
        switch next {
        case .now:
            releaseOutput()
        case .gated(let mark):
            guard mark > 0 else { return }
            // Released from the thread that settles them (the journal's writer, right after
            // its sync), not from a task: a pool thread drawing a card would make the answer
            // wait its turn (`journaled_ack_p99_vs_fdatasync_p99`).
            settle(mark) { [self] unsaved in releaseGated(through: mark, unsaved: unsaved) }
        case .wait(let mark):
            let settle = self.settle
            let unsaved = await withCheckedContinuation { (settled: CheckedContinuation<String?, Never>) in
                settle(mark) { settled.resume(returning: $0) }
            }
            releaseGated(through: mark, unsaved: unsaved)
        }
    }

    /// Records up to `mark` are settled: the gated answers that depended on them, and what
    /// queued behind them, go out in order. When the journal could not make them safe
    /// (`unsaved` says why), the answers that depended on them say so (J1).
    private func releaseGated(through mark: UInt64, unsaved: String? = nil) {
        let warning = unsaved.map(Self.unsavedWarning)
        let result = mutate { state -> WriteResult in
            if warning == nil { state.settled = max(state.settled, mark) }
            guard !state.closed else { return .done }
            var released = 0
            while released < state.gated.count, state.gated[released].mark <= max(state.settled, mark) {
                let gated = state.gated[released]
                if let warning, gated.mark > state.settled {
                    state.outbound.append(contentsOf: Self.adding(warning: warning, toAnswersIn: gated.bytes))
                    state.gatedBytes -= gated.bytes.count
                    released += 1
                    continue
                }
                state.outbound.append(contentsOf: state.gated[released].bytes)
                state.gatedBytes -= state.gated[released].bytes.count
                released += 1
            }
            guard released > 0 else { return .done }
            state.gated.removeFirst(released)
            // (Those released are no longer told apart from the answers they followed.)
            if state.gated.isEmpty { state.gatedStreamedBytes = 0 }
            let result = Self.writeOut(fd, &state, clock: clock)
            // A client that stopped sending is closed once its last answers are out.
            return result == .done && state.finishWhenFlushed && state.gated.isEmpty ? .blocked : result
        }
        switch result {
        case .done: break
        case .blocked: wake()
        case .broken: markClosed(); wake()
        }
    }

    static func unsavedWarning(_ reason: String) -> String {
        "not saved to nookd's journal (\(reason)): done, but a restart or a power cut may undo it until the journal can be written again"
    }

    /// Each success answer among `bytes` (lines) with a `warning` member added; events and
    /// refusals unchanged. nookd writes every answer as one JSON object on one line.
    static func adding(warning: String, toAnswersIn bytes: [UInt8]) -> [UInt8] {
        let member = Array(",\"warning\":".utf8) + JSONValue.string(warning).serializedBytes + [UInt8(ascii: "}")]
        let success = Array("\"ok\":true".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + member.count)
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
            if line.last == UInt8(ascii: "}"), line.contains(bytes: success) {
                output += line.dropLast()
                output += member
            } else {
                output += line
            }
            output.append(0x0A)
        }
        return output
    }

    /// Makes what was held visible and writes it from the calling thread; whatever the socket
    /// cannot take now is left to the poll thread.
    func releaseOutput() {
        let result = mutate { state -> WriteResult in
            state.holdingOutput = false
            guard !state.closed else { return .done }
            state.outbound.append(contentsOf: state.held)
            state.held.removeAll(keepingCapacity: state.held.count < 65536)
            return Self.writeOut(fd, &state, clock: clock)
        }
        switch result {
        case .done: break
        case .blocked: wake()
        case .broken: markClosed(); wake()
        }
    }

    enum WriteResult { case done, blocked, broken }

    /// Writes queued output until it is all gone or the socket would block. Call under the lock.
    /// Notes since when the socket has taken nothing (``State/unreadSince``).
    static func writeOut(_ fd: Int32, _ state: inout State, clock: () -> Duration) -> WriteResult {
        var result = WriteResult.done
        while state.written < state.outbound.count {
            let written = state.written
            let sending = state.outbound.withUnsafeBytes { bytes in
                Result { () throws(SystemCallError) in
                    try System.sendIfReady(fd, bytes.baseAddress! + written, bytes.count - written, flags: Int32(MSG_NOSIGNAL))
                }
            }
            guard case .success(let ready) = sending else { return .broken }
            guard let sent = ready else {
                if state.unreadSince == nil { state.unreadSince = clock() }
                result = .blocked
                break
            }
            state.written += sent
            state.sentTotal += sent
            state.unreadSince = nil
        }
        state.forgetSent()
        if state.written == state.outbound.count {
            state.outbound.removeAll(keepingCapacity: state.outbound.count < 65536)
            state.written = 0
        } else if state.written > 65536 {
            state.outbound.removeFirst(state.written)
            state.written = 0
        }
        return result
    }

    /// The handler is about to carry out requests of this connection, the last of them with an
    /// id `id` (nil: none has one); false, and nothing may begin, once nookd stops
    /// (``stopBeginning()``). What began is named in the connection's last line at the stop.
    public func begin(through id: RequestID?) -> Bool {
        state.withLock { state in
            guard !state.stopping else { return false }
            if let id { state.startedThrough = id }
            return true
        }
    }

    /// nookd stops: no request of this connection begins from now on; those begun finish and
    /// their answers go out as usual until ``closeStopping(_:)``.
    func stopBeginning() {
        state.withLock { $0.stopping = true }
    }

    /// nookd stops: writes what is already answered, as far as the socket takes it now, then
    /// (when all of that went) a last line saying so and naming the last request begun
    /// (``StoppingLine``), and closes. A client told nothing (its socket full) sees only the
    /// end of the stream, as when nookd is killed.
    func closeStopping(_ error: ProtocolError) {
        mutate { state in
            state.stopping = true
            guard !state.closed, Self.writeOut(fd, &state, clock: clock) == .done, state.outbound.isEmpty else { return }
            let line = StoppingLine.encoded(error, startedThrough: state.startedThrough) + "\n"
            _ = line.withCString { text in try? System.sendIfReady(fd, text, strlen(text), flags: Int32(MSG_NOSIGNAL)) }
        }
        markClosed()
    }

    /// Returns once the connection has closed (the client went away or was dropped).
    public func waitUntilClosed() async {
        await closedGate.wait()
    }

    /// Ends the connection: nothing more is written, streams waiting on it stop, and the
    /// client sees end of file at once (`shutdown`) although the descriptor stays open until
    /// the last task holding the connection lets go.
    func markClosed(droppedForNotReading: Bool = false) {
        let wasOpen = mutate { state -> Bool in
            if droppedForNotReading { state.dropped = true }
            defer {
                state.closed = true
                state.outbound = []
                state.held = []
                state.gated = []
                state.gatedBytes = 0
                state.written = 0
                state.streamed = []
                state.streamedHead = 0
                state.streamedBytes = 0
                state.gatedStreamedBytes = 0
            }
            return !state.closed
        }
        if wasOpen { try? System.shutdown(fd, SHUT_RDWR) }
        closedGate.open()
    }
}
