import NookLogging
import NookActivities
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// `nook-lcdproc`: an LCDproc protocol 0.3 server (SPEC E8). One thread polls the listener
/// and every client; LCDd's commands run in ``LCDServerModel``; what is shown goes to nookd
/// through ``GlanceSender``. Nothing a client sends runs inside nookd.
public final class LCDServer {
    public struct Options: Sendable {
        public var bind = LCDBindAddress()
        public var grid = LCDGrid(width: 40, height: 4)
        public var limits = LCDLimits()
        /// Longest line read from a client (LCDd's ring holds 8 KiB).
        public var maximumLineBytes = LCDLineFramer.defaultMaximumLineBytes
        /// A client with this many bytes of answers it has not read is dropped.
        public var maximumBacklogBytes = 1 << 20
        /// Most clients connected at once; a newcomer past it is closed at once.
        public var maximumClients = 64
        /// Bytes read from one client per turn of the loop, so one busy client cannot starve the rest.
        public var readChunk = 65536
        /// The server menu's keys, two-key mode and timeout.
        public var menu = LCDMenuSettings()

        public init() {}
    }

    final class Connection {
        let socket: FileDescriptor
        let peer: String
        let id: LCDClientID
        var framer: LCDLineFramer
        var outgoing: [UInt8] = []
        var sent = 0
        var closing = false
        var overlong = 0

        init(socket: FileDescriptor, peer: String, id: LCDClientID, maximumLineBytes: Int) {
            (self.socket, self.peer, self.id) = (socket, peer, id)
            framer = LCDLineFramer(maximumLineBytes: maximumLineBytes)
        }

        var backlog: Int { outgoing.count - sent }
    }

    private let options: Options
    private let logger: Logger
    private let listener: TCPListener
    private let model: LCDServerModel
    private let sender: GlanceSender?
    private let stopPipe: WakePipe
    /// Keys pressed (from the inputs thread) and not yet given to a client.
    public let keys: LCDKeyInbox
    private var connections: [LCDClientID: Connection] = [:]
    private let started: Duration
    private var buffer = [UInt8](repeating: 0, count: 65536)
    /// Connections refused past `maximumClients` and not yet logged, and when the last such
    /// warning was: a flood of connections is one line per interval, with its count.
    private var refusedUnlogged = 0
    private var refusedLoggedAt: Duration?
    /// As the two above, for connections closed because no descriptor was left.
    private var droppedUnlogged = 0
    private var droppedLoggedAt: Duration?
    static let refusalLogInterval: Duration = .seconds(10)
    /// Lines answered since start (the benchmark's count of accepted updates).
    public let linesHandled = Locked(0)

    /// The port listened on (the kernel's choice if 0 was configured).
    public var port: UInt16 { listener.port }

    public init(options: Options, sender: GlanceSender?, logger: Logger) throws(SystemCallError) {
        self.options = options
        self.logger = logger
        self.sender = sender
        listener = try TCPListener(lcdproc: options.bind)
        model = LCDServerModel(grid: options.grid, limits: options.limits)
        model.menuSettings = options.menu
        stopPipe = try WakePipe()
        keys = try LCDKeyInbox()
        started = MonotonicClock.now
        if !options.bind.isLoopback {
            logger.warning("listening on \(options.bind.host), not loopback: LCDproc has no authentication, so anyone who can reach port \(listener.port) can draw on the glance")
        }
        logger.info("LCDproc server on \(options.bind.host):\(listener.port), a \(options.grid.width)x\(options.grid.height) grid")
    }

    /// Ends ``run()`` from any thread.
    public func stop() { stopPipe.wake() }

    /// ``stop()`` without the server, for a signal's thread.
    public var stopper: @Sendable () -> Void { { [stopPipe] in stopPipe.wake() } }

    /// LCDd's frame counter: eighths of a second since start.
    private var currentFrame: Int {
        Int((MonotonicClock.now - started) / .milliseconds(125))
    }

    public func run() throws(SystemCallError) {
        while true {
            var entries = [stopPipe.pollEntry, pollfd(fd: listener.socket.rawValue, events: Int16(POLLIN), revents: 0), keys.pipe.pollEntry]
            let order = connections.keys.sorted()
            for id in order {
                let connection = connections[id]!
                var events = Int16(POLLIN)
                if connection.backlog > 0 { events |= Int16(POLLOUT) }
                entries.append(pollfd(fd: connection.socket.rawValue, events: events, revents: 0))
            }
            // Wake at the next LCDd frame: rotation, timeouts and scrollers move with it.
            _ = try pollDescriptors(&entries, timeoutMilliseconds: 125)
            if entries[0].revents != 0 { break }
            if entries[1].revents != 0 { acceptAll() }
            for (offset, id) in order.enumerated() {
                let revents = entries[offset + 3].revents
                guard revents != 0, let connection = connections[id] else { continue }
                if revents & Int16(POLLOUT) != 0 { flush(connection) }
                if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { read(connection) }
            }
            model.advance(toFrame: currentFrame)
            logRefusals()
            if entries[2].revents != 0 { pressKeys() }
            deliver()
        }
        for id in Array(connections.keys) { drop(id, reason: nil) }
        sender?.stop()
    }

    private func pressKeys() {
        for key in keys.take() {
            let menuWasOpen = model.menuIsOpen
            if let client = model.press(key: key) {
                logger.debug("key \(key) to LCDproc client \(client.rawValue)")
            } else if menuWasOpen || model.menuIsOpen {
                logger.debug("key \(key) to the server menu (\(model.menuIsOpen ? "open" : "closed"))")
            } else {
                logger.debug("key \(key): no client reserved it")
            }
        }
    }

    private func acceptAll() {
        while true {
            let accepted: TCPListener.Connection?
            do { accepted = try listener.accept() } catch {
                guard error.errno == .tooManyOpenFiles || error.errno == .tooManyOpenFilesInSystem else {
                    logger.warning("\(error)")
                    return
                }
                // Out of descriptors: the newcomer is closed (it would otherwise keep the
                // listener readable, and this loop spinning on it), and said once a while.
                guard listener.dropPending() else { return }
                if let last = droppedLoggedAt, MonotonicClock.now - last < Self.refusalLogInterval {
                    droppedUnlogged += 1
                } else {
                    logger.warning("\(error); the connection waiting was closed")
                    droppedLoggedAt = MonotonicClock.now
                }
                continue
            }
            guard let accepted else { return }
            let (socket, peer) = (accepted.socket, accepted.peer)
            guard connections.count < options.maximumClients else {
                if let last = refusedLoggedAt, MonotonicClock.now - last < Self.refusalLogInterval {
                    refusedUnlogged += 1
                } else {
                    logger.warning("refused \(peer): already \(options.maximumClients) LCDproc clients (max_clients)")
                    refusedLoggedAt = MonotonicClock.now
                }
                continue  // closed with its owner
            }
            let id = model.connect()
            connections[id] = Connection(socket: socket, peer: peer, id: id, maximumLineBytes: options.maximumLineBytes)
            logger.info("LCDproc client \(id.rawValue) connected from \(peer)")
        }
    }

    /// The connections refused since the last warning, once its interval is over.
    private func logRefusals() {
        if droppedUnlogged > 0, let last = droppedLoggedAt, MonotonicClock.now - last >= Self.refusalLogInterval {
            logger.warning("closed \(droppedUnlogged) more LCDproc connection(s) in the last \(Self.refusalLogInterval): no descriptor left (RLIMIT_NOFILE)")
            droppedUnlogged = 0
            droppedLoggedAt = MonotonicClock.now
        }
        guard refusedUnlogged > 0, let last = refusedLoggedAt, MonotonicClock.now - last >= Self.refusalLogInterval else { return }
        logger.warning("refused \(refusedUnlogged) more LCDproc connection(s) in the last \(Self.refusalLogInterval): already \(options.maximumClients) clients (max_clients)")
        refusedUnlogged = 0
        refusedLoggedAt = MonotonicClock.now
    }

    private func read(_ connection: Connection) {
        let reading = buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(SystemCallError) in
                try System.readIfReady(connection.socket.rawValue, bytes.baseAddress, min(bytes.count, options.readChunk), subject: connection.socket.name)
            }
        }
        // End of file or a failed read: the client is gone. Nothing yet: wait for the next poll.
        guard case .success(let ready) = reading, ready != 0 else {
            drop(connection.id, reason: nil)
            return
        }
        guard let count = ready else { return }
        var items: [LCDLineFramer.Item] = []
        connection.framer.append(buffer[..<count], into: &items)
        var handled = 0
        for item in items {
            switch item {
            case .line(let line):
                model.receive(line, from: connection.id)
                handled += 1
            case .tooLong:
                connection.overlong += 1
                model.refuse(from: connection.id, "Line too long (more than \(options.maximumLineBytes) bytes)")
                if connection.overlong >= 16 {
                    logger.warning("LCDproc client \(connection.id.rawValue) (\(connection.peer)) sent 16 lines over \(options.maximumLineBytes) bytes; dropped")
                    drop(connection.id, reason: nil)
                    return
                }
            }
            if model.isGone(connection.id) { break }
        }
        linesHandled.withLock { $0 += handled }
        deliver()
    }

    private func queue(_ line: String, to connection: Connection) {
        LCDText.encode(line, into: &connection.outgoing)
        connection.outgoing.append(0x0A)
    }

    /// Hands the model's answers to their clients and what is shown to nookd.
    private func deliver() {
        for output in model.takeOutput() {
            guard let connection = connections[output.client] else { continue }
            if output.line.hasPrefix("huh? ") { logger.debug("LCDproc client \(output.client.rawValue): \(output.line)") }
            queue(output.line, to: connection)
        }
        for (id, connection) in connections {
            if connection.backlog > 0 { flush(connection) }
            guard connections[id] != nil else { continue }
            if connection.backlog > options.maximumBacklogBytes {
                logger.warning("LCDproc client \(id.rawValue) (\(connection.peer)) does not read its answers (\(connection.backlog) bytes waiting); dropped")
                drop(id, reason: nil)
            } else if model.isGone(id) && connection.backlog == 0 {
                drop(id, reason: "said bye")
            }
        }
        let cards = model.takeCards()
        for card in cards { logger.info("card for nookd: \"\(card.title)\" (\(card.priority))") }
        sender?.submit(cards: cards)
        submitGlance()
    }

    private func submitGlance() {
        guard model.glanceChanged else { return }
        let glance = model.glance()
        if model.menuIsOpen, logger.logLevel <= .debug {
            logger.debug("showing the server menu: \(glance?.lines.filter { !$0.isEmpty }.joined(separator: " | ") ?? "")")
        } else if let shown = model.shownScreen, logger.logLevel <= .debug {
            let title = glance?.lines.first { !$0.isEmpty } ?? ""
            logger.debug("showing screen \(shown.screen) of client \(shown.client.rawValue): \(title)")
        }
        sender?.submit(glance: glance)
        model.markGlanceSent()
    }

    private func flush(_ connection: Connection) {
        while connection.backlog > 0 {
            let sending = connection.outgoing.withUnsafeBytes { bytes in
                Result { () throws(SystemCallError) in
                    try System.sendIfReady(connection.socket.rawValue, bytes.baseAddress! + connection.sent, connection.outgoing.count - connection.sent,
                                           flags: Int32(MSG_NOSIGNAL | MSG_DONTWAIT), subject: connection.socket.name)
                }
            }
            guard case .success(let ready) = sending else {
                drop(connection.id, reason: nil)
                return
            }
            guard let count = ready else { break }
            connection.sent += count
        }
        if connection.backlog == 0 {
            connection.outgoing.removeAll(keepingCapacity: connection.outgoing.count <= 65536)
            connection.sent = 0
        } else if connection.sent > 65536 {
            connection.outgoing.removeFirst(connection.sent)
            connection.sent = 0
        }
    }

    private func drop(_ id: LCDClientID, reason: String?) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        model.disconnect(id)
        logger.info("LCDproc client \(id.rawValue) (\(connection.peer)) \(reason ?? "disconnected")")
        try? System.shutdown(connection.socket.rawValue, SHUT_RDWR)
        // The model forgot its screens: what is shown may have changed.
        submitGlance()
    }
}

/// Keys pressed (Nook's inputs, mapped by ``LCDKeyMap``) on their way from any thread to the
/// server's loop, which gives each to the client LCDd would give it to.
public final class LCDKeyInbox: Sendable {
    private let pending = Locked<[String]>([])
    let pipe: WakePipe
    /// Presses kept while the loop is busy; a flood of presses beyond it is dropped, oldest first.
    static let limit = 256

    init() throws(SystemCallError) { pipe = try WakePipe() }

    public func press(key: String) {
        pending.withLock { keys in
            if keys.count >= Self.limit { keys.removeFirst() }
            keys.append(key)
        }
        pipe.wake()
    }

    func take() -> [String] {
        pipe.drain()
        return pending.withLock { keys in
            defer { keys.removeAll() }
            return keys
        }
    }
}
