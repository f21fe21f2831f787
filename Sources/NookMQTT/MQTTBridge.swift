import Logging
import NookActivities
import NookConfig
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// Why the bridge cannot start: a config, credentials or TLS file problem, named.
public struct BridgeError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// `nook-mqtt`: a broker's clients reach nookd through its socket, so nookd stays the one
/// owner of the display and the queue and the network-facing parser runs in a process of its
/// own (SPEC E4–E7). One thread, one `poll(2)` loop over the broker's socket and nookd's event
/// stream; libmosquitto is driven by that loop, never by a thread of its own.
///
/// Delivery (E5). libmosquitto 2.0.11 queues a QoS 1 message's PUBACK before it calls
/// `on_message` (lib/handle_publish.c), so blocking in the callback would not be enough on its
/// own; what holds the PUBACK back is that nothing is written while the connection is marked
/// threaded except by ``MQTTConnection/writePackets()``. The loop reads a batch of messages,
/// sends each to nookd, waits for every answer, and only then writes. If nookd does not answer
/// (stopped, restarting), the connection is abandoned without writing: the broker never saw
/// the PUBACKs, keeps the messages in our persistent session and sends them again once nookd
/// is back and we reconnect. QoS 1 is at least once: a message nookd took whose PUBACK was
/// lost with the connection comes again; one carrying an `id` nookd still holds is then taken
/// as delivered rather than refused.
public final class MQTTBridge {
    public struct Options: Sendable {
        public var socketPath: String
        public var config: MQTTConfig

        public init(socketPath: String, config: MQTTConfig) { (self.socketPath, self.config) = (socketPath, config) }
    }

    /// Messages read from the broker before they are passed to nookd together: at most this
    /// many are taken by nookd and not yet acknowledged, so at most this many come again after
    /// a lost connection.
    static let batchLimit = 256
    /// MQTT 5's Receive Maximum: how many QoS 1 messages the broker may send before we
    /// acknowledge any. A burst then waits on nookd, not on one broker round trip per 20
    /// messages (mosquitto's default window for 3.1.1 clients); see `mqtt_activities_per_s`.
    static let receiveMaximum = 1000

    private let options: Options
    private var config: MQTTConfig { options.config }
    private let logger: Logger
    public let topics: Topics
    private let discovery: Discovery
    private let connection: MQTTConnection

    private var requests: NookClient?
    private var events: NookClient?
    private var nookdBackoff = ReconnectBackoff()
    private var nextNookdAttempt = 0.0
    private var nookdWarned = false

    /// CONNACK accepted and not lost since.
    private var brokerReady = false
    private var brokerBackoff = ReconnectBackoff()
    /// Said once per outage: a broker down for a day must not fill the journal.
    private var brokerWarned = false
    private var nextBrokerAttempt = 0.0

    private var pendingSubscriptions = 0
    private var batch: [MQTTMessage] = []
    private var discarding = false
    private var nextRequestID = 0.0

    private var publishedState: JSONValue?
    /// An event said `state` may have changed: it is read again within ``stateCoalescing``.
    private var stateDirty = true
    private var lastStateRefresh = 0.0
    /// Events in a burst share one `status` request.
    static let stateCoalescing = 0.05
    /// `mqtt.state_poll_ms`: off unless set (nookd announces every change as an event).
    private var statePollInterval: Double? { config.statePollMilliseconds > 0 ? Double(config.statePollMilliseconds) / 1000 : nil }
    /// libmosquitto sends a PINGREQ from `housekeeping()` once a keepalive period passed without
    /// traffic; called every quarter period, a ping is at most that late.
    private var housekeepingInterval: Double { Double(config.keepalive) / 4 }
    /// How nookd starts each event line of the bridge's `watch` (asked for with id "watch").
    static let watchEventPrefix = ResponseLine.eventLinePrefix(id: .string("watch"))
    /// Whether the start-up's pages were dropped (once, after the first state was published).
    private var trimmed = false
    /// When a burst's code and data pages are dropped again (`mqtt_bridge_idle_rss_mib`).
    private var trim = IdleTrim()

    public init(options: Options, logger: Logger) throws(BridgeError) {
        self.options = options
        self.logger = logger
        topics = Topics(prefix: options.config.prefix, device: options.config.device)
        discovery = Discovery(topics: topics, prefix: options.config.discoveryPrefix)
        connection = try Self.connection(options.config, clientID: options.config.effectiveClientID, cleanSession: false,
                                         will: (topics.availability, "offline", true))
        connection.onConnect = { [unowned self] code, sessionPresent in connected(code, sessionPresent: sessionPresent) }
        connection.onDisconnect = { [unowned self] code in disconnected(code) }
        connection.onMessage = { [unowned self] message in if !discarding { batch.append(message) } }
        connection.onSubscribed = { [unowned self] _ in
            pendingSubscriptions -= 1
            // From here on the broker queues what arrives for us while we are away.
            if pendingSubscriptions == 0 { logger.info("subscribed to \(topics.inbound.joined(separator: ", "))") }
        }
        connection.onLog = { error, text in
            if error { logger.error("libmosquitto: \(text)") } else { logger.notice("libmosquitto: \(text)") }
        }
    }

    /// A connection as the config asks for it, after checking the credentials and TLS files:
    /// a problem is an error naming the key, not a handshake failure later.
    static func connection(_ config: MQTTConfig, clientID: String, cleanSession: Bool,
                           will: (topic: String, payload: String, retain: Bool)?) throws(BridgeError) -> MQTTConnection {
        var credentials: Credentials?
        if let path = config.credentialsFile ?? Credentials.systemdCredential {
            do { credentials = try Credentials.load(path: path) } catch { throw BridgeError("mqtt.credentials: \(error)") }
        }
        if credentials != nil, config.tls == nil, !config.allowPlainCredentials {
            throw BridgeError("mqtt.credentials: refusing to send a user name and password to \(config.host):\(config.effectivePort) over plain TCP, where anyone on the path can read them; set mqtt.tls.ca_file to use TLS, or mqtt.allow_plain_credentials = true if this network is trusted")
        }
        if let tls = config.tls {
            for (key, path) in [("mqtt.tls.ca_file", tls.caFile), ("mqtt.tls.cert_file", tls.certFile), ("mqtt.tls.key_file", tls.keyFile)] {
                guard let path else { continue }
                do throws(FileReadError) { _ = try readRegularFile(path, limit: 1 << 20) } catch {
                    throw BridgeError("\(key): \(error)")
                }
            }
        }
        let options = MQTTConnection.Options(clientID: clientID, cleanSession: cleanSession, host: config.host, port: config.effectivePort,
                                             keepalive: config.keepalive, credentials: credentials, tls: config.tls, will: will,
                                             protocolVersion: config.protocolVersion, receiveMaximum: receiveMaximum)
        do { return try MQTTConnection(options: options) } catch { throw BridgeError(error.description) }
    }

    // MARK: The loop

    /// Serves until killed (SIGTERM: the broker publishes the will, `offline`).
    public func run() -> Never {
        // SIGTERM ends the process at once: the kernel closes the broker connection without
        // DISCONNECT, so the broker publishes the will.
        StopSignals.restoreDefaults()
        logger.info("bridging \(config.tls == nil ? "mqtt" : "mqtts")://\(config.host):\(config.effectivePort) as '\(config.effectiveClientID)' (topics \(config.prefix)/\(config.device)/…) to nookd at \(options.socketPath)")
        while true {
            let now = MonotonicClock.seconds
            if requests == nil, now >= nextNookdAttempt { connectNookd() }
            if requests != nil, connection.descriptor < 0, now >= nextBrokerAttempt { connectBroker() }
            var descriptors: [pollfd] = []
            let brokerFD = connection.descriptor
            if brokerFD >= 0 {
                descriptors.append(pollfd(fd: brokerFD, events: Int16(POLLIN) | (connection.wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
            }
            if let events {
                if events.hasBufferedLine { readEvents(); continue }
                descriptors.append(pollfd(fd: events.descriptor, events: Int16(POLLIN), revents: 0))
            }
            // Idle, the only timer is the keepalive's (issue 16): `state` follows nookd's events,
            // and libmosquitto's pings need `housekeeping()` a few times per keepalive period.
            var wait = brokerFD >= 0 ? housekeepingInterval : 3600
            if requests == nil { wait = min(wait, nextNookdAttempt - now) }
            if requests != nil, brokerFD < 0 { wait = min(wait, nextBrokerAttempt - now) }
            if brokerReady, stateDirty { wait = min(wait, lastStateRefresh + Self.stateCoalescing - now) }
            if brokerReady, let poll = statePollInterval { wait = min(wait, lastStateRefresh + poll - now) }
            if let due = trim.due { wait = min(wait, due - now) }
            let timeout = Int32(max(0, min(3_600_000, (wait * 1000).rounded(.up))))
            if (try? pollDescriptors(&descriptors, timeoutMilliseconds: timeout)) == nil { continue }
            var index = 0
            if brokerFD >= 0 {
                if descriptors[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 { readBroker() }
                index = 1
            }
            if descriptors.count > index, descriptors[index].revents != 0 { readEvents() }
            if connection.descriptor >= 0 {
                connection.housekeeping()
                if connection.wantsWrite { connection.writePackets() }
            }
            refreshState()
            if trim.takeDue(now: MonotonicClock.seconds) { IdleTrim.dropPages() }
        }
    }

    // MARK: nookd

    private func connectNookd() {
        do throws(ClientError) {
            let events = try NookClient.watching(path: options.socketPath, readTimeout: .seconds(10))
            let requests = try NookClient(path: options.socketPath)
            requests.readTimeout = .seconds(30)
            (self.events, self.requests) = (events, requests)
            nookdBackoff.reset()
            nookdWarned = false
            stateDirty = true
            logger.info("connected to nookd at \(options.socketPath)")
        } catch {
            if !nookdWarned { logger.warning("nookd is not reachable (\(error)); the broker waits until it is (trying again with backoff)") }
            nookdWarned = true
            nextNookdAttempt = MonotonicClock.seconds + nookdBackoff.next()
        }
    }

    /// nookd went away: leave the broker too, so what is published meanwhile waits there
    /// (and the will tells subscribers the board is offline).
    private func nookdLost(_ why: String) {
        logger.warning("lost nookd (\(why)); leaving the broker until nookd is back")
        (requests, events) = (nil, nil)
        nextNookdAttempt = MonotonicClock.seconds + nookdBackoff.next()
        abandonBroker()
    }

    private func abandonBroker() {
        discarding = true
        connection.abandon()
        discarding = false
        batch = []
        brokerReady = false
    }

    private func readEvents() {
        guard let events else { return }
        repeat {
            let line: [UInt8]?
            do throws(ClientError) { line = try events.readLine() } catch { nookdLost("\(error)"); return }
            guard let line else { nookdLost("nookd closed the event stream"); return }
            // Passed on as nookd wrote it, not parsed and written again (issue 16: that was a
            // third of the bridge's CPU time in a burst); any other line is parsed.
            if let event = ResponseLine.eventObject(in: line, prefix: Self.watchEventPrefix) {
                stateDirty = true
                if brokerReady { try? connection.publish(topics.event, slice: event, qos: 0) }
                continue
            }
            guard case .event(_, let json)? = try? ResponseLine.decode(line) else { continue }
            stateDirty = true
            if brokerReady { _ = try? connection.publish(topics.event, json.serializedBytes, qos: 0) }
        } while events.hasBufferedLine
    }

    // MARK: The broker

    private func connectBroker() {
        do throws(MQTTError) {
            try connection.connect()
            logger.debug("connecting to \(config.host):\(config.effectivePort)")
        } catch {
            if brokerWarned { logger.debug("cannot reach the broker: \(error)") } else {
                logger.warning("cannot reach the broker: \(error); trying again with backoff (up to every 10 s)")
            }
            brokerWarned = true
            nextBrokerAttempt = MonotonicClock.seconds + brokerBackoff.next()
        }
    }

    private func connected(_ code: Int32, sessionPresent: Bool) {
        guard code == 0 else {
            let hint = connection.refusedCredentials(code) ? " (check the user name and password in the credentials file, and the broker's ACL)" : ""
            logger.error("the broker at \(config.host):\(config.effectivePort) refused the connection: \(connection.refusal(code))\(hint)")
            return
        }
        brokerReady = true
        brokerWarned = false
        brokerBackoff.reset()
        logger.info("connected to the broker at \(config.host):\(config.effectivePort) (session \(sessionPresent ? "resumed" : "new"))")
        do throws(MQTTError) {
            // Subscribing again on a resumed session is harmless and picks up a changed prefix.
            pendingSubscriptions = topics.inbound.count
            for topic in topics.inbound { try connection.subscribe(topic, qos: 1) }
            try connection.publish(topics.availability, "online", qos: 1, retain: true)
            if config.discovery {
                for entity in discovery.entities {
                    try connection.publish(discovery.topic(entity), entity.config.serializedBytes, qos: 1, retain: true)
                }
            }
        } catch {
            logger.error("cannot set up the broker session: \(error)")
        }
        publishedState = nil
        stateDirty = true
    }

    private func disconnected(_ code: Int32) {
        brokerReady = false
        if code != 0, !discarding {
            logger.warning("lost the broker connection: \(MQTTError("mosquitto_loop", subject: "\(config.host):\(config.effectivePort)", code: code)); reconnecting")
        }
        nextBrokerAttempt = MonotonicClock.seconds + brokerBackoff.next()
    }

    private func readBroker() {
        var rounds = 0
        while true {
            if connection.readPackets() != 0 { break }
            rounds += 1
            let fd = connection.descriptor
            guard fd >= 0, batch.count < Self.batchLimit, rounds < 4 * Self.batchLimit else { break }
            var entry = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            guard (try? pollDescriptors(&entry, timeoutMilliseconds: 0)) == 1 else { break }
        }
        if !batch.isEmpty { trim.activity(at: MonotonicClock.seconds) }
        processBatch()
    }

    /// Passes the batch to nookd, pipelined, and waits for every answer before the loop may
    /// write the PUBACKs libmosquitto queued for them.
    private func processBatch() {
        guard !batch.isEmpty else { return }
        let messages = batch
        batch = []
        var sent: [(id: Double, message: MQTTMessage, operation: NookOperation)] = []
        // One write for the whole batch: nookd reads it as one pipelined burst.
        var lines: [UInt8] = []
        for message in messages {
            guard let kind = topics.kind(of: message.topic) else {
                logger.debug("ignored a message on \(message.topic), which the bridge does not serve")
                continue
            }
            switch InboundMessage.decode(kind, topic: message.topic, payload: message.payload, retained: message.retained, module: config.module) {
            case .failure(let rejection):
                report(rejection, payload: message.payload)
            case .success(let operation):
                nextRequestID += 1
                let line = Request(id: .number(nextRequestID), operation: operation).encoded().utf8
                // The payload limit is not the line limit: a 64 KiB payload escaped into a
                // request can be longer than nookd reads, and nookd's refusal of it carries no
                // id, which would leave the whole batch unacknowledged and sent again forever.
                guard line.count <= NookProtocol.maximumLineBytes else {
                    report(Rejection(topic: message.topic, ProtocolError(.lineTooLong, field: "payload",
                        "the request made from this payload is \(line.count) bytes; nookd reads at most \(NookProtocol.maximumLineBytes)")),
                           payload: message.payload)
                    continue
                }
                lines += line
                lines.append(0x0A)
                sent.append((nextRequestID, message, operation))
            }
        }
        guard !sent.isEmpty else { return }
        guard let requests else { abandonBatch("nookd is not connected"); return }
        do throws(ClientError) { try requests.sendRaw(lines) } catch {
            abandonBatch("\(error)")
            return
        }
        logger.debug("passed \(sent.count) message(s) to nookd; waiting for its answers before acknowledging")
        // Matched by request id, not by position: nothing here assumes nookd answers in order.
        var waiting: [RequestID: (message: MQTTMessage, operation: NookOperation)] = [:]
        waiting.reserveCapacity(sent.count)
        for entry in sent { waiting[.number(entry.id)] = (entry.message, entry.operation) }
        while !waiting.isEmpty {
            let response: ResponseLine
            do throws(ClientError) {
                guard let line = try requests.readLine() else { abandonBatch("nookd closed the connection"); return }
                // An accepted request needs only its id read (issue 16: parsing every answer
                // whole was a tenth of the bridge's time); refusals are parsed for their reason.
                if let id = ResponseLine.acceptedNumberID(in: line) {
                    response = .success(id: .number(id), result: .null)
                } else {
                    do { response = try ResponseLine.decode(line) } catch { throw .daemon(error) }
                }
            } catch {
                abandonBatch("\(error)")
                return
            }
            switch response {
            case .success(let id?, _):
                guard let entry = waiting.removeValue(forKey: id) else { continue }
                if case .enqueue = entry.operation {} else { stateDirty = true }
            case .failure(let id?, let error):
                guard let entry = waiting.removeValue(forKey: id) else { continue }
                if Self.isRedelivery(error, of: entry.operation) {
                    logger.notice("\(entry.message.topic): activity already taken (a message sent again after a lost acknowledgement); acknowledged")
                } else {
                    report(Rejection(topic: entry.message.topic, error), payload: entry.message.payload)
                }
            case .failure(nil, let error):
                // nookd could not tell which request this answers (a line it could not read):
                // nothing can be acknowledged on that footing.
                abandonBatch("nookd answered a request it could not identify: \(error)")
                return
            case .success(nil, _), .event:
                continue
            }
        }
    }

    /// nookd refuses an id it already holds; for a message the broker sent again, that means
    /// the first delivery was taken.
    static func isRedelivery(_ error: ProtocolError, of operation: NookOperation) -> Bool {
        guard case .enqueue = operation else { return false }
        return error.code == .invalid && error.field == "activity.id" && error.message.contains("already")
    }

    private func abandonBatch(_ why: String) {
        logger.warning("nookd did not take a batch of messages (\(why)); leaving the broker without acknowledging them, so it sends them again once nookd is back")
        (requests, events) = (nil, nil)
        nextNookdAttempt = MonotonicClock.seconds + nookdBackoff.next()
        abandonBroker()
    }

    private func report(_ rejection: Rejection, payload: [UInt8]) {
        logger.notice("refused a message: \(rejection)")
        guard brokerReady else { return }
        do throws(MQTTError) {
            try connection.publish(topics.error, rejection.json(payload: payload).serializedBytes, qos: 1)
        } catch {
            logger.error("cannot publish to \(topics.error): \(error)")
        }
    }

    // MARK: State

    private func refreshState() {
        guard brokerReady, let requests else { return }
        let now = MonotonicClock.seconds
        let due = stateDirty ? now >= lastStateRefresh + Self.stateCoalescing : statePollInterval.map { now >= lastStateRefresh + $0 } ?? false
        guard due else { return }
        lastStateRefresh = now
        let status: StatusAnswer
        do throws(ClientError) {
            (status, _) = try requests.request(Request(id: .string("state"), operation: .status), as: StatusAnswer.self)
        } catch {
            if case .daemon = error { logger.error("nookd's status cannot be read: \(error)") } else { nookdLost("\(error)") }
            return
        }
        stateDirty = false
        let state = BoardState(status: status, module: config.module).json
        guard state != publishedState else { return }
        do throws(MQTTError) {
            try connection.publish(topics.state, state.serializedBytes, qos: 1, retain: true)
            publishedState = state
        } catch {
            logger.error("cannot publish \(topics.state): \(error)")
        }
        if !trimmed {
            // Start-up is over (config, TLS, the broker session, the first state): its code
            // need not stay resident (`mqtt_bridge_idle_rss_mib`).
            trimmed = true
            IdleTrim.dropPages()
        }
    }

    // MARK: Uninstall

    /// Clears every retained message the bridge published (discovery, state, availability),
    /// so Home Assistant forgets the device: `nook-mqtt --remove-discovery`, run on uninstall.
    public static func removeRetained(config: MQTTConfig, logger: Logger) throws(BridgeError) {
        let topics = Topics(prefix: config.prefix, device: config.device)
        let discovery = Discovery(topics: topics, prefix: config.discoveryPrefix)
        let connection = try connection(config, clientID: config.effectiveClientID + "-remove", cleanSession: true, will: nil)
        var refused: Int32?
        var ready = false
        var acknowledged = 0
        connection.onConnect = { code, _ in if code == 0 { ready = true } else { refused = code } }
        connection.onPublished = { _ in acknowledged += 1 }
        connection.onLog = { error, text in if error { logger.error("libmosquitto: \(text)") } }
        do throws(MQTTError) { try connection.connect() } catch { throw BridgeError(error.description) }
        let clear = discovery.entities.map(discovery.topic) + [topics.state, topics.availability]
        var published = false
        let deadline = MonotonicClock.seconds + 10
        while MonotonicClock.seconds < deadline {
            if let refused { throw BridgeError("the broker refused the connection: \(connection.refusal(refused))") }
            if ready, !published {
                for topic in clear {
                    do throws(MQTTError) { try connection.publish(topic, [], qos: 1, retain: true) } catch { throw BridgeError(error.description) }
                }
                published = true
            }
            if published, acknowledged >= clear.count {
                connection.disconnect()
                connection.writePackets()
                logger.info("cleared \(clear.count) retained topics (Home Assistant discovery, state, availability)")
                return
            }
            let fd = connection.descriptor
            guard fd >= 0 else { throw BridgeError("lost the connection to \(config.host):\(config.effectivePort)") }
            var entry = [pollfd(fd: fd, events: Int16(POLLIN) | (connection.wantsWrite ? Int16(POLLOUT) : 0), revents: 0)]
            _ = try? pollDescriptors(&entry, timeoutMilliseconds: 100)
            if entry[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 { connection.readPackets() }
            connection.housekeeping()
            if connection.wantsWrite { connection.writePackets() }
        }
        throw BridgeError("the broker at \(config.host):\(config.effectivePort) did not acknowledge within 10 s")
    }
}
