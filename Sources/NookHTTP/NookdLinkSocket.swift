import NookActivities
import NookLogging
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// The link's socket: connecting with backoff, writing what the calls queued, reading nookd's
/// answers line by line and handing each to its call.
extension NookdLink {
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

    func connectIfDue() {
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
    static func connected(to address: UnixSocketAddress, path: String) throws(SystemCallError) -> FileDescriptor {
        let socket = try FileDescriptor.unixSocket(SOCK_STREAM, nonBlocking: true, name: "nookd's socket \(path)")
        try socket.connect(to: address)
        return socket
    }

    func fail(attempt reason: String, now: Duration) {
        if reason != lastFailure {
            logger.warning("nookd is not reachable for \(options.role) (\(reason)); those calls answer 503 until it is")
        }
        lastFailure = reason
        nextAttempt = now + .milliseconds(Int64(backoff.next() * 1000))
    }

    func flush() {
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
    var nothingUnansweredWritten: Bool {
        pendingStart < pending.count && writtenBytes == pending[pendingStart].start
    }

    /// Moves the unwritten calls to a new connection to nookd (the old one closed before any of
    /// them was written); false, leaving everything as it was, when nookd cannot be reached.
    func reopen() -> Bool {
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

    func read() {
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

    static let newline: [UInt8] = [0x0A]

    /// Where the next end of a line is in `incoming`, searched from `start` (memchr, see ByteSearch).
    func nextNewline(from start: Int) -> Int? {
        incoming.withUnsafeBytes { bytes in
            ByteSearch.firstOffset(of: Self.newline, in: UnsafeRawBufferPointer(rebasing: bytes[start...])).map { start + $0 }
        }
    }

    func takeLines() {
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

    func answer(_ line: ArraySlice<UInt8>) {
        // The oldest call wants only its outcome and nookd accepted it (the fixed start nookd
        // writes, with this call's id): nothing of the line is read further.
        if pendingStart < pending.count, pending[pendingStart].outcomeOnly,
           ResponseLine.acceptedNumberID(in: line) == pending[pendingStart].id {
            takeOldest().done(.success(.null))
            admitWaiting()
            return
        }
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
        takeOldest()
        if case .bool(true)? = value["ok"] {
            call.done(.success(value))
        } else {
            call.done(.failure(.refused(value["error"] ?? .object([("code", .string("bad_json")), ("message", .string("nookd refused the call without saying why"))]))))
        }
        admitWaiting()
    }

    /// The oldest call, answered: out of the calls in flight.
    @discardableResult
    private func takeOldest() -> Pending {
        let call = pending[pendingStart]
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
        return call
    }
}
