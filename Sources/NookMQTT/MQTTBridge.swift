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

    let options: Options
    var config: MQTTConfig { options.config }
    let logger: Logger
    public let topics: Topics
    let discovery: Discovery
    let connection: MQTTConnection

    var requests: NookClient?
    var events: NookClient?
    var nookdBackoff = ReconnectBackoff()
    var nextNookdAttempt = 0.0
    var nookdWarned = false

    /// CONNACK accepted and not lost since.
    var brokerReady = false
    var brokerBackoff = ReconnectBackoff()
    /// Said once per outage: a broker down for a day must not fill the journal.
    var brokerWarned = false
    var nextBrokerAttempt = 0.0
    /// A connection (or an attempt at one) is open: its end, whichever way it ends (refused,
    /// lost, or a TLS handshake that fails without a disconnect callback), schedules the next.
    var brokerAttempt: (started: Double, acceptedAt: Double?)?
    /// Why the last attempt failed, logged again only when it changes (a wrong CA file must not
    /// fill the journal either); libmosquitto's error lines during an attempt end up here.
    var attemptFailure: String?
    var lastAttemptFailure: String?
    /// The backoff starts again from its first step only after a connection that lasted this
    /// long: one the broker accepts and then drops at once (a client id taken over by another
    /// board, an ACL) must not be retried four times a second.
    static let stableConnection = 10.0
    /// We left the broker on purpose (nookd went away): not a failure to report.
    var abandoning = false

    /// Messages nookd took in this session, by packet id (its low bits): the broker sends a
    /// message again with the same packet id and the DUP flag when it saw no PUBACK, and one
    /// recorded here is acknowledged without showing it again, even after its card has ended.
    var taken = [(messageID: Int, digest: UInt64)](repeating: (0, 0), count: 2048)

    /// This session's subscriptions the broker has not answered yet, by packet id, and those it granted.
    var pendingSubscriptions: [Int32: String] = [:]
    var grantedSubscriptions: [String] = []
    /// Topics the broker refused, kept across reconnects: a refusal that stands is logged and
    /// published once, not at every reconnect of a flaky link; a grant forgets it.
    var refusedSubscriptions: Set<String> = []
    /// The broker refused every subscription and that was said (at the next grant, forgotten).
    var deafSaid = false
    /// The broker's count of messages it dropped (for any client), as last read: a rise is
    /// reported, since a dropped message never reaches the bridge (see docs/mqtt.md, "Broker limits").
    var droppedByBroker: Int?
    static let droppedTopic = "$SYS/broker/publish/messages/dropped"
    var batch: [MQTTMessage] = []
    var discarding = false
    var nextRequestID = 0.0

    var publishedState: JSONValue?
    /// The sound output's `played` at the last read of status (B4), to see a sound that began and
    /// ended between two reads.
    var soundPlaysRead: Int?
    /// What the discovery published this session announced the board offers; nil: none yet.
    var publishedOffers: Discovery.Offers?
    /// What of AWTRIX's stats was published this session (M1), by what it is.
    var publishedAWTRIX: [String: JSONValue] = [:]
    /// An event said `state` may have changed: it is read again within ``stateCoalescing``.
    var stateDirty = true
    var lastStateRefresh = 0.0
    /// Events in a burst share one `status` request.
    static let stateCoalescing = 0.05
    /// `mqtt.state_poll_ms`: off unless set (nookd announces every change as an event).
    var statePollInterval: Double? { config.statePollMilliseconds > 0 ? Double(config.statePollMilliseconds) / 1000 : nil }
    /// libmosquitto sends a PINGREQ from `housekeeping()` once a keepalive period passed without
    /// traffic; called every quarter period, a ping is at most that late.
    var housekeepingInterval: Double { Double(config.keepalive) / 4 }
    /// How nookd starts each event line of the bridge's `watch` (asked for with id "watch").
    static let watchEventPrefix = ResponseLine.eventLinePrefix(id: .string("watch"))
    /// Whether the start-up's pages were dropped (once, after the first state was published).
    var trimmed = false
    /// When a burst's code and data pages are dropped again (`mqtt_bridge_idle_rss_mib`).
    var trim = IdleTrim()

    public init(options: Options, logger: Logger) throws(BridgeError) {
        self.options = options
        self.logger = logger
        topics = Topics(prefix: options.config.prefix, device: options.config.device, awtrixPrefix: options.config.awtrixPrefix)
        discovery = Discovery(topics: topics, prefix: options.config.discoveryPrefix, identity: options.config.identity)
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
}
