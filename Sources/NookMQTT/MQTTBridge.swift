import NookLogging
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
    /// A connection (or an attempt at one) is open: its end, whichever way it ends (refused,
    /// lost, or a TLS handshake that fails without a disconnect callback), schedules the next.
    private var brokerAttempt: (started: Double, acceptedAt: Double?)?
    /// Why the last attempt failed, logged again only when it changes (a wrong CA file must not
    /// fill the journal either); libmosquitto's error lines during an attempt end up here.
    private var attemptFailure: String?
    private var lastAttemptFailure: String?
    /// The backoff starts again from its first step only after a connection that lasted this
    /// long: one the broker accepts and then drops at once (a client id taken over by another
    /// board, an ACL) must not be retried four times a second.
    static let stableConnection = 10.0
    /// We left the broker on purpose (nookd went away): not a failure to report.
    private var abandoning = false

    /// Messages nookd took in this session, by packet id (its low bits): the broker sends a
    /// message again with the same packet id and the DUP flag when it saw no PUBACK, and one
    /// recorded here is acknowledged without showing it again, even after its card has ended.
    private var taken = [(messageID: Int, digest: UInt64)](repeating: (0, 0), count: 2048)

    /// This session's subscriptions the broker has not answered yet, by packet id, and those it granted.
    private var pendingSubscriptions: [Int32: String] = [:]
    private var grantedSubscriptions: [String] = []
    /// Topics the broker refused, kept across reconnects: a refusal that stands is logged and
    /// published once, not at every reconnect of a flaky link; a grant forgets it.
    private var refusedSubscriptions: Set<String> = []
    /// The broker refused every subscription and that was said (at the next grant, forgotten).
    private var deafSaid = false
    /// The broker's count of messages it dropped (for any client), as last read: a rise is
    /// reported, since a dropped message never reaches the bridge (see docs/mqtt.md, "Broker limits").
    private var droppedByBroker: Int?
    static let droppedTopic = "$SYS/broker/publish/messages/dropped"
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
        topics = Topics(prefix: options.config.prefix, device: options.config.device, awtrixPrefix: options.config.awtrixPrefix)
        discovery = Discovery(topics: topics, prefix: options.config.discoveryPrefix)
        connection = try Self.connection(options.config, clientID: options.config.effectiveClientID, cleanSession: false,
                                         will: (topics.availability, "offline", true))
        connection.onConnect = { [unowned self] code, sessionPresent in connected(code, sessionPresent: sessionPresent) }
        connection.onDisconnect = { [unowned self] code in disconnected(code) }
        connection.onMessage = { [unowned self] message in
            // The broker's counter is no work for nookd, and must not count as a burst whose
            // pages are dropped afterwards (an idle bridge would wake for it).
            if message.topic == Self.droppedTopic { noteDropped(message.payload); return }
            if !discarding { batch.append(message) }
        }
        connection.onSubscribed = { [unowned self] messageID, granted in subscribed(messageID, granted: granted) }
        connection.onLog = { [unowned self] error, text in
            // During an attempt, said once with the attempt's end (a TLS handshake's reason).
            if error, let attempt = brokerAttempt, attempt.acceptedAt == nil {
                attemptFailure = attemptFailure.map { $0 + "; " + text } ?? text
                return
            }
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
            if brokerAttempt != nil, connection.descriptor < 0 { brokerConnectionEnded() }
            if requests != nil, brokerAttempt == nil, now >= nextBrokerAttempt { connectBroker() }
            var descriptors: [pollfd] = []
            let brokerFD = connection.descriptor
            if brokerFD >= 0 {
                descriptors.append(pollfd(fd: brokerFD, events: Int16(POLLIN) | (connection.wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
            }
            if let events {
                if events.hasBufferedLine { readEvents(); continue }
                descriptors.append(pollfd(fd: events.descriptor, events: Int16(POLLIN), revents: 0))
            }
            // Idle, the only timer is the keepalive's: `state` follows nookd's events,
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
        abandoning = true
        connection.abandon()
        if brokerAttempt != nil, connection.descriptor < 0 { brokerConnectionEnded() }
        abandoning = false
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
            // Passed on as nookd wrote it, not parsed and written again (that was a
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
            attemptFailure = nil
            // Set first: libmosquitto may log the handshake's failure inside the connect call.
            brokerAttempt = (MonotonicClock.seconds, nil)
            logger.debug("connecting to \(config.host):\(config.effectivePort)")
            try connection.connect()
        } catch {
            brokerAttempt = nil
            let reason = "\(error)" + (attemptFailure.map { " (\($0))" } ?? "")
            attemptFailure = nil
            if brokerWarned { logger.debug("cannot reach the broker: \(reason)") } else {
                logger.warning("cannot reach the broker: \(reason); trying again with backoff (up to every 10 s)")
            }
            brokerWarned = true
            nextBrokerAttempt = MonotonicClock.seconds + brokerBackoff.next()
        }
    }

    /// The connection or the attempt ended, however it ended: the next attempt waits its step
    /// of the backoff.
    private func brokerConnectionEnded() {
        guard let attempt = brokerAttempt else { return }
        brokerAttempt = nil
        brokerReady = false
        let now = MonotonicClock.seconds
        if let acceptedAt = attempt.acceptedAt, now - acceptedAt >= Self.stableConnection { brokerBackoff.reset() }
        let delay = brokerBackoff.next()
        nextBrokerAttempt = now + delay
        guard attempt.acceptedAt == nil, !abandoning else { return }
        // Never accepted: a TLS handshake that failed, a refusal (already logged with its
        // reason), or a broker that closed the connection before answering.
        let failure = attemptFailure ?? "the broker closed the connection before accepting it"
        attemptFailure = nil
        let line = "cannot connect to the broker at \(config.host):\(config.effectivePort): \(failure); trying again in \(delay) s (backoff up to every 10 s)"
        if failure == lastAttemptFailure { logger.debug("\(line)") } else { logger.error("\(line)") }
        lastAttemptFailure = failure
    }

    private func connected(_ code: Int32, sessionPresent: Bool) {
        guard code == 0 else {
            let hint = connection.refusedCredentials(code) ? " (check the user name and password in the credentials file, and the broker's ACL)" : ""
            attemptFailure = "the broker refused the connection: \(connection.refusal(code))\(hint)"
            return
        }
        brokerReady = true
        brokerWarned = false
        lastAttemptFailure = nil
        brokerAttempt?.acceptedAt = MonotonicClock.seconds
        // A new session: the broker sends nothing of an earlier one again.
        if !sessionPresent { taken = taken.map { _ in (0, 0) } }
        logger.info("connected to the broker at \(config.host):\(config.effectivePort) (session \(sessionPresent ? "resumed" : "new"))")
        var subscribedAll = false
        do throws(MQTTError) {
            // Subscribing again on a resumed session is harmless and picks up a changed prefix.
            pendingSubscriptions = [:]
            grantedSubscriptions = []
            // A retained custom app is the app's state (AWTRIX's own clock takes it at every
            // connect): it sets the app again on every subscription, a resumed session's too.
            for topic in topics.inbound {
                let messageID = try connection.subscribe(topic, qos: 1, retainedEveryTime: topic == topics.customApps)
                pendingSubscriptions[messageID] = topic
            }
            // Mosquitto's counter; a broker without it, or an ACL that hides it, costs nothing.
            // Its retained value is read on every connect: the drops while we were away (the
            // usual ones: the broker's queue for an offline client is full) show there.
            pendingSubscriptions[try connection.subscribe(Self.droppedTopic, qos: 0, retainedEveryTime: true)] = Self.droppedTopic
            subscribedAll = true
            try connection.publish(topics.availability, "online", qos: 1, retain: true)
            if config.discovery {
                for entity in discovery.entities {
                    try connection.publish(discovery.topic(entity), entity.config.serializedBytes, qos: 1, retain: true)
                }
            }
        } catch {
            // No "subscribed to" line for a session whose subscriptions were not all asked for.
            if !subscribedAll { pendingSubscriptions = [:] }
            logger.error("cannot set up the broker session: \(error)")
        }
        publishedState = nil
        stateDirty = true
    }

    /// The broker's SUBACK. A refused subscription (its access control, most often) would leave
    /// a topic deaf with nothing said: it is logged and published on the error topic.
    private func subscribed(_ messageID: Int32, granted: [Int32]) {
        guard let topic = pendingSubscriptions.removeValue(forKey: messageID) else { return }
        let code = granted.first ?? 0x80
        if code < 0x80 {
            grantedSubscriptions.append(topic)
            refusedSubscriptions.remove(topic)
        } else if topic != Self.droppedTopic {
            let reason = code == 0x87 ? "not authorised" : code == 0x80 ? "refused" : "reason code 0x" + String(code, radix: 16)
            let refusal = Rejection(topic: topic, code: "subscriptionRefused", field: nil,
                "the broker refused the subscription (\(reason)): nothing published on \(topic) reaches this board; let this client read it (the broker's ACL)")
            // A refusal that stands is said once, not at every reconnect.
            if refusedSubscriptions.insert(topic).inserted {
                logger.error("\(refusal)")
                do throws(MQTTError) {
                    try connection.publish(topics.error, refusal.json(payload: []).serializedBytes, qos: 1)
                } catch {
                    logger.error("cannot publish to \(topics.error): \(error)")
                }
            } else {
                logger.debug("\(refusal) (still)")
            }
        }
        // From here on the broker queues what arrives for us while we are away.
        if pendingSubscriptions.isEmpty {
            let listening = grantedSubscriptions.filter { $0 != Self.droppedTopic }
            if listening.isEmpty {
                // Said once while it stands, as each topic's refusal is.
                let deaf = "the broker refused every subscription: no topic reaches this board"
                if deafSaid { logger.debug("\(deaf) (still)") } else { logger.error("\(deaf)") }
                deafSaid = true
            } else {
                deafSaid = false
                logger.info("subscribed to \(listening.joined(separator: ", "))")
            }
        }
    }

    private func disconnected(_ code: Int32) {
        // Scheduling the next attempt is brokerConnectionEnded's, which sees every way a
        // connection ends; a failed TLS handshake ends one without this callback.
        if code != 0, !discarding, brokerReady {
            logger.warning("lost the broker connection: \(MQTTError("mosquitto_loop", subject: "\(config.host):\(config.effectivePort)", code: code)); reconnecting")
        }
        brokerReady = false
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

    /// A message on its way to nookd.
    struct Delivery {
        var message: MQTTMessage
        var operation: NookOperation
        /// Of the topic and payload: with the packet id, what a redelivery has in common with
        /// the first delivery.
        var digest: UInt64
        /// The activity's id is the one derived from the packet id (it had none of its own).
        var derivedID: Bool
        /// What the translation left out (an icon name that is none of the board's, a field it
        /// does not draw): said on the error topic once nookd took the message, with nookd's own
        /// warnings.
        var notes: [String] = []
    }

    /// Passes the batch to nookd, pipelined, and waits for every answer before the loop may
    /// write the PUBACKs libmosquitto queued for them.
    private func processBatch() {
        guard !batch.isEmpty else { return }
        let messages = batch
        batch = []
        var deliveries: [Delivery] = []
        for message in messages {
            guard let kind = topics.kind(of: message.topic) else {
                logger.debug("ignored a message on \(message.topic), which the bridge does not serve")
                continue
            }
            let digest = Self.digest(message)
            if message.qos > 0 {
                let slot = taken[message.messageID & (taken.count - 1)]
                if message.redelivered == true, slot.messageID == message.messageID, slot.digest == digest {
                    logger.notice("\(message.topic): message \(message.messageID) sent again after a lost acknowledgement was taken before; acknowledged")
                    continue
                }
                // A first delivery: the broker uses this packet id for a new message now.
                if message.redelivered != true, slot.messageID == message.messageID {
                    taken[message.messageID & (taken.count - 1)] = (0, 0)
                }
            }
            if kind == .notifyDismiss {
                deliveries += notificationDismissal(message, digest: digest)
                continue
            }
            let makesCard = kind == .activity || kind == .notify
            if !makesCard, kind != .command {
                deliveries += awtrixDeliveries(kind, message: message, digest: digest)
                continue
            }
            // Derived from the session's packet id, so a redelivery (same id, same payload,
            // DUP set) names the same activity, and nookd, which refuses an id it holds,
            // does not show it twice.
            let derived = message.qos > 0 && makesCard ? Self.derivedID(clientID: config.effectiveClientID, message: message, digest: digest) : nil
            var notes: [String] = []
            let decoded = InboundMessage.decode(kind, topic: message.topic, payload: message.payload, retained: message.retained, module: config.module,
                                                retainFlagKept: config.protocolVersion == .v5, activityID: derived, notes: &notes)
            switch decoded {
            case .failure(let rejection):
                report(rejection, payload: message.payload)
            case .success(nil):
                logger.debug("\(message.topic): an empty retained message (clearing what was retained); nothing to do")
            case .success(var operation?):
                operation = keyedIfHeld(operation, kind: kind)
                var isDerived = false
                if case .enqueue(let activity, _, _) = operation, let derived { isDerived = activity.id == derived }
                deliveries.append(Delivery(message: message, operation: operation, digest: digest, derivedID: isDerived, notes: notes))
            }
        }
        while !deliveries.isEmpty {
            guard let again = deliver(deliveries) else { return }
            deliveries = again
        }
    }

    /// AWTRIX's `notify/dismiss`: the held notification on the glass goes, as on an AWTRIX clock.
    /// Which card is on the glass is asked of nookd now (a card the queue put back, or one
    /// still waiting, is not the one a person sees); it is dismissed only when it is a held
    /// notification this bridge put up, never another sender's card. Otherwise nothing.
    /// A held notification is known by its key (``heldKey(clientID:id:)``), which nookd keeps
    /// with the card: so the bridge knows its own after a restart, with nothing of its own kept.
    private func notificationDismissal(_ message: MQTTMessage, digest: UInt64) -> [Delivery] {
        if message.retained {
            logger.debug("\(message.topic): a retained dismissal is not acted on again at each subscription")
            return []
        }
        guard let requests else {
            logger.info("\(message.topic): nookd is not reachable; no held notification dismissed")
            return []
        }
        let status: StatusAnswer
        do throws(ClientError) {
            (status, _) = try requests.request(Request(id: .string("dismissal"), operation: .status), as: StatusAnswer.self)
        } catch {
            if case .daemon = error { logger.error("nookd's status cannot be read: \(error)") } else { nookdLost("\(error)") }
            return []
        }
        let clientID = config.effectiveClientID
        guard let shown = status.modules.compactMap(\.current).first(where: { Self.isHeld($0, clientID: clientID) }) else {
            logger.info("\(message.topic): no held notification of this bridge's on the glass to dismiss")
            return []
        }
        return [Delivery(message: message, operation: .dismiss(shown.id), digest: digest, derivedID: false)]
    }

    /// The key of a held AWTRIX notification (`hold: true`) this bridge puts up: its client id
    /// (the session's, the same across restarts) and the card's own id, so no two of them share
    /// a key (a key shared would coalesce a waiting one away, Q4) and `notify/dismiss` finds the
    /// bridge's own on the glass in nookd's status, whether or not the bridge restarted since.
    public static func heldKey(clientID: String, id: NookActivityID) -> String { heldKeyPrefix(clientID: clientID) + id.description }
    /// A client id too long for a key (``NookActivity/Limits/coalescingKey``) is named by its
    /// FNV-1a hash.
    public static func heldKeyPrefix(clientID: String) -> String {
        guard clientID.utf8.count > 128 else { return "mqtt-hold/\(clientID)/" }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in clientID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "mqtt-hold/fnv-\(String(hash, radix: 16))/"
    }

    /// Whether `activity` is a held notification the bridge of `clientID` put up: a blocker keyed
    /// with its own id (``heldKey(clientID:id:)``). The whole key, not its prefix: the prefix of
    /// client `a` begins the keys of client `a/b` too, another bridge's notifications.
    public static func isHeld(_ activity: NookActivity, clientID: String) -> Bool {
        activity.isBlocker && activity.coalescingKey == heldKey(clientID: clientID, id: activity.id)
    }

    /// A notification's card keyed as held (``heldKey(clientID:id:)``) when it is one.
    private func keyedIfHeld(_ operation: NookOperation, kind: Topics.Inbound) -> NookOperation {
        guard kind == .notify, case .enqueue(var activity, let module, let wait) = operation, activity.isBlocker else { return operation }
        activity.coalescingKey = Self.heldKey(clientID: config.effectiveClientID, id: activity.id)
        return .enqueue(activity, module: module, wait: wait)
    }

    /// The name the bridge states as the sender of the apps it sets (U3).
    public static let appSender = "nook-mqtt"

    /// What an AWTRIX topic's message asks of nookd; a refusal is reported on the error topic
    /// and what was left out of an app is logged.
    private func awtrixDeliveries(_ kind: Topics.Inbound, message: MQTTMessage, digest: UInt64) -> [Delivery] {
        func delivery(_ operation: NookOperation) -> Delivery { Delivery(message: message, operation: operation, digest: digest, derivedID: false) }
        switch AWTRIXInbound.decode(kind, topic: message.topic, payload: message.payload, retained: message.retained) {
        case .failure(let rejection):
            report(rejection, payload: message.payload)
            return []
        case .success(.nothing(let why)):
            logger.debug("\(message.topic): \(why)")
            return []
        case .success(.operation(let operation)):
            return [delivery(operation)]
        case .success(.set(let apps)):
            // An array is set whole or not at all, in one step of nookd's.
            var set = delivery(apps.count == 1 ? .appSet(apps[0].app) : .appSetAll(apps.map(\.app)))
            set.notes = apps.flatMap { app in app.remarks.map { "app \(app.app.name): \($0)" } }
            return [set]
        case .success(.remove(let name)):
            return appsMadeOf(name).map { delivery(.appRemove($0)) }
        }
    }

    /// `name` and the APP0, APP1, … an array sent to it made, of those the bridge set.
    private func appsMadeOf(_ name: String) -> [String] {
        guard let requests else { return [name] }
        let apps: AppListAnswer
        do throws(ClientError) {
            (apps, _) = try requests.request(Request(id: .string("apps"), operation: .appList), as: AppListAnswer.self)
        } catch {
            logger.warning("nookd's app list cannot be read (\(error)); removing \(name) alone")
            return [name]
        }
        // APP held by another sender: nookd refuses its removal (reported), and its parts stay.
        if let held = apps.apps.first(where: { $0.app.name == name })?.app, !(held.sender?.relayed == true && held.sender?.name == Self.appSender) {
            return [name]
        }
        let numbered = apps.apps.map(\.app).filter { app in
            app.name.hasPrefix(name) && app.name != name && app.name.dropFirst(name.count).allSatisfy { $0.isASCII && $0.isNumber }
                && app.sender?.relayed == true && app.sender?.name == Self.appSender
        }
        return [name] + numbered.map(\.name)
    }

    /// Sends `deliveries` to nookd in one write and reads every answer. Returns those to send
    /// again (a derived id that named an earlier message), or nil when the batch was abandoned.
    private func deliver(_ deliveries: [Delivery]) -> [Delivery]? {
        var sent: [(id: Double, delivery: Delivery)] = []
        // One write for the whole batch: nookd reads it as one pipelined burst.
        var lines: [UInt8] = []
        for delivery in deliveries {
            nextRequestID += 1
            // An app's owner is the bridge under its stated name (U3): a broker's clients may
            // change the apps they set, never another sender's.
            let sender = [.appSet, .appSetAll, .appRemove].contains(delivery.operation.name) ? Self.appSender : nil
            let line = Request(id: .number(nextRequestID), operation: delivery.operation, sender: sender).encoded().utf8
            // The payload limit is not the line limit: a 64 KiB payload escaped into a
            // request can be longer than nookd reads, and nookd's refusal of it carries no
            // id, which would leave the whole batch unacknowledged and sent again forever.
            guard line.count <= NookProtocol.maximumLineBytes else {
                let array = if case .appSetAll(let apps) = delivery.operation {
                    " (these \(apps.count) apps are set in one step: send fewer apps or shorter texts)"
                } else { "" }
                report(Rejection(topic: delivery.message.topic, ProtocolError(.lineTooLong, field: "payload",
                    "the request made from this payload is \(line.count) bytes; nookd reads at most \(NookProtocol.maximumLineBytes)" + array)),
                       payload: delivery.message.payload)
                continue
            }
            lines += line
            lines.append(0x0A)
            sent.append((nextRequestID, delivery))
        }
        guard !sent.isEmpty else { return [] }
        guard let requests else { abandonBatch("nookd is not connected"); return nil }
        do throws(ClientError) { try requests.sendRaw(lines) } catch {
            abandonBatch("\(error)")
            return nil
        }
        logger.debug("passed \(sent.count) message(s) to nookd; waiting for its answers before acknowledging")
        // Matched by request id, not by position: nothing here assumes nookd answers in order.
        var waiting: [RequestID: Delivery] = [:]
        waiting.reserveCapacity(sent.count)
        for entry in sent { waiting[.number(entry.id)] = entry.delivery }
        var again: [Delivery] = []
        while !waiting.isEmpty {
            let response: ResponseLine
            let line: [UInt8]
            do throws(ClientError) {
                guard let read = try requests.readLine() else { abandonBatch("nookd closed the connection"); return nil }
                line = read
                // An accepted request needs only its id read (parsing every answer
                // whole was a tenth of the bridge's time); refusals are parsed for their reason.
                if let id = ResponseLine.acceptedNumberID(in: line), !Self.mayWarn(line) {
                    response = .success(id: .number(id), result: .null)
                } else {
                    do { response = try ResponseLine.decode(line) } catch { throw .daemon(error) }
                }
            } catch {
                abandonBatch("\(error)")
                return nil
            }
            switch response {
            case .success(let id?, let result):
                guard let entry = waiting.removeValue(forKey: id) else { continue }
                recordTaken(entry)
                sayNotTaken(entry, entry.notes + Self.warnings(in: result, of: entry.operation))
                if case .enqueue = entry.operation {} else { stateDirty = true }
                noteCommandDone(entry, answer: line)
            case .failure(let id?, let error):
                guard let entry = waiting.removeValue(forKey: id) else { continue }
                if case .dismiss = entry.operation, error.code == .notFound, topics.kind(of: entry.message.topic) == .notifyDismiss {
                    // It ended between nookd's status and the dismissal: what was asked is done.
                    recordTaken(entry)
                    logger.info("\(entry.message.topic): the held notification had already gone")
                    continue
                }
                if case .appRemove(let name) = entry.operation, error.code == .notFound {
                    // Removing what is not there (a retained message cleared twice) is done.
                    recordTaken(entry)
                    logger.debug("\(entry.message.topic): no app \(name) to remove")
                    continue
                }
                if Self.isRedelivery(error, of: entry.operation) {
                    if entry.derivedID, entry.message.redelivered != true, case .enqueue(var activity, let module, let wait) = entry.operation {
                        // Not sent before, yet its derived id is held: an earlier message had
                        // this packet id and the same payload. This one is new.
                        activity.id = NookActivityID()
                        if activity.coalescingKey?.hasPrefix(Self.heldKeyPrefix(clientID: config.effectiveClientID)) == true {
                            activity.coalescingKey = Self.heldKey(clientID: config.effectiveClientID, id: activity.id)
                        }
                        again.append(Delivery(message: entry.message, operation: .enqueue(activity, module: module, wait: wait),
                                              digest: entry.digest, derivedID: false))
                        continue
                    }
                    recordTaken(entry)
                    logger.notice("\(entry.message.topic): activity already taken (a message sent again after a lost acknowledgement); acknowledged")
                } else {
                    report(Rejection(topic: entry.message.topic, error), payload: entry.message.payload)
                }
            case .failure(nil, let error):
                // nookd could not tell which request this answers (a line it could not read):
                // nothing can be acknowledged on that footing.
                abandonBatch("nookd answered a request it could not identify: \(error)")
                return nil
            case .success(nil, _), .event:
                continue
            }
        }
        return again
    }

    /// A new value of the broker's dropped-message counter: a rise since the last one is logged
    /// and published on the error topic. The counter is the broker's, for all its clients; it
    /// says that messages were lost, not whose.
    private func noteDropped(_ payload: [UInt8]) {
        guard let text = String(validating: payload, as: UTF8.self), let count = Int(text.trimmingWhitespace()) else { return }
        defer { droppedByBroker = count }
        logger.debug("the broker has dropped \(count) message(s) since it started")
        guard let before = droppedByBroker else { return }
        // A count below the last one is counted again from 0: the broker restarted since.
        let rise = count >= before ? count - before : count
        guard rise > 0 else { return }
        let rejection = Rejection(topic: Self.droppedTopic, code: "dropped", field: nil,
            "the broker dropped \(rise) message(s) (\(count) since it started), for this board or another of its clients: messages beyond its max_queued_messages per client (1000 by default) are dropped, also for a connected client; raise it (nook-mqtt(8), BROKER LIMITS)")
        logger.warning("\(rejection)")
        guard brokerReady else { return }
        do throws(MQTTError) {
            try connection.publish(topics.error, rejection.json(payload: payload).serializedBytes, qos: 1)
        } catch {
            logger.error("cannot publish to \(topics.error): \(error)")
        }
    }

    /// A command's outcome in the log, as nookd answered it: a dismiss that met a card already
    /// leaving on its own ends nothing more, and says so (`alreadyEnding`). Commands are few;
    /// activities and apps, which come in bursts, are not logged one by one.
    private func noteCommandDone(_ delivery: Delivery, answer line: [UInt8]) {
        switch delivery.operation {
        case .enqueue, .appSet, .appSetAll, .appRemove: return
        default: break
        }
        let result = (try? ResponseLine.decode(line)).flatMap { response -> String? in
            if case .success(_, let result) = response { result.serialized } else { nil }
        } ?? "done"
        logger.info("\(delivery.message.topic): \(delivery.operation.name.rawValue): \(result)")
    }

    private func recordTaken(_ delivery: Delivery) {
        guard delivery.message.qos > 0 else { return }
        taken[delivery.message.messageID & (taken.count - 1)] = (delivery.message.messageID, delivery.digest)
    }

    /// FNV-1a of the topic and the payload.
    static func digest(_ message: MQTTMessage) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in message.topic.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        hash = (hash ^ 0) &* 0x100_0000_01b3
        for byte in message.payload { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// The activity id of a message without one: the same for the same client id, packet id,
    /// topic and payload, i.e. for the broker's redelivery of a message to this session.
    static func derivedID(clientID: String, message: MQTTMessage, digest: UInt64) -> NookActivityID {
        var seed = digest
        for byte in clientID.utf8 { seed = (seed ^ UInt64(byte)) &* 0x100_0000_01b3 }
        seed = (seed ^ UInt64(message.messageID)) &* 0x100_0000_01b3
        var generator = SplitMix(state: seed)
        return NookActivityID(using: &generator)
    }

    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
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

    /// Whether an accepted answer may carry `warnings`: then it is read whole, not by its id alone.
    static func mayWarn(_ line: [UInt8]) -> Bool {
        let member = Array("\"warnings\"".utf8)
        guard line.count >= member.count else { return false }
        return (0...(line.count - member.count)).contains { line[$0..<$0 + member.count].elementsEqual(member) }
    }

    /// nookd's warnings in an accepted answer (an icon it does not know, characters its LED font
    /// lacks): an array's are each named by their app.
    static func warnings(in result: JSONValue, of operation: NookOperation) -> [String] {
        guard result != .null else { return [] }
        if case .appSetAll = operation { return (try? AppSetAllAnswer(json: result))?.warnings ?? [] }
        return result["warnings"]?.items.compactMap(\.text) ?? []
    }

    /// What of a message nookd took the glass will not show as sent: logged and published on
    /// the error topic as a refusal is, with the code `warning` (the message was taken).
    private func sayNotTaken(_ delivery: Delivery, _ warnings: [String]) {
        for warning in warnings {
            let said = Rejection(topic: delivery.message.topic, code: "warning", field: nil, warning)
            logger.notice("took a message with a warning: \(said)")
            guard brokerReady else { continue }
            do throws(MQTTError) {
                try connection.publish(topics.error, said.json(payload: delivery.message.payload).serializedBytes, qos: 1)
            } catch {
                logger.error("cannot publish to \(topics.error): \(error)")
            }
        }
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
