#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import NookLogging
import NookProtocol
import NookSystem
import Synchronization

/// A failure setting up or running the socket, naming the call and errno.
public struct SocketError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    init(_ failure: SystemCallError) { message = failure.description }
    static func call(_ name: String, _ subject: String? = nil) -> SocketError { SocketError(SystemCallError(name, subject: subject)) }
    public var description: String { message }
}

/// The Unix stream socket nookd listens on (C1, C4): newline-delimited lines in, lines out.
///
/// One poll loop on its own thread does all socket I/O; each connection's lines go, in order,
/// to one task that runs `handler` for each read's batch of them. The listening socket, each client fd and the wake
/// pipe are owned here and closed by `stop()`.
public final class SocketServer: @unchecked Sendable {
    /// Answers a batch of lines (those of one read), in order; it holds the connection's output
    /// (``ClientConnection/holdOutput()``) while it answers each, released after the batch.
    public typealias Handler = @Sendable (ClientConnection, [[UInt8]]) async -> Void
    public typealias Refusal = @Sendable (ClientConnection, LineProblem) -> Void
    /// Calls `done` once what answers depend on (journal records up to a mark, see
    /// ``ClientConnection/dependOn(_:)``) is safe, or is as safe as it will get: then with
    /// the reason it is not (the journal cannot be written), which the answers carry. Answers
    /// are held until then. `done` may run on any thread (the journal's writer, right after
    /// its sync): it only hands the answers to the socket, without waiting for a pool thread.
    public typealias Settle = @Sendable (_ mark: UInt64, _ done: @escaping @Sendable (String?) -> Void) -> Void

    /// A line the server refused before any handler saw it.
    public enum LineProblem: Sendable {
        case tooLong(bytes: Int)
    }

    /// Default for `daemon.max_connections`: well under the usual 1,024 descriptors a process
    /// may hold, and far more than the scripts of one board keep open.
    public static let defaultMaximumConnections = 256

    private let path: String
    private let mode: UInt32
    private let groupID: gid_t?
    private let policy: AccessPolicy
    private let logger: Logger
    private let handler: Handler
    private let refusal: Refusal
    private let settle: Settle
    private let maximumLine: Int
    private let maximumConnections: Int
    private let limits: ConnectionLimits
    /// Root, nookd's own user, `daemon.admin_group`: they may use the reserved slots and are not
    /// held to the per-user share.
    private let privileged: @Sendable (PeerCredentials) -> Bool
    private let clock: @Sendable () -> Duration
    /// Whether a stop is on its way though ``beginStop()`` has not been called yet (a stop
    /// signal's handler has run, its relay not yet): looked at before every accept.
    private let stopAnnounced: @Sendable () -> Bool
    private let budget: OutboundBudget
    /// Connections served per uid, for the per-user share (poll thread only).
    private var perUser: [UInt32: Int] = [:]
    /// Connections closed by each timeout, logged at most every 10 s.
    private var partialLineNotes = LogThrottle(interval: .seconds(10))
    private var idleNotes = LogThrottle(interval: .seconds(10))
    /// Connections refused at the limit: logged once, then at most every 10 s while it lasts.
    private var limitNotes = LogThrottle(interval: .seconds(10))
    /// `accept` failing for want of descriptors or memory: the same.
    private var starvedNotes = LogThrottle(interval: .seconds(10))

    // Set by start(), then touched only by the poll thread (and by stop(), after it has ended).
    private var listener: FileDescriptor?
    /// The socket file this server created (device, inode), so that it removes only its own.
    private var socketFile: (device: UInt64, inode: UInt64)?
    private var wakePipe: WakePipe?
    private var clients: [Int32: Client] = [:]
    private var nextNumber = 0
    private let started = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    /// ``beginStop()`` was called: the listener closes, no request begins.
    private let stopBegun = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let connectionCount = Atomic<Int>(0)
    /// Client sockets still open, counted against `daemon.max_connections`: a connection the
    /// server let go can keep its socket while an answer waits for the journal.
    private let openSockets = Atomic<Int>(0)
    /// Set by the poll thread when `accept` ran out of descriptors: it stops asking for new
    /// clients (which would return at once, forever) until a socket closes or a second passes.
    private var acceptPaused: (sockets: Int, since: Duration)?
    /// Set while a wake byte sits unread in the pipe, so a burst of answers costs one write.
    private let wakePending = Atomic<Bool>(false)

    private final class Client {
        let connection: ClientConnection
        /// Batches of complete lines, one batch per read: one task wake-up per read, not per line.
        let lines: AsyncStream<[[UInt8]]>.Continuation
        var partial: [UInt8] = []
        var discardingLongLine = false
        var inputClosed = false
        /// Counted in ``perUser`` (not a privileged peer).
        var counted = false
        /// When bytes last came in (the server's clock), for the timeouts.
        var lastHeard: Duration
        /// When the first byte of the unfinished line came in: the partial-line timeout runs from
        /// there, so a byte now and then cannot keep a half line open.
        var lineStarted: Duration?
        init(connection: ClientConnection, lines: AsyncStream<[[UInt8]]>.Continuation, now: Duration) {
            self.connection = connection
            self.lines = lines
            lastHeard = now
        }
    }

    public init(path: String, mode: UInt32, group: String?, policy: AccessPolicy, maximumLine: Int,
                logger: Logger, maximumConnections: Int = SocketServer.defaultMaximumConnections,
                limits: ConnectionLimits = ConnectionLimits(),
                privileged: @escaping @Sendable (PeerCredentials) -> Bool = { $0.uid == 0 || $0.uid == geteuid() },
                clock: @escaping @Sendable () -> Duration = { MonotonicClock.now },
                stopAnnounced: @escaping @Sendable () -> Bool = { false },
                handler: @escaping Handler, refusal: @escaping Refusal,
                settle: @escaping Settle = { _, done in done(nil) }) throws(SocketError) {
        self.path = path
        self.limits = limits
        self.privileged = privileged
        self.clock = clock
        self.stopAnnounced = stopAnnounced
        budget = OutboundBudget(limit: limits.bufferedBytes)
        self.maximumConnections = Self.connectionsTheDescriptorLimitAllows(maximumConnections, logger: logger)
        self.mode = mode
        self.policy = policy
        self.logger = logger
        self.handler = handler
        self.refusal = refusal
        self.settle = settle
        self.maximumLine = maximumLine
        if let group {
            guard let entry = getgrnam(group) else { throw SocketError("socket group '\(group)' does not exist (create it: groupadd \(group))") }
            groupID = entry.pointee.gr_gid
        } else {
            groupID = nil
        }
    }

    /// Descriptors nookd needs besides its clients' (listener, wake pipes, journal, display,
    /// inputs, fonts, timers), with room to spare.
    static let descriptorsBesidesClients = 64

    /// `daemon.max_connections`, or fewer when the descriptor limit cannot hold that many.
    static func connectionsTheDescriptorLimitAllows(_ wanted: Int, logger: Logger) -> Int {
        let (allowed, warning) = DescriptorLimit.connectionsAllowed(wanted, besides: descriptorsBesidesClients, setting: "daemon.max_connections")
        if let warning { logger.warning("\(warning)") }
        return allowed
    }

    /// Open connections, for status and tests.
    public var openConnections: Int { connectionCount.load(ordering: .relaxed) }

    /// Bytes waiting for clients to read them, all connections together (status).
    public var bufferedBytes: Int { budget.buffered }

    /// Creates the socket (replacing a stale one, never a live daemon's) and starts serving.
    public func start() throws(SocketError) {
        guard let address = UnixSocketAddress(path: path) else {
            throw SocketError("socket path \(path) is longer than the \(UnixSocketAddress.maximumPathLength) bytes a Unix socket allows")
        }
        try prepareDirectory()
        try replaceStaleSocket(address)
        do throws(SystemCallError) {
            let listener = try FileDescriptor.unixSocket(SOCK_STREAM, nonBlocking: true, name: path)
            try address.withSocketAddress { raw, length in
                Result { () throws(SystemCallError) in try System.bind(listener.rawValue, raw, length, subject: path) }
            }.get()
            let created = try? fileStatus(path, followingLinks: false)
            if let created { socketFile = (UInt64(created.st_dev), UInt64(created.st_ino)) }
            do throws(SystemCallError) {
                // chmod/chown after bind: the socket file is created with the umask's mode.
                try System.changeMode(path, mode_t(mode))
                // Under the shipped unit the socket is born in the nook group (nookd's own) and chown is
                // filtered out (@privileged): change the group only when it is not already the one asked for.
                let currentGroup = created?.st_gid
                if let groupID, groupID != currentGroup {
                    try System.changeGroup(path, groupID)
                }
                try System.listen(listener.rawValue, backlog: 128, subject: path)
                wakePipe = try WakePipe()
            } catch {
                removeSocketFile()
                throw error
            }
            self.listener = listener
        } catch {
            throw SocketError(error)
        }
        started.store(true, ordering: .releasing)
        startThread(named: "nookd.socket") { self.pollLoop() }
    }

    /// The first step of a stop, at once when nookd is asked to stop: the socket file goes (no
    /// new connection can reach nookd), every connection still in the listen backlog is told
    /// that nothing of it was carried out and closed, and no request of any connection begins
    /// from now on. Those begun finish, and their answers go out, until ``stop()``.
    public func beginStop() {
        guard !stopBegun.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakeUp()
    }

    /// What a connection nookd will not serve because it stops is told: nothing of it was done.
    static let stoppingError = ProtocolError(.unavailable, "nookd is stopping: nothing of this connection was carried out")

    /// What a served connection is told last at a stop; its `started_through` says which of
    /// its requests were begun (``StoppingLine``).
    static let stoppedError = ProtocolError(.unavailable, "nookd is stopping: requests after started_through were not carried out")

    /// Stops accepting, closes every connection (each told which of its requests nookd began)
    /// and removes the socket file.
    public func stop() {
        guard started.load(ordering: .acquiring), !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakeUp()
        finished.wait()
    }

    /// Removes the socket file if it is still the one this server bound: a nookd started while
    /// this one shuts down (a restart) may already have replaced it, and must keep its own.
    private func removeSocketFile() {
        guard let socketFile, let current = try? fileStatus(path, followingLinks: false),
              UInt64(current.st_dev) == socketFile.device, UInt64(current.st_ino) == socketFile.inode else { return }
        _ = try? removeFile(path)
    }

    private func prepareDirectory() throws(SocketError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let directory = String(path[..<slash])
        if (try? fileStatus(directory)) != nil { return }
        do throws(SystemCallError) { try makeDirectory(directory, mode: 0o755) } catch { throw SocketError(error) }
    }

    /// A socket file left by a dead daemon is replaced; a live daemon's is never stolen.
    private func replaceStaleSocket(_ address: UnixSocketAddress) throws(SocketError) {
        guard let info = try? fileStatus(path, followingLinks: false) else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw SocketError("\(path) exists and is not a socket; refusing to replace it")
        }
        let probe: FileDescriptor
        do throws(SystemCallError) { probe = try FileDescriptor.unixSocket(SOCK_STREAM, name: path) } catch { throw SocketError(error) }
        if (try? probe.connect(to: address)) != nil {
            throw SocketError("another nookd is already listening on \(path); stop it first (or pass --socket PATH)")
        }
        logger.notice("replacing stale socket left by a daemon that is gone", metadata: ["path": "\(path)"])
        do throws(SystemCallError) { try removeFile(path) } catch { throw SocketError(error) }
    }

    private func socketClosed() {
        openSockets.subtract(1, ordering: .relaxed)
        wakeUp()
    }

    private func wakeUp() {
        guard !wakePending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakePipe?.wake()
    }

    // MARK: The poll loop

    private func pollLoop() {
        guard let wakePipe else { return }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !stopping.load(ordering: .acquiring) {
            if let paused = acceptPaused, openSockets.load(ordering: .relaxed) < paused.sockets || MonotonicClock.now - paused.since >= .seconds(1) {
                acceptPaused = nil
            }
            // (A negative descriptor is skipped by poll: the listener is gone once a stop began.)
            var fds = [pollfd(fd: listener?.rawValue ?? -1, events: acceptPaused == nil ? Int16(POLLIN) : 0, revents: 0), wakePipe.pollEntry]
            for (fd, client) in clients {
                fds.append(pollfd(fd: fd, events: client.connection.pollEvents(inputOpen: !client.inputClosed), revents: 0))
            }
            var timeout: Int32 = acceptPaused == nil ? -1 : 1000
            if let next = closeTimedOut() {
                let wait = max(Duration.zero, next - clock())
                let milliseconds = Int32(clamping: wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000 + 1)
                timeout = timeout < 0 ? milliseconds : min(timeout, milliseconds)
            }
            do throws(SystemCallError) {
                _ = try pollDescriptors(&fds, timeoutMilliseconds: timeout)
            } catch {
                logger.error("\(error)")
                break
            }
            if fds[1].revents != 0 {
                // Drain first, then clear: a byte written after the clear stays in the pipe and
                // wakes the next poll; clearing first could swallow it and leave the flag set.
                wakePipe.drain()
                wakePending.store(false, ordering: .releasing)
            }
            // Before anything is accepted or read: a stop announced while this thread was
            // away (stopped, or not yet scheduled) wins over what waited for it meanwhile.
            if listener != nil, stopBegun.load(ordering: .acquiring) || stopAnnounced() {
                closeListener()
            } else if let listener, fds[0].revents & Int16(POLLIN) != 0 {
                acceptClients(on: listener)
            }
            for entry in fds.dropFirst(2) where entry.revents != 0 {
                guard let client = clients[entry.fd] else { continue }
                if entry.revents & Int16(POLLIN) != 0 { readFrom(client, buffer: &buffer) }
                if entry.revents & Int16(POLLOUT) != 0 { client.connection.flush() }
                if entry.revents & Int16(POLLHUP | POLLERR) != 0 && entry.revents & Int16(POLLIN) == 0 { clientHungUp(client, buffer: &buffer) }
            }
            if budget.isExceeded { dropSlowest() }
            reapClosed()
        }
        closeListener()
        for client in clients.values { client.connection.closeStopping(Self.stoppedError) }
        reapClosed()
        // The wake pipe stays: connections may still wake.
        finished.signal()
    }

    /// The socket file goes first, so no connection can reach nookd by its path any more; then
    /// every connection already in the listen backlog is taken and told that nothing of it
    /// was carried out (a connection the closing listener dropped would see only a reset, and
    /// its client could not tell a request never read from one nookd may have done); then the
    /// listener closes. No request of a served connection begins from now on.
    private func closeListener() {
        guard let listener else { return }
        removeSocketFile()
        let line = ResponseLine.failure(id: nil, error: Self.stoppingError).encoded() + "\n"
        var told = 0
        while true {
            let accepted = acceptOne(on: listener)
            guard case .success(let fd?) = accepted else {
                if case .failure(let failure) = accepted, AcceptFailure(errno: failure.errno) == .connectionLost { continue }
                break
            }
            let socket = FileDescriptor(owning: fd, name: "connection in the backlog")
            _ = line.withCString { text in try? System.sendIfReady(socket.rawValue, text, strlen(text), flags: Int32(MSG_NOSIGNAL | MSG_DONTWAIT), subject: path) }
            told += 1
        }
        // Its last owner: the listening socket closes here.
        self.listener = nil
        for client in clients.values { client.connection.stopBeginning() }
        logger.debug("stopping: the socket is closed to new connections", metadata: ["told": "\(told)", "served": "\(clients.count)"])
    }

    /// One connection from the backlog (nil when it is empty), accepted and marked close-on-exec
    /// with no child spawning in between (ChildSpawns): what nookd starts (escalation hooks) must
    /// not hold a client's connection open.
    private func acceptOne(on listener: FileDescriptor) -> Result<Int32?, SystemCallError> {
        ChildSpawns.exclusively { () -> Result<Int32?, SystemCallError> in
            Result { () throws(SystemCallError) in
                guard let fd = try System.acceptIfReady(listener.rawValue, nil, nil, subject: path) else { return nil }
                try? System.setCloseOnExec(fd, subject: path)
                return fd
            }
        }
    }

    private func acceptClients(on listener: FileDescriptor) {
        while true {
            let accepted = acceptOne(on: listener)
            let fd: Int32
            switch accepted {
            case .success(nil): return
            case .success(let descriptor?): fd = descriptor
            case .failure(let failure):
                switch AcceptFailure(errno: failure.errno) {
                case .drained: return
                case .connectionLost:
                    logger.debug("\(failure)")
                    continue
                case .starved:
                    let now = MonotonicClock.now
                    acceptPaused = (openSockets.load(ordering: .relaxed), now)
                    if let count = starvedNotes.admit(at: now) {
                        logger.warning("\(failure); not accepting new clients until a connection closes or a second passes", metadata: ["failures": "\(count)"])
                    }
                    return
                }
            }
            nextNumber += 1
            let socket = FileDescriptor(owning: fd, name: "connection \(nextNumber)")
            if openSockets.load(ordering: .relaxed) >= maximumConnections {
                refuse(socket, limits.refusal(open: maximumConnections, ofUser: 0, maximum: maximumConnections, privileged: true, uid: 0) ?? "")
                continue
            }
            let peer: PeerCredentials
            do throws(SystemCallError) {
                try socket.setNonBlocking()
                peer = try PeerCredentials.of(socket)
            } catch {
                logger.warning("\(error); closing the connection")
                continue
            }
            guard policy.allows(peer) else {
                logger.warning("refused a client that is not allowed", metadata: ["peer": "\(peer)"])
                let refusal = ResponseLine.failure(id: nil, error: ProtocolError(.forbidden, "uid \(peer.uid) is not allowed to use nookd")).encoded() + "\n"
                _ = refusal.withCString { line in try? System.sendIfReady(fd, line, strlen(line), flags: Int32(MSG_NOSIGNAL), subject: path) }
                continue
            }
            let isPrivileged = privileged(peer)
            if let reason = limits.refusal(open: openSockets.load(ordering: .relaxed), ofUser: perUser[peer.uid] ?? 0,
                                           maximum: maximumConnections, privileged: isPrivileged, uid: peer.uid) {
                refuse(socket, reason, peer: peer)
                continue
            }
            openSockets.add(1, ordering: .relaxed)
            if !isPrivileged { perUser[peer.uid, default: 0] += 1 }
            let connection = ClientConnection(socket: socket, peer: peer, number: nextNumber, wake: { [weak self] in self?.wakeUp() },
                                              settle: settle, released: { [weak self] in self?.socketClosed() }, budget: budget, clock: clock)
            logger.debug("client connected", metadata: ["peer": "\(peer)", "connection": "\(nextNumber)"])
            let (batches, continuation) = AsyncStream<[[UInt8]]>.makeStream()
            let client = Client(connection: connection, lines: continuation, now: clock())
            client.counted = !isPrivileged
            clients[fd] = client
            connectionCount.add(1, ordering: .relaxed)
            let handler = self.handler
            Task {
                for await batch in batches {
                    // The handler answers the lines in order, holding the output of each.
                    await handler(connection, batch)
                    // Released once the records the answers depend on are settled, without
                    // waiting here: the next batch's records join the sync in flight.
                    await connection.releaseOutputWhenSettled()
                    connection.answered(lines: batch.count)
                }
                connection.finishWhenFlushed()
            }
        }
    }

    /// Past `daemon.max_connections` (or the newcomer's share of it), a newcomer hears why and
    /// is closed: idle connections must not use up nookd's descriptors. Logged once, then at most
    /// every 10 s while it lasts. The socket closes with its owner when this returns.
    private func refuse(_ socket: FileDescriptor, _ reason: String, peer: PeerCredentials? = nil) {
        let refusal = ResponseLine.failure(id: nil, error: ProtocolError(.unavailable, reason)).encoded() + "\n"
        _ = refusal.withCString { line in try? System.sendIfReady(socket.rawValue, line, strlen(line), flags: Int32(MSG_NOSIGNAL), subject: path) }
        guard let refused = limitNotes.admit(at: MonotonicClock.now) else { return }
        logger.warning("refusing new connections: \(reason)", metadata: ["refused": "\(refused)", "peer": "\(peer.map { "\($0)" } ?? "unknown")"])
    }

    /// Closes connections past their timeouts (``ConnectionLimits/verdict``); returns when the
    /// next one falls due, if any.
    private func closeTimedOut() -> Duration? {
        guard !clients.isEmpty else { return nil }
        let now = clock()
        var next: Duration?
        // A client held back for answers it does not read is judged whether or not it has
        // closed its sending side: it may have sent everything and then stopped reading.
        let open = clients.values.filter { !$0.connection.isClosed }.map { ($0, $0.connection.activity) }
            .filter { !$0.0.inputClosed || $0.1.unreadSince != nil }
        // A process that streams (a bridge's watch) keeps as many of its other connections from
        // idling as it has streams, its most recently active ones: one watch must not shelter a
        // crowd of idle connections of the same process.
        var streams: [Int32: Int] = [:]
        for (client, activity) in open where activity.answering { streams[client.connection.peer.pid, default: 0] += 1 }
        var companions = Set<Int32>()
        let sheltered = open.filter { !$0.1.answering && streams[$0.0.connection.peer.pid] != nil }
        for (pid, count) in streams {
            let ofProcess = sheltered.filter { $0.0.connection.peer.pid == pid }
                .sorted { (max($0.0.lastHeard, $0.1.lastAnswered), $0.0.connection.number) > (max($1.0.lastHeard, $1.1.lastAnswered), $1.0.connection.number) }
            for (client, _) in ofProcess.prefix(count) { companions.insert(client.connection.fd) }
        }
        for (client, activity) in open {
            let verdict = limits.verdict(partial: !client.partial.isEmpty || client.discardingLongLine, answering: activity.answering,
                                         companion: companions.contains(client.connection.fd), lastHeard: client.lastHeard,
                                         lineStarted: client.lineStarted, lastAnswered: activity.lastAnswered,
                                         unreadSince: activity.unreadSince, now: now)
            let reason: String
            switch verdict {
            case .keep(let until):
                if let until { next = min(next ?? until, until) }
                continue
            case .unread:
                let waiting = client.connection.backlog
                client.partial = []
                client.connection.markClosed(droppedForNotReading: true)
                if let count = idleNotes.admit(at: now) {
                    logger.notice("dropped connection \(client.connection.number): it read none of the \(waiting) bytes of answers waiting for it for \(limits.unreadTimeout) (daemon.unread_timeout); its requests not yet answered are not carried out",
                                  metadata: ["peer": "\(client.connection.peer)", "closed": "\(count)"])
                }
                continue
            case .partialLine:
                reason = "sent part of a line and nothing more for \(limits.partialLineTimeout) (daemon.partial_line_timeout)"
            case .idle:
                reason = "idle for \(limits.idleTimeout) with no request or stream (daemon.idle_timeout)"
            }
            // An idle client hears nothing: its next request then fails as a lost connection,
            // which clients (bridges) answer by connecting again.
            close(client, saying: verdict == .idle ? nil : ProtocolError(.unavailable, "nookd closed this connection: it \(reason)"))
            let admitted = verdict == .idle ? idleNotes.admit(at: now) : partialLineNotes.admit(at: now)
            if let count = admitted {
                logger.notice("closed connection \(client.connection.number): it \(reason)",
                              metadata: ["peer": "\(client.connection.peer)", "closed": "\(count)"])
            }
        }
        return next
    }

    /// Tells the client why (if its socket has room for the line) and closes the connection.
    private func close(_ client: Client, saying error: ProtocolError?) {
        if let error, client.connection.backlog == 0 {
            let line = ResponseLine.failure(id: nil, error: error).encoded() + "\n"
            _ = line.withCString { text in try? System.sendIfReady(client.connection.fd, text, strlen(text), flags: Int32(MSG_NOSIGNAL), subject: path) }
        }
        client.partial = []
        client.connection.markClosed(droppedForNotReading: true)
    }

    /// The clients' buffers together passed `daemon.max_buffered_bytes`: the connections with
    /// the most waiting unread are dropped until the total is back under it, those that do not
    /// read (their socket full) before those that do (held back, reading at their pace). Each sees the end
    /// of its stream (end of file) once it reads what its socket already holds.
    private func dropSlowest() {
        let slowest = clients.values.map { ($0, $0.connection.backlog, $0.connection.isUnread) }.filter { $0.1 > 0 }
            .sorted { ($0.2 ? 1 : 0, $0.1) > ($1.2 ? 1 : 0, $1.1) }
        for (client, waiting, _) in slowest {
            guard budget.isExceeded else { break }
            let total = budget.buffered
            client.connection.markClosed(droppedForNotReading: true)
            // Each drop is named: one needs megabytes left unread, so they cannot flood the log.
            logger.warning("dropped connection \(client.connection.number) (\(client.connection.peer)): \(waiting) bytes waited for it unread, and clients' buffers held \(total), over daemon.max_buffered_bytes (\(budget.limit))")
        }
    }

    /// The peer is gone (POLLHUP) while this loop was not asking for its input, because its
    /// requests were at the in-flight limit.
    private func clientHungUp(_ client: Client, buffer: inout [UInt8]) {
        readRemaining(client, buffer: &buffer)
        client.connection.markClosed()
    }

    /// Reads what a client that went away had sent before it went: each line is a request it
    /// was promised would be handled (a fire-and-forget burst that hangs up at once, or hangs
    /// up while nookd had stopped reading at the in-flight limit). Bounded by the socket's
    /// receive buffer. A client dropped for not reading answers is not read further.
    private func readRemaining(_ client: Client, buffer: inout [UInt8]) {
        guard !client.connection.wasDropped else { return }
        while !client.inputClosed, readFrom(client, buffer: &buffer) {}
    }

    /// Reads once; false when nothing could be read now (would block, or the read failed).
    @discardableResult
    private func readFrom(_ client: Client, buffer: inout [UInt8]) -> Bool {
        let read: Int?
        do throws(SystemCallError) {
            read = try System.readIfReady(client.connection.fd, &buffer, buffer.count, subject: path)
        } catch {
            client.connection.markClosed()
            return false
        }
        let now = clock()
        guard let count = read else { return false }
        if count > 0 { client.lastHeard = now }
        if count == 0 {
            // A last request without its newline (`printf '{…}' | socat - UNIX:…`) is still one.
            if !client.partial.isEmpty, let line = completeLine(client, []) {
                client.connection.received(lines: 1)
                client.lines.yield([line])
            }
            client.inputClosed = true
            client.lines.finish()
            return true
        }
        var start = 0
        var batch: [[UInt8]] = []
        for index in 0..<count where buffer[index] == 0x0A {
            if let line = completeLine(client, buffer[start..<index]) { batch.append(line) }
            start = index + 1
        }
        if !batch.isEmpty {
            client.connection.received(lines: batch.count)
            client.lines.yield(batch)
        }
        if start > 0 {
            client.lineStarted = start < count ? now : nil
        } else if client.lineStarted == nil {
            client.lineStarted = now
        }
        if start < count {
            if client.discardingLongLine { return true }
            client.partial.append(contentsOf: buffer[start..<count])
            if client.partial.count > maximumLine {
                refusal(client.connection, .tooLong(bytes: client.partial.count))
                client.partial = []
                client.discardingLongLine = true
            }
        }
        return true
    }

    /// A complete line (the bytes before a newline, after what an earlier read left) for the
    /// connection's handler task, or nil for an empty line or one refused as too long.
    private func completeLine(_ client: Client, _ tail: ArraySlice<UInt8>) -> [UInt8]? {
        if client.discardingLongLine {
            client.discardingLongLine = false
            client.partial = []
            return nil
        }
        var line = client.partial
        line.append(contentsOf: tail)
        client.partial = []
        if line.last == 0x0D { line.removeLast() }
        if line.isEmpty { return nil }
        if line.count > maximumLine {
            refusal(client.connection, .tooLong(bytes: line.count))
            return nil
        }
        return line
    }

    /// Lets go of connections that are done; each closes its socket when its last holder does.
    private func reapClosed() {
        var buffer: [UInt8] = []
        for (fd, client) in clients {
            guard client.connection.isDone(inputClosed: client.inputClosed) else { continue }
            if !client.inputClosed && !stopping.load(ordering: .acquiring) {
                if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: 65536) }
                readRemaining(client, buffer: &buffer)
            }
            client.connection.markClosed()
            client.lines.finish()
            clients.removeValue(forKey: fd)
            if client.counted {
                let uid = client.connection.peer.uid
                if let held = perUser[uid], held > 1 { perUser[uid] = held - 1 } else { perUser[uid] = nil }
            }
            connectionCount.subtract(1, ordering: .relaxed)
            logger.debug("client disconnected", metadata: ["connection": "\(client.connection.number)"])
        }
    }
}

