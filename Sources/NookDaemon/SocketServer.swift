#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Logging
import Synchronization

/// `struct ucred` as Linux lays it out for `SO_PEERCRED` (Swift's Glibc module hides the
/// `_GNU_SOURCE` declaration).
struct LinuxPeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// Who is on the other end of a connection (`SO_PEERCRED`).
public struct PeerCredentials: Hashable, Sendable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}

/// A failure setting up or running the socket, naming the call and errno.
public struct SocketError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    static func call(_ name: String, _ detail: String = "", code: Int32 = errno) -> SocketError {
        SocketError("'\(name)' failed\(detail.isEmpty ? "" : " for \(detail)"): (\(code)) \(String(cString: strerror(code)))")
    }
    public var description: String { message }
}

/// Which peers may connect (C4): root and the daemon's own user always; otherwise everyone
/// who can open the socket (its mode and group decide), unless an allow-list is set.
public struct AccessPolicy: Sendable {
    public var allowedUIDs: Set<UInt32>
    public var allowedGIDs: Set<UInt32>
    /// User names that are members of an allowed group (from the group database).
    public var allowedMembers: Set<String>

    public init(uids: [UInt32] = [], groups: [String] = []) throws(SocketError) {
        allowedUIDs = Set(uids)
        allowedGIDs = []
        allowedMembers = []
        for name in groups {
            guard let group = getgrnam(name) else { throw SocketError("allowed group '\(name)' does not exist") }
            allowedGIDs.insert(group.pointee.gr_gid)
            var member = group.pointee.gr_mem
            while let name = member?.pointee {
                allowedMembers.insert(String(cString: name))
                member = member?.successor()
            }
        }
    }

    var isOpen: Bool { allowedUIDs.isEmpty && allowedGIDs.isEmpty }

    func allows(_ peer: PeerCredentials) -> Bool {
        if isOpen || peer.uid == 0 || peer.uid == geteuid() { return true }
        if allowedUIDs.contains(peer.uid) || allowedGIDs.contains(peer.gid) { return true }
        if let user = getpwuid(peer.uid) { return allowedMembers.contains(String(cString: user.pointee.pw_name)) }
        return false
    }
}

/// The Unix stream socket nookd listens on (C1, C4): newline-delimited lines in, lines out.
///
/// One poll loop on its own thread does all socket I/O; each connection's lines go, in order,
/// to one task that runs `handler` for each. The listening socket, each client fd and the wake
/// pipe are owned here and closed by `stop()`.
public final class SocketServer: @unchecked Sendable {
    public typealias Handler = @Sendable (ClientConnection, [UInt8]) async -> Void
    public typealias Refusal = @Sendable (ClientConnection, LineProblem) -> Void
    /// Returns once what answers depend on (journal records up to a mark, see
    /// ``ClientConnection/dependOn(_:)``) is safe; answers held until then.
    public typealias Settle = @Sendable (_ mark: UInt64) async -> Void

    /// A line the server refused before any handler saw it.
    public enum LineProblem: Sendable {
        case tooLong(bytes: Int)
    }

    public static let maximumInFlight = 256

    private let path: String
    private let mode: UInt32
    private let groupID: gid_t?
    private let policy: AccessPolicy
    private let logger: Logger
    private let handler: Handler
    private let refusal: Refusal
    private let settle: Settle
    private let maximumLine: Int

    // Touched only by the poll thread after start().
    private var listener: Int32 = -1
    /// The socket file this server created (device, inode), so that it removes only its own.
    private var socketFile: (device: UInt64, inode: UInt64)?
    private var wakeRead: Int32 = -1
    private var wakeWrite: Int32 = -1
    private var clients: [Int32: Client] = [:]
    private var nextNumber = 0
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let connectionCount = Atomic<Int>(0)
    /// Set while a wake byte sits unread in the pipe, so a burst of answers costs one write.
    private let wakePending = Atomic<Bool>(false)

    private final class Client {
        let connection: ClientConnection
        /// Batches of complete lines, one batch per read: one task wake-up per read, not per line.
        let lines: AsyncStream<[[UInt8]]>.Continuation
        var partial: [UInt8] = []
        var discardingLongLine = false
        var inputClosed = false
        init(connection: ClientConnection, lines: AsyncStream<[[UInt8]]>.Continuation) {
            self.connection = connection
            self.lines = lines
        }
    }

    public init(path: String, mode: UInt32, group: String?, policy: AccessPolicy, maximumLine: Int,
                logger: Logger, handler: @escaping Handler, refusal: @escaping Refusal,
                settle: @escaping Settle = { _ in }) throws(SocketError) {
        self.path = path
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

    /// Open connections, for status and tests.
    public var openConnections: Int { connectionCount.load(ordering: .relaxed) }

    /// Creates the socket (replacing a stale one, never a live daemon's) and starts serving.
    public func start() throws(SocketError) {
        guard path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw SocketError("socket path \(path) is longer than the \(MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1) bytes a Unix socket allows")
        }
        try prepareDirectory()
        try replaceStaleSocket()
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard listener >= 0 else { throw .call("socket") }
        var address = Self.address(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { let error = SocketError.call("bind", path); close(listener); throw error }
        var created = stat()
        if lstat(path, &created) == 0 { socketFile = (UInt64(created.st_dev), UInt64(created.st_ino)) }
        // chmod/chown after bind: the socket file is created with the umask's mode.
        guard chmod(path, mode_t(mode)) == 0 else { let error = SocketError.call("chmod", path); cleanupListener(); throw error }
        // Under the shipped unit the socket is born in the nook group (nookd's own) and chown is
        // filtered out (@privileged): change the group only when it is not already the one asked for.
        let currentGroup = socketFile != nil ? created.st_gid : nil
        if let groupID, groupID != currentGroup, chown(path, uid_t.max, groupID) != 0 {
            let error = SocketError.call("chown", path); cleanupListener(); throw error
        }
        guard listen(listener, 128) == 0 else { let error = SocketError.call("listen", path); cleanupListener(); throw error }
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { let error = SocketError.call("pipe"); cleanupListener(); throw error }
        (wakeRead, wakeWrite) = (pipeFDs[0], pipeFDs[1])
        for fd in pipeFDs { Self.makeNonBlocking(fd) }
        DispatchQueue(label: "nookd.socket").async { self.pollLoop() }
    }

    /// Stops accepting, closes every connection and removes the socket file.
    public func stop() {
        guard listener >= 0, !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakeUp()
        finished.wait()
    }

    private func cleanupListener() {
        close(listener)
        removeSocketFile()
        listener = -1
    }

    /// Removes the socket file if it is still the one this server bound: a nookd started while
    /// this one shuts down (a restart) may already have replaced it, and must keep its own.
    private func removeSocketFile() {
        var current = stat()
        guard let socketFile, lstat(path, &current) == 0,
              UInt64(current.st_dev) == socketFile.device, UInt64(current.st_ino) == socketFile.inode else { return }
        unlink(path)
    }

    private func prepareDirectory() throws(SocketError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let directory = String(path[..<slash])
        var info = stat()
        if stat(directory, &info) == 0 { return }
        guard mkdir(directory, 0o755) == 0 || errno == EEXIST else { throw .call("mkdir", directory) }
    }

    /// A socket file left by a dead daemon is replaced; a live daemon's is never stolen.
    private func replaceStaleSocket() throws(SocketError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw SocketError("\(path) exists and is not a socket; refusing to replace it")
        }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw .call("socket") }
        defer { close(probe) }
        var address = Self.address(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if connected == 0 {
            throw SocketError("another nookd is already listening on \(path); stop it first (or pass --socket PATH)")
        }
        logger.notice("replacing stale socket left by a daemon that is gone", metadata: ["path": "\(path)"])
        guard unlink(path) == 0 else { throw .call("unlink", path) }
    }

    /// Non-blocking and close-on-exec (what `accept4`/`pipe2` would set; Swift's Glibc module
    /// does not expose those `_GNU_SOURCE` calls).
    static func makeNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() where index < buffer.count - 1 { buffer[index] = byte }
        }
        return address
    }

    private func wakeUp() {
        guard !wakePending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    // MARK: The poll loop

    private func pollLoop() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !stopping.load(ordering: .acquiring) {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            for (fd, client) in clients {
                var events: Int16 = 0
                let (pendingOutput, inFlight) = client.connection.state.withLock { ($0.outbound.count > $0.written, $0.inFlight) }
                if !client.inputClosed && inFlight < Self.maximumInFlight { events |= Int16(POLLIN) }
                if pendingOutput { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: fd, events: events, revents: 0))
            }
            let ready = poll(&fds, nfds_t(fds.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                logger.error("\(SocketError.call("poll"))")
                break
            }
            if fds[1].revents != 0 {
                // Drain first, then clear: a byte written after the clear stays in the pipe and
                // wakes the next poll; clearing first could swallow it and leave the flag set.
                while read(wakeRead, &buffer, buffer.count) > 0 {}
                wakePending.store(false, ordering: .releasing)
            }
            if fds[0].revents & Int16(POLLIN) != 0 { acceptClients() }
            for entry in fds.dropFirst(2) where entry.revents != 0 {
                guard let client = clients[entry.fd] else { continue }
                if entry.revents & Int16(POLLIN) != 0 { readFrom(client, buffer: &buffer) }
                if entry.revents & Int16(POLLOUT) != 0 { writeTo(client) }
                if entry.revents & Int16(POLLHUP | POLLERR) != 0 && entry.revents & Int16(POLLIN) == 0 { client.connection.markClosed() }
            }
            reapClosed()
        }
        for client in clients.values { client.connection.markClosed() }
        reapClosed()
        close(listener)
        removeSocketFile()
        close(wakeRead)
        close(wakeWrite)
        listener = -1
        finished.signal()
    }

    private func acceptClients() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK { logger.warning("\(SocketError.call("accept"))") }
                return
            }
            Self.makeNonBlocking(fd)
            var credentials = LinuxPeerCredentials()
            var length = socklen_t(MemoryLayout<LinuxPeerCredentials>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else {
                logger.warning("\(SocketError.call("getsockopt", "SO_PEERCRED")); closing the connection")
                close(fd)
                continue
            }
            let peer = PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
            nextNumber += 1
            let connection = ClientConnection(fd: fd, peer: peer, number: nextNumber, wake: { [weak self] in self?.wakeUp() },
                                              settle: settle)
            guard policy.allows(peer) else {
                logger.warning("refused a client that is not allowed", metadata: ["peer": "\(peer)"])
                let refusal = #"{"v":1,"ok":false,"error":{"code":"forbidden","message":"uid \#(peer.uid) is not allowed to use nookd"}}"# + "\n"
                _ = refusal.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                close(fd)
                continue
            }
            logger.debug("client connected", metadata: ["peer": "\(peer)", "connection": "\(nextNumber)"])
            let (batches, continuation) = AsyncStream<[[UInt8]]>.makeStream()
            clients[fd] = Client(connection: connection, lines: continuation)
            connectionCount.add(1, ordering: .relaxed)
            let handler = self.handler
            Task {
                for await batch in batches {
                    for line in batch {
                        // Held again after a request that streamed (and released) mid-batch.
                        connection.holdOutput()
                        await handler(connection, line)
                    }
                    // One wait for the whole batch: a pipelined burst shares its syncs.
                    await connection.releaseOutputWhenSettled()
                    // The poll thread stops reading a connection at the in-flight limit: wake it
                    // only when this batch takes the connection back under it.
                    let wasAtLimit = connection.state.withLock { state -> Bool in
                        defer { state.inFlight -= batch.count }
                        return state.inFlight >= SocketServer.maximumInFlight
                    }
                    if wasAtLimit { connection.nudge() }
                }
                connection.state.withLock { $0.finishWhenFlushed = true }
                connection.nudge()
            }
        }
    }

    private func readFrom(_ client: Client, buffer: inout [UInt8]) {
        let count = read(client.connection.fd, &buffer, buffer.count)
        if count < 0 {
            if errno == EAGAIN || errno == EINTR { return }
            client.connection.markClosed()
            return
        }
        if count == 0 {
            client.inputClosed = true
            client.lines.finish()
            return
        }
        var start = 0
        var batch: [[UInt8]] = []
        for index in 0..<count where buffer[index] == 0x0A {
            if let line = completeLine(client, buffer[start..<index]) { batch.append(line) }
            start = index + 1
        }
        if !batch.isEmpty {
            client.connection.state.withLock { $0.inFlight += batch.count }
            client.lines.yield(batch)
        }
        if start < count {
            if client.discardingLongLine { return }
            client.partial.append(contentsOf: buffer[start..<count])
            if client.partial.count > maximumLine {
                refusal(client.connection, .tooLong(bytes: client.partial.count))
                client.partial = []
                client.discardingLongLine = true
            }
        }
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

    private func writeTo(_ client: Client) {
        let connection = client.connection
        let broken = connection.state.withLock { ClientConnection.writeOut(connection.fd, &$0) == .broken }
        if broken { connection.markClosed() }
    }

    private func reapClosed() {
        for (fd, client) in clients {
            let (closed, finished, flushed) = client.connection.state.withLock {
                ($0.closed, $0.finishWhenFlushed, $0.outbound.count == $0.written && $0.gated.isEmpty)
            }
            guard closed || (finished && flushed && client.inputClosed) else { continue }
            client.connection.markClosed()
            client.lines.finish()
            close(fd)
            clients.removeValue(forKey: fd)
            connectionCount.subtract(1, ordering: .relaxed)
            logger.debug("client disconnected", metadata: ["connection": "\(client.connection.number)"])
        }
    }
}

