#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One client. Answers and events are queued with ``send(_:)`` from any task; the server's
/// poll loop writes them out, or the handler task at the end of a batch of requests (see
/// ``holdOutput()``), once the journal records they depend on are settled
/// (``dependOn(_:)``). A client that stops reading is dropped once its backlog passes
/// ``ClientConnection/outboundLimit`` instead of growing the daemon's memory.
public final class ClientConnection: Sendable {
    public static let outboundLimit = 4 << 20
    public let peer: PeerCredentials
    public let number: Int
    let fd: Int32
    private let wake: @Sendable () -> Void
    private let settle: SocketServer.Settle

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
        /// The journal mark the held answers depend on (0: none).
        var mark: UInt64 = 0
        var closed = false

        var backlog: Int { outbound.count - written + held.count }
    }

    let state = Mutex(State())
    private let closedGate = Latch()

    init(fd: Int32, peer: PeerCredentials, number: Int, wake: @escaping @Sendable () -> Void,
         settle: @escaping SocketServer.Settle = { _ in }) {
        self.fd = fd
        self.peer = peer
        self.number = number
        self.wake = wake
        self.settle = settle
    }

    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Wakes the poll loop to look at this connection again (input room, output, closing).
    func nudge() { wake() }

    /// Queues one line (a newline is added) to be written. False if the connection is gone or
    /// was dropped for not reading. (Writing each answer from the calling thread was tried:
    /// one `send` per answer is slower than one per burst of answers.)
    @discardableResult
    public func send(_ line: String) -> Bool {
        enum Outcome { case closed, held, overLimit, visible }
        var outcome = state.withLock { state -> Outcome in
            guard !state.closed else { return .closed }
            guard state.holdingOutput else { return .visible }
            state.held.append(contentsOf: line.utf8)
            state.held.append(0x0A)
            return state.backlog <= Self.outboundLimit ? .held : .overLimit
        }
        if outcome == .visible {
            outcome = state.withLock { state -> Outcome in
                guard !state.closed else { return .closed }
                state.outbound.append(contentsOf: line.utf8)
                state.outbound.append(0x0A)
                return state.backlog <= Self.outboundLimit ? .visible : .overLimit
            }
        }
        switch outcome {
        case .closed: return false
        case .held: return true
        case .visible: wake(); return true
        case .overLimit: markClosed(); wake(); return false
        }
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

    /// ``releaseOutput()`` once the records the held answers depend on are settled (synced
    /// under `journal.sync = "ack"`). Operations that stream (watch, enqueue with wait) release
    /// this way before they start, so their events are never held behind a request that has
    /// not ended.
    public func releaseOutputWhenSettled() async {
        let mark = state.withLock { state in
            defer { state.mark = 0 }
            return state.mark
        }
        if mark > 0 { await settle(mark) }
        releaseOutput()
    }

    /// Makes what was held visible and writes it from the calling thread; whatever the socket
    /// cannot take now is left to the poll thread.
    func releaseOutput() {
        let result = state.withLock { state -> WriteResult in
            state.holdingOutput = false
            guard !state.closed else { return .done }
            state.outbound.append(contentsOf: state.held)
            state.held.removeAll(keepingCapacity: state.held.count < 65536)
            return Self.writeOut(fd, &state)
        }
        switch result {
        case .done: break
        case .blocked: wake()
        case .broken: markClosed(); wake()
        }
    }

    enum WriteResult { case done, blocked, broken }

    /// Writes queued output until it is all gone or the socket would block. Call under the lock.
    static func writeOut(_ fd: Int32, _ state: inout State) -> WriteResult {
        var result = WriteResult.done
        while state.written < state.outbound.count {
            let sent = state.outbound.withUnsafeBytes { bytes in
                Glibc.send(fd, bytes.baseAddress! + state.written, bytes.count - state.written, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { result = .blocked; break }
                return .broken
            }
            state.written += sent
        }
        if state.written == state.outbound.count {
            state.outbound.removeAll(keepingCapacity: state.outbound.count < 65536)
            state.written = 0
        } else if state.written > 65536 {
            state.outbound.removeFirst(state.written)
            state.written = 0
        }
        return result
    }

    /// Returns once the connection has closed (the client went away or was dropped).
    public func waitUntilClosed() async {
        await closedGate.wait()
    }

    func markClosed() {
        state.withLock { state in
            state.closed = true
            state.outbound = []
            state.held = []
            state.written = 0
        }
        closedGate.open()
    }
}
