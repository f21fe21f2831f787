import NookLogging
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// nook-http's server (H1–H4): one thread, one `poll(2)` loop over the listeners, every client
/// connection and the link to nookd. Handlers run on this thread and never block: they answer
/// now or from a nookd call's `done`. Each connection is bounded (head size and time, body
/// size, requests in flight, bytes owed), and so is the number of connections.
public final class HTTPServer {
    public struct Options: Sendable {
        public var listen: [HTTPListenAddress] = [HTTPListenAddress()]
        /// Addresses served over TLS (LaMetric's local API, M4), with the context given to ``HTTPServer/init``.
        public var tlsListen: [HTTPListenAddress] = []
        public var limits = HTTPParserLimits()
        /// Most connections at once; past it the longest-idle connection makes room (H4).
        public var maximumConnections = 1024
        /// A keep-alive connection with nothing under way is closed after this.
        public var idleTimeout: Duration = .seconds(60)
        /// A request's head must be whole this long after its first byte (slowloris).
        public var headerTimeout: Duration = .seconds(10)
        /// And its body this long after its first byte.
        public var bodyTimeout: Duration = .seconds(60)
        /// A client that reads none of what it is owed for this long is dropped.
        public var writeTimeout: Duration = .seconds(60)
        /// Requests read from one connection and not yet answered; more wait in the socket.
        public var maximumPipelined = 32
        /// Bytes owed to a client past which no more of its requests are read.
        public var maximumBacklogBytes = 256 * 1024
        /// Bytes read from one client per turn of the loop.
        public var readChunk = 65536
        /// After a refused request (a body over the limit), at most this much of what the client
        /// still sends is read and let go before the connection closes (ntfy takes attachments
        /// up to 15 MB, which a sender may send whole)…
        public var lingerBytes = 16 << 20
        /// …for at most this long after the answer is written…
        public var lingerTimeout: Duration = .seconds(10)
        /// …and no longer than this with nothing coming.
        public var lingerQuiet: Duration = .seconds(2)

        public init() {}
    }

    /// Answers under way are written for at most this long after SIGTERM.
    static let stopBound: Duration = .seconds(5)

    public let options: Options
    private let logger: Logger
    private let routes: HTTPRouteTable
    private let access: HTTPAccess
    public let nookd: NookdLink
    /// The link and its connection for calls that wait, each polled here.
    private let links: [NookdLink]
    private var listeners: [TCPListener]
    /// Those of ``Options/tlsListen``, whose connections speak TLS through `tls`.
    private var tlsListeners: [TCPListener] = []
    private let tls: HTTPTLSContext?
    private let stopPipe: WakePipe
    /// Woken by SIGHUP's handler: ``reload`` runs on this thread, between requests.
    private let reloadPipe: WakePipe
    /// What SIGHUP does: the token file read again, or why it cannot be used (the old tokens
    /// stay). nil: nothing to re-read.
    public var reloadTokens: (() -> Result<[HTTPToken], HTTPTokenFileError>)?
    private var connections: [Int: HTTPConnection] = [:]
    private var nextConnectionID = 0
    private let maximumConnections: Int
    private var readBuffer: [UInt8]
    private var evictionsUnlogged = 0
    private var evictionLoggedAt: Duration?

    /// The ports listened on, in the order of ``Options/listen`` (the kernel's choice for 0).
    public var ports: [UInt16] { listeners.map(\.port) }
    public var addresses: [HTTPListenAddress] { listeners.map { HTTPListenAddress(host: $0.host, port: $0.port) } }
    /// The TLS listeners' addresses, in the order of ``Options/tlsListen``.
    public var tlsAddresses: [HTTPListenAddress] { tlsListeners.map { HTTPListenAddress(host: $0.host, port: $0.port) } }
    public var openConnections: Int { connections.count }

    /// - Parameter tls: the certificate and key ``Options/tlsListen``'s connections are served with.
    public init(options: Options, routes: HTTPRouteTable, access: HTTPAccess, nookd: NookdLink, tls: HTTPTLSContext? = nil,
                logger: Logger) throws(SystemCallError) {
        precondition(options.tlsListen.isEmpty || tls != nil, "TLS addresses without a TLS context")
        self.options = options
        self.logger = logger
        self.routes = routes
        self.access = access
        self.nookd = nookd
        links = nookd.connections
        var listeners: [TCPListener] = []
        for address in options.listen { listeners.append(try TCPListener(http: address)) }
        self.listeners = listeners
        self.tls = tls
        for address in options.tlsListen { tlsListeners.append(try TCPListener(http: address)) }
        stopPipe = try WakePipe()
        reloadPipe = try WakePipe()
        readBuffer = [UInt8](repeating: 0, count: options.readChunk)
        maximumConnections = HTTPDescriptorLimit.connectionsAllowed(options.maximumConnections, logger: logger)
    }

    /// Ends ``run()`` from any thread: no new connections, answers under way are written
    /// (for a few seconds at most), then it returns.
    public func stop() { stopPipe.wake() }

    /// The pipes another thread wakes (a signal's): `stop` as ``stop()`` does, `reload` to read
    /// the token file again (SIGHUP).
    public var wakers: (stop: WakePipe, reload: WakePipe) { (stopPipe, reloadPipe) }

    /// Reads the token file again (SIGHUP): a good one serves every request checked from now on;
    /// one with an error is logged naming it, and the tokens already read stay.
    private func reload() {
        reloadPipe.drain()
        guard let reloadTokens, access.tokens != nil else {
            logger.notice("SIGHUP: no token file (http.tokens) to read again; the other settings take effect on restart")
            return
        }
        switch reloadTokens() {
        case .success(let tokens):
            access.replaceTokens(tokens)
            logger.notice("SIGHUP: \(tokens.count) token(s) read again; other settings take effect on restart")
            endHeldOpen(.accessWithdrawn)
        case .failure(let error):
            logger.error("SIGHUP: keeping the \(access.tokens?.count ?? 0) token(s) already read, the token file has an error: \(error)")
        }
    }

    public func run() throws(SystemCallError) {
        var stopping: Duration?
        var order: [HTTPConnection] = []
        var entries: [pollfd] = []
        // Start-up's pages (settings, the routes' tables, TLS) go back to the page cache now, and
        // a burst's a second after it ends, at most once a minute (`http_idle_rss_mib`).
        IdleTrim.dropPages()
        var trim = IdleTrim()
        while true {
            let now = MonotonicClock.now
            if let stopping, connections.values.allSatisfy({ $0.exchanges.isEmpty && $0.backlog == 0 }) || now - stopping >= Self.stopBound {
                // Calls still waiting for nookd at the bound are answered, not cut off: a
                // caller told nothing cannot know whether its card was made (503 for a call
                // never sent, 504 for a change nookd may have taken), and what fits is written.
                for link in links { link.abandon("nook-http stopped before nookd answered") }
                for connection in connections.values where !connection.closed { connection.flush() }
                break
            }
            var deadline = expire(now: now)
            // The bound on stopping is a time the loop wakes at, not a check made when it next wakes.
            if let stopping { deadline = min(deadline ?? stopping + Self.stopBound, stopping + Self.stopBound) }
            for link in links { if let next = link.tick(now: now) { deadline = min(deadline ?? next, next) } }
            if let due = trim.due {
                let next = Duration.seconds(due)
                deadline = min(deadline ?? next, next)
            }
            entries.removeAll(keepingCapacity: true)
            order.removeAll(keepingCapacity: true)
            entries.append(stopPipe.pollEntry)
            entries.append(reloadPipe.pollEntry)
            for listener in listeners + tlsListeners { entries.append(pollfd(fd: listener.socket.rawValue, events: Int16(POLLIN), revents: 0)) }
            let firstLink = entries.count
            for link in links { entries.append(link.pollEntry ?? pollfd(fd: -1, events: 0, revents: 0)) }
            let first = entries.count
            var reading: [Bool] = [], holding = false
            for connection in connections.values {
                let wants = wantsToRead(connection)
                holding = holding || connection.holdsUnreadBytes(reading: wants)
                entries.append(pollfd(fd: connection.socket.rawValue, events: connection.pollEvents(reading: wants), revents: 0))
                order.append(connection)
                reading.append(wants)
            }
            var timeout: Int32 = -1
            if holding {
                timeout = 0
            } else if let deadline {
                let wait = deadline - MonotonicClock.now
                timeout = Int32(clamping: max(0, min(60_000, wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000 + 1)))
            }
            let ready = try pollDescriptors(&entries, timeoutMilliseconds: timeout)
            if ready > 0 {
                trim.activity(at: MonotonicClock.seconds)
            } else if trim.takeDue(now: MonotonicClock.seconds) {
                IdleTrim.dropPages()
            }
            if entries[0].revents != 0, stopping == nil {
                stopPipe.drain()
                stopping = MonotonicClock.now
                logger.notice("stopping: no new connections; answers under way are written first")
                listeners.removeAll()
                tlsListeners.removeAll()
                for connection in Array(connections.values) where connection.isIdle { close(connection, reason: nil) }
                for connection in connections.values { connection.closeAfterAnswers = true }
                endHeldOpen(.stopping)
                continue
            }
            if entries[1].revents != 0 { reload() }
            for (offset, _) in listeners.enumerated() where entries[2 + offset].revents != 0 { acceptAll(listeners[offset], tls: nil) }
            for (offset, _) in tlsListeners.enumerated() where entries[2 + listeners.count + offset].revents != 0 {
                acceptAll(tlsListeners[offset], tls: tls)
            }
            for (offset, link) in links.enumerated() where entries[firstLink + offset].fd >= 0 && entries[firstLink + offset].revents != 0 {
                link.handle(revents: entries[firstLink + offset].revents)
            }
            for (offset, connection) in order.enumerated() {
                let revents = connection.readiness(entries[first + offset].revents, reading: reading[offset])
                guard revents != 0, !connection.closed else { continue }
                if revents & Int16(POLLOUT) != 0 { connection.flush() }
                guard !connection.closed else { continue }
                if revents & Int16(POLLIN) != 0 {
                    read(connection)
                } else if revents & Int16(POLLHUP | POLLERR) != 0 {
                    close(connection, reason: nil)
                }
            }
            // Requests held in a parser while the connection had its most in flight are read
            // once answers made room.
            for connection in connections.values where connection.parser.bufferedBytes > 0 && !connection.parser.isReadingBody
                && !connection.closeAfterAnswers && connection.exchanges.count < options.maximumPipelined {
                parse(connection)
            }
            for link in links { link.sendQueued() }
        }
        for connection in Array(connections.values) { close(connection, reason: nil) }
        logger.notice("stopped")
    }

    private func wantsToRead(_ connection: HTTPConnection) -> Bool {
        if let linger = connection.linger { return linger.discardLeft > 0 }
        let owesTooMuch = connection.backlog > options.maximumBacklogBytes
        if owesTooMuch != connection.heldBack {
            connection.heldBack = owesTooMuch
            if owesTooMuch { logger.debug("\(connection.peer) has \(connection.backlog) bytes of answers unread; its further requests wait") }
        }
        return !connection.closeAfterAnswers && connection.exchanges.count < options.maximumPipelined && !owesTooMuch
    }

    /// Closes connections past their time bounds; the next time one falls due.
    private func expire(now: Duration) -> Duration? {
        var next: Duration?
        func due(_ time: Duration) { next = min(next ?? time, time) }
        for connection in Array(connections.values) {
            if let linger = connection.linger, let shutAt = linger.shutAt {
                let end = min(shutAt + options.lingerTimeout, max(shutAt, linger.lastRead) + options.lingerQuiet)
                if now >= end {
                    close(connection, reason: nil)
                    continue
                }
                due(end)
            }
            if connection.backlog > 0 {
                if now - connection.lastWriteProgress >= options.writeTimeout {
                    logger.info("\(connection.peer) read nothing of its answers for \(options.writeTimeout); closed")
                    close(connection, reason: nil)
                    continue
                }
                due(connection.lastWriteProgress + options.writeTimeout)
            }
            if let started = connection.requestStarted, connection.parser.hasPartialRequest {
                let bound = connection.parser.isReadingBody ? options.bodyTimeout : options.headerTimeout
                if now - started >= bound {
                    let what = connection.parser.isReadingBody ? "body" : "header block"
                    logger.info("\(connection.peer) took over \(bound) to send a request's \(what); answered 408 and closed")
                    refuse(connection, HTTPAPIError(status: 408, code: "request_timeout",
                                                    message: "the request's \(what) did not arrive within \(bound) of its first byte"))
                    continue
                }
                due(started + bound)
            } else if connection.isIdle {
                if now - connection.idleSince >= options.idleTimeout {
                    close(connection, reason: nil)
                    continue
                }
                due(connection.idleSince + options.idleTimeout)
            }
        }
        logEvictions(now: now)
        if let logged = evictionLoggedAt, evictionsUnlogged > 0 { due(logged + .seconds(10)) }
        return next
    }

    private func acceptAll(_ listener: TCPListener, tls: HTTPTLSContext?) {
        while true {
            let accepted: TCPListener.Connection?
            do { accepted = try listener.accept() } catch {
                // Out of descriptors (EMFILE) despite the bound, or the like: the listener stays
                // readable, so say it and let the next turn try again after making room.
                logger.warning("\(error)")
                // With none to close, the newcomer is: it would keep the listener readable.
                if error.errno == .tooManyOpenFiles || error.errno == .tooManyOpenFilesInSystem, !evictOne() { listener.dropPending() }
                return
            }
            guard let accepted else { return }
            // A TLS client would read the plain 503 as a broken handshake: it is closed.
            if connections.count >= maximumConnections, !evictOne() {
                guard tls == nil else { continue }
                // Every connection is busy: the newcomer hears why (best effort) and goes.
                let answer = HTTPResponseEncoding.encode(HTTPAPIError(status: 503, code: "too_many_connections",
                    message: "nook-http already serves \(maximumConnections) busy connections (http.max_connections)",
                    headers: [("Retry-After", "1")]).response, headOnly: false, keepAlive: false)
                _ = answer.withUnsafeBytes { bytes in
                    try? System.sendIfReady(accepted.socket.rawValue, bytes.baseAddress, bytes.count, flags: Int32(MSG_NOSIGNAL | MSG_DONTWAIT),
                                            subject: accepted.socket.name)
                }
                continue
            }
            var session: HTTPTLSSession?
            if let tls {
                switch tls.session(on: accepted.socket.rawValue) {
                case .success(let made): session = made
                case .failure(let error): logger.warning("\(accepted.peer): \(error)"); continue
                }
            }
            nextConnectionID += 1
            let connection = HTTPConnection(id: nextConnectionID, socket: accepted.socket, peer: accepted.peer, loopback: accepted.loopback, tls: session,
                                            limits: options.limits, now: MonotonicClock.now, server: self)
            connections[connection.id] = connection
        }
    }

    /// Closes the connection that has waited longest with nothing under way, else the one whose
    /// unfinished head began longest ago: a flood of idle or slow connections never keeps a
    /// new client out.
    private func evictOne() -> Bool {
        var victim: HTTPConnection?
        var since = Duration.seconds(1 << 40)
        for connection in connections.values where connection.isIdle && connection.idleSince < since {
            (victim, since) = (connection, connection.idleSince)
        }
        if victim == nil {
            for connection in connections.values where connection.exchanges.isEmpty && connection.backlog == 0 {
                if let started = connection.requestStarted, started < since { (victim, since) = (connection, started) }
            }
        }
        guard let victim else { return false }
        evictionsUnlogged += 1
        close(victim, reason: nil)
        return true
    }

    private func logEvictions(now: Duration) {
        guard evictionsUnlogged > 0 else { return }
        if let last = evictionLoggedAt, now - last < .seconds(10) { return }
        logger.warning("closed \(evictionsUnlogged) idle or unfinished connection(s) to make room: at the limit of \(maximumConnections) connections (http.max_connections)")
        evictionsUnlogged = 0
        evictionLoggedAt = now
    }

    private func read(_ connection: HTTPConnection) {
        let reading = readBuffer.withUnsafeMutableBytes { connection.receive(into: $0) }
        if var linger = connection.linger {
            switch reading {
            case .wouldBlock:
                return
            case .bytes(let count):
                linger.discardLeft -= count
                linger.lastRead = MonotonicClock.now
            default:
                // The client closed or reset its side: nothing more to read.
                linger.discardLeft = 0
            }
            connection.linger = linger
            if linger.discardLeft <= 0, linger.shutAt != nil || (connection.exchanges.isEmpty && connection.backlog == 0) {
                close(connection, reason: nil)
            }
            return
        }
        switch reading {
        case .failed(let why):
            close(connection, reason: why)
            return
        case .wouldBlock:
            return
        case .ended:
            // The client is done sending: what it asked is still answered, then the connection ends.
            connection.closeAfterAnswers = true
            if connection.exchanges.isEmpty && connection.backlog == 0 { close(connection, reason: nil) }
            return
        case .bytes(let count):
            if !connection.parser.hasPartialRequest { connection.requestStarted = MonotonicClock.now }
            connection.parser.append(readBuffer[..<count])
        }
        parse(connection)
    }

    private func parse(_ connection: HTTPConnection) {
        while !connection.closed, !connection.closeAfterAnswers, connection.exchanges.count < options.maximumPipelined,
              let item = connection.parser.next() {
            switch item {
            case .continueExpected:
                // Only when nothing is owed before it: a 100 must not pass an earlier answer.
                if connection.exchanges.isEmpty && connection.backlog == 0 {
                    connection.lastWriteProgress = MonotonicClock.now
                    connection.outgoing += "HTTP/1.1 100 Continue\r\n\r\n".utf8
                    connection.flush()
                }
            case .failure(let error):
                logger.info("\(connection.peer): \(HTTPLogText.escaped(error.description))")
                // What the client still sends is read and let go: the declared rest of a body
                // too large, else up to the bound (a chunked body's rest is unknown).
                let unread = connection.parser.unreadBodyBytes ?? options.lingerBytes
                connection.linger = HTTPConnection.Linger(discardLeft: min(unread, options.lingerBytes), lastRead: MonotonicClock.now)
                refuse(connection, error, request: connection.parser.refusedRequest)
                return
            case .request(let request, let keepAlive):
                let exchange = HTTPServerExchange(request: request, keepAlive: keepAlive, connection: connection, logger: logger)
                connection.exchanges.append(exchange)
                if !keepAlive { connection.closeAfterAnswers = true }
                connection.requestStarted = connection.parser.hasPartialRequest ? MonotonicClock.now : nil
                dispatch(exchange, connection: connection)
            }
        }
    }

    /// Answers `error` after whatever the connection is owed, and ends it there.
    /// `request`: the one refused, when its head was read (its route's language says the error).
    private func refuse(_ connection: HTTPConnection, _ error: HTTPAPIError, request: HTTPRequest? = nil) {
        let exchange = HTTPServerExchange(request: request ?? HTTPRequest(method: "GET", path: "/"), keepAlive: false, connection: connection, logger: logger)
        if let request { exchange.shape = routes.resolve(method: request.method, path: request.rawPath).shape }
        connection.exchanges.append(exchange)
        connection.closeAfterAnswers = true
        connection.requestStarted = nil
        exchange.respond(error.response)
    }

    private func dispatch(_ exchange: HTTPServerExchange, connection: HTTPConnection) {
        let request = exchange.request
        let (match, shape) = routes.resolve(method: request.method, path: request.rawPath)
        exchange.shape = shape
        // The page's own files hold no data: a browser loads them before it has a token to send.
        if case .found(let route, let parameters) = match, route.isPublic {
            exchange.caller = HTTPCaller(name: "anonymous", scopes: [])
            route.handler(exchange, parameters, nookd)
            return
        }
        let caller: HTTPCaller
        // A request a reverse proxy passed on comes from loopback but not from this machine's
        // own clients: it is served as from the network (a token file is needed).
        let proxied = ["X-Forwarded-For", "Forwarded", "X-Real-IP", "X-Forwarded-Host"].contains { request.header($0) != nil }
        // Whom unknown tokens and viewers' places are counted against.
        let client = HTTPAccess.clientAddress(peer: connection.peer, request: request, loopback: connection.loopback)
        // A route that changes something with a GET (ntfy's publish by GET) is guarded as a POST is.
        var changes: Bool?
        if case .found(let route, _) = match { changes = route.changesSomething }
        switch access.check(request, loopback: connection.loopback && !proxied, client: client, changes: changes, now: MonotonicClock.now) {
        case .failure(let error):
            exchange.respond(error.response)
            return
        case .success(let found):
            caller = found.caller
            exchange.token = found.token
            exchange.client = HTTPClient(address: client,
                                         token: found.token == nil ? nil : caller.name)
        }
        exchange.caller = caller
        switch match {
        case .notFound(let refusal):
            exchange.respond((refusal ?? HTTPRouteTable.notFound(request.method, request.rawPath)).response)
        case .methodNotAllowed(let allowed):
            exchange.respond(HTTPRouteTable.methodNotAllowed(request.method, request.rawPath, allowed: allowed).response)
        case .found(let route, let parameters):
            exchange.scope = route.scope
            guard route.anyScope || HTTPAccess.allows(caller, route.scope) else {
                exchange.respond(HTTPAPIError(status: 403, code: "forbidden",
                    message: "\(caller.name) may not \(request.method) \(route.pattern): it needs the '\(route.scope.rawValue)' scope").response)
                return
            }
            route.handler(exchange, parameters, nookd)
        }
    }

    /// Ends at once every exchange a handler holds open (streams, waits for the glass) whose
    /// token the token file read last no longer grants the route's scope, or all of them when
    /// stopping; the connections they were on close once their answers are written.
    private func endHeldOpen(_ why: HTTPEarlyEnd) {
        var ended = 0
        for connection in Array(connections.values) {
            for exchange in connection.exchanges where exchange.canEndEarly {
                if why == .accessWithdrawn, access.stillGrants(exchange.token, exchange.scope ?? .read) { continue }
                connection.closeAfterAnswers = true
                exchange.end(why)
                ended += 1
            }
            connection.flush()
        }
        if ended > 0 {
            logger.notice(why == .stopping ? "stopping: ended \(ended) live view(s) waiting for the glass"
                                            : "SIGHUP: ended \(ended) live view(s) of token(s) the file no longer grants")
        }
    }

    /// Everything owed is written and no more requests are read: close, or shut the write side
    /// and linger while the client may still be sending what will not be read.
    func endAfterAnswers(_ connection: HTTPConnection) {
        guard var linger = connection.linger, linger.discardLeft > 0 else {
            close(connection, reason: nil)
            return
        }
        guard linger.shutAt == nil else { return }
        linger.shutAt = MonotonicClock.now
        connection.linger = linger
        // The client reads the answer to its end (EOF) while its last bytes are still taken.
        connection.tls?.closeNotify()
        try? System.shutdown(connection.socket.rawValue, SHUT_WR, subject: connection.socket.name)
    }

    func close(_ connection: HTTPConnection, reason: String?) {
        guard !connection.closed else { return }
        connection.closed = true
        connections.removeValue(forKey: connection.id)
        connection.exchanges.removeAll()
        if let reason { logger.info("\(connection.peer): \(reason)") }
        connection.tls?.closeNotify()
        try? System.shutdown(connection.socket.rawValue, SHUT_RDWR, subject: connection.socket.name)
    }
}
