internal import CMosquitto
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// A failed libmosquitto call: its name, what it was called on and libmosquitto's reason
/// (`'mosquitto_connect' failed for localhost:1883: (111) Connection refused`).
public struct MQTTError: Error, Sendable, CustomStringConvertible {
    public var call: String
    public var subject: String?
    /// libmosquitto's `MOSQ_ERR_*` code.
    public var code: Int32
    public var reason: String

    init(_ call: String, subject: String? = nil, code: Int32) {
        (self.call, self.subject, self.code) = (call, subject, code)
        // MOSQ_ERR_ERRNO: the reason is the system call's errno, set by the call just made.
        if code == Int32(MOSQ_ERR_ERRNO.rawValue) {
            reason = Errno.current.description
        } else {
            reason = String(cString: mosquitto_strerror(code))
        }
    }

    init(_ call: String, subject: String? = nil, reason: String) {
        (self.call, self.subject, self.code, self.reason) = (call, subject, -1, reason)
    }

    public var description: String {
        "'\(call)' failed" + (subject.map { " for \($0)" } ?? "") + ": " + reason
    }
}

/// One message from the broker.
public struct MQTTMessage: Sendable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int
    /// Published with the retain flag (MQTT 5 subscriptions keep it as published), or sent
    /// because it was retained when we subscribed.
    public var retained: Bool
    /// The packet id the broker gave it (0 for QoS 0): a redelivery to the same session carries
    /// the same id.
    public var messageID: Int = 0
    /// The PUBLISH packet's DUP flag: the broker sent this message to this session before and
    /// saw no PUBACK. Nil when it could not be read.
    public var redelivered: Bool? = nil
}

/// The one owner of a libmosquitto client (`struct mosquitto`), driven by its owner's own
/// `poll(2)` loop: ``descriptor``, ``wantsWrite``, ``readPackets()``, ``writePackets()``,
/// ``housekeeping()``. Callbacks run inside those calls, on the calling thread.
///
/// It is marked threaded (`mosquitto_threaded_set`), which in libmosquitto 2.0 means a queued
/// packet is never written from inside the call that queued it: only ``writePackets()``
/// writes. The bridge depends on this for E5 (see `MQTTBridge`): libmosquitto queues a QoS 1
/// message's PUBACK *before* it calls `on_message` (lib/handle_publish.c), so the PUBACK
/// must not reach the wire until nookd has accepted the message.
public final class MQTTConnection {
    /// The MQTT version spoken. 5 lets the bridge say how many unacknowledged messages the broker
    /// may send it at once (Receive Maximum); 3.1.1 leaves that to the broker's own setting
    /// (mosquitto's `max_inflight_messages`, 20 by default), which caps the bridge's rate at 20
    /// per round trip to nookd.
    public enum ProtocolVersion: String, Sendable, Equatable {
        case v311 = "3.1.1"
        case v5 = "5"
    }

    public struct Options: Sendable {
        public var clientID: String
        /// False: a persistent session the broker keeps while we are away (E5).
        public var cleanSession: Bool
        public var host: String
        public var port: Int
        public var keepalive: Int
        public var credentials: Credentials?
        public var tls: MQTTConfig.TLS?
        /// The last will: topic, payload, retained; published by the broker if we vanish.
        public var will: (topic: String, payload: String, retain: Bool)?
        public var protocolVersion: ProtocolVersion
        /// MQTT 5 only: how many QoS 1 messages the broker may send before we acknowledge any.
        public var receiveMaximum: Int

        public init(clientID: String, cleanSession: Bool, host: String, port: Int, keepalive: Int = 30,
                    credentials: Credentials? = nil, tls: MQTTConfig.TLS? = nil, will: (topic: String, payload: String, retain: Bool)? = nil,
                    protocolVersion: ProtocolVersion = .v311, receiveMaximum: Int = 20) {
            (self.clientID, self.cleanSession, self.host, self.port, self.keepalive) = (clientID, cleanSession, host, port, keepalive)
            (self.credentials, self.tls, self.will) = (credentials, tls, will)
            (self.protocolVersion, self.receiveMaximum) = (protocolVersion, receiveMaximum)
        }
    }

    /// CONNACK: the code (0 accepted) and whether the broker still had our session.
    public var onConnect: ((_ code: Int32, _ sessionPresent: Bool) -> Void)?
    /// The connection ended; 0 when we asked for it.
    public var onDisconnect: ((_ code: Int32) -> Void)?
    public var onMessage: ((MQTTMessage) -> Void)?
    /// An outgoing QoS 1 message was acknowledged by the broker.
    public var onPublished: ((_ messageID: Int32) -> Void)?
    /// The broker answered a subscription (SUBACK): for each topic of it, the QoS it granted, or
    /// a failure code of 0x80 and up (MQTT 3.1.1's 0x80; MQTT 5's reason, 0x87 when its ACL denies).
    public var onSubscribed: ((_ messageID: Int32, _ granted: [Int32]) -> Void)?
    /// libmosquitto's own warnings and errors (a TLS handshake's OpenSSL reason lands here).
    public var onLog: ((_ error: Bool, _ message: String) -> Void)?

    public let options: Options
    private let handle: OpaquePointer
    private var hasConnected = false
    /// How libmosquitto's debug line for an incoming PUBLISH starts; the line comes just before
    /// `on_message` (lib/handle_publish.c) and is the only place libmosquitto shows the DUP flag.
    private let publishLogPrefix: [UInt8]
    /// The DUP flag and packet id of the PUBLISH just logged, for the `on_message` that follows.
    private var loggedPublish: (messageID: Int, duplicate: Bool)?

    private static let libraryInit: Int32 = mosquitto_lib_init()

    public init(options: Options) throws(MQTTError) {
        self.options = options
        publishLogPrefix = Array("Client \(options.clientID) received PUBLISH (d".utf8)
        if Self.libraryInit != 0 { throw MQTTError("mosquitto_lib_init", code: Self.libraryInit) }
        guard let handle = mosquitto_new(options.clientID, options.cleanSession, nil) else {
            throw MQTTError("mosquitto_new", subject: options.clientID, code: Int32(MOSQ_ERR_ERRNO.rawValue))
        }
        self.handle = handle
        try check("mosquitto_threaded_set", mosquitto_threaded_set(handle, true))
        switch options.protocolVersion {
        case .v311:
            try check("mosquitto_int_option", subject: "MOSQ_OPT_PROTOCOL_VERSION", mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311)))
        case .v5:
            try check("mosquitto_int_option", subject: "MOSQ_OPT_PROTOCOL_VERSION", mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V5)))
            try check("mosquitto_int_option", subject: "MOSQ_OPT_RECEIVE_MAXIMUM \(options.receiveMaximum)",
                      mosquitto_int_option(handle, MOSQ_OPT_RECEIVE_MAXIMUM, Int32(options.receiveMaximum)))
        }
        if let will = options.will {
            let bytes = Array(will.payload.utf8)
            try check("mosquitto_will_set", subject: will.topic, mosquitto_will_set(handle, will.topic, Int32(bytes.count), bytes, 1, will.retain))
        }
        if let credentials = options.credentials {
            try check("mosquitto_username_pw_set", mosquitto_username_pw_set(handle, credentials.username, credentials.password))
        }
        if let tls = options.tls {
            try check("mosquitto_tls_set", subject: tls.caFile, mosquitto_tls_set(handle, tls.caFile, nil, tls.certFile, tls.keyFile, nil))
            // Verify the broker's certificate and its name: never the "insecure" mode.
            try check("mosquitto_tls_opts_set", mosquitto_tls_opts_set(handle, 1, nil, nil))
        }
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_with_flags_callback_set(handle) { _, userdata, code, flags in
            MQTTConnection.owner(userdata)?.onConnect?(code, flags & 1 != 0)
        }
        mosquitto_disconnect_callback_set(handle) { _, userdata, code in
            MQTTConnection.owner(userdata)?.onDisconnect?(code)
        }
        mosquitto_message_callback_set(handle) { _, userdata, message in
            guard let connection = MQTTConnection.owner(userdata), let message = message?.pointee else { return }
            let payload = message.payloadlen > 0 && message.payload != nil
                ? Array(UnsafeRawBufferPointer(start: message.payload, count: Int(message.payloadlen)))
                : []
            var received = MQTTMessage(topic: String(cString: message.topic), payload: payload, qos: Int(message.qos), retained: message.retain,
                                       messageID: Int(message.mid))
            if let logged = connection.loggedPublish, logged.messageID == received.messageID { received.redelivered = logged.duplicate }
            connection.loggedPublish = nil
            connection.onMessage?(received)
        }
        mosquitto_publish_callback_set(handle) { _, userdata, messageID in
            MQTTConnection.owner(userdata)?.onPublished?(messageID)
        }
        mosquitto_subscribe_callback_set(handle) { _, userdata, messageID, count, granted in
            let codes = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(count, 0)))) } ?? []
            MQTTConnection.owner(userdata)?.onSubscribed?(messageID, codes)
        }
        mosquitto_log_callback_set(handle) { _, userdata, level, text in
            guard let text, let connection = MQTTConnection.owner(userdata) else { return }
            if level == Int32(MOSQ_LOG_DEBUG) {
                // Other debug lines (the PUBACK queued for it) come between it and `on_message`.
                if let publish = connection.parsePublishLine(text) { connection.loggedPublish = publish }
                return
            }
            guard level & Int32(MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0 else { return }
            connection.onLog?(level & Int32(MOSQ_LOG_ERR) != 0, String(cString: text))
        }
    }

    /// `Client ID received PUBLISH (d1, q1, r0, m42, 'topic', ... (N bytes))`: the DUP flag and
    /// the packet id, or nil for any other line.
    private func parsePublishLine(_ text: UnsafePointer<CChar>) -> (messageID: Int, duplicate: Bool)? {
        let prefixCount = publishLogPrefix.count
        let matches = publishLogPrefix.withUnsafeBufferPointer { prefix in
            prefix.baseAddress!.withMemoryRebound(to: CChar.self, capacity: prefixCount) { strncmp(text, $0, prefixCount) == 0 }
        }
        guard matches else { return nil }
        // After the prefix: "1, q1, r0, m42, ..."
        var cursor = text + prefixCount
        let duplicate: Bool
        switch cursor.pointee {
        case 0x31: duplicate = true
        case 0x30: duplicate = false
        default: return nil
        }
        // The packet id follows ", m".
        while cursor.pointee != 0, !(cursor.pointee == 0x6D && (cursor - 1).pointee == 0x20) { cursor += 1 }
        guard cursor.pointee == 0x6D else { return nil }
        cursor += 1
        var messageID = 0
        while cursor.pointee >= 0x30, cursor.pointee <= 0x39, messageID < 1 << 20 {
            messageID = messageID * 10 + Int(cursor.pointee - 0x30)
            cursor += 1
        }
        guard cursor.pointee == 0x2C else { return nil }
        return (messageID, duplicate)
    }

    private static func owner(_ userdata: UnsafeMutableRawPointer?) -> MQTTConnection? {
        userdata.map { Unmanaged<MQTTConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    deinit {
        mosquitto_destroy(handle)
    }

    private func check(_ call: String, subject: String? = nil, _ code: Int32) throws(MQTTError) {
        if code != 0 { throw MQTTError(call, subject: subject, code: code) }
    }

    private var address: String { "\(options.host):\(options.port)" }

    /// Opens the TCP connection and queues CONNECT (the first time `mosquitto_connect`, then
    /// `mosquitto_reconnect`, which also drops every packet still queued from the last
    /// connection: an unsent PUBACK stays unsent, so the broker sends that message again).
    /// Blocks for the TCP connect only; the TLS handshake and CONNACK come through the loop.
    public func connect() throws(MQTTError) {
        if options.protocolVersion == .v5 {
            // MQTT 5 ends a session at disconnect unless CONNECT asks for it to be kept, and
            // `mosquitto_reconnect` sends no properties: every connection is made here, with
            // them. Like a reconnect it first drops every packet still queued (unsent PUBACKs too).
            var properties: OpaquePointer?
            defer { mosquitto_property_free_all(&properties) }
            if !options.cleanSession {
                // "Never expires": a 3.1.1 persistent session's lifetime, kept until the broker's
                // own `persistent_client_expiration`.
                try check("mosquitto_property_add_int32", subject: "session expiry",
                          mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), UInt32.max))
            }
            try check("mosquitto_connect_bind_v5", subject: address,
                      mosquitto_connect_bind_v5(handle, options.host, Int32(options.port), Int32(options.keepalive), nil, properties))
            hasConnected = true
            return
        }
        if hasConnected {
            try check("mosquitto_reconnect", subject: address, mosquitto_reconnect(handle))
        } else {
            try check("mosquitto_connect", subject: address, mosquitto_connect(handle, options.host, Int32(options.port), Int32(options.keepalive)))
            hasConnected = true
        }
    }

    /// The socket, or -1 while there is no connection.
    public var descriptor: Int32 { mosquitto_socket(handle) }
    public var wantsWrite: Bool { mosquitto_want_write(handle) }

    /// `mosquitto_loop_read`: reads what the socket has and runs the callbacks. Queued
    /// answers (PUBACK) are not written here.
    @discardableResult
    public func readPackets() -> Int32 { mosquitto_loop_read(handle, 1) }

    /// `mosquitto_loop_write`: writes every queued packet it can.
    @discardableResult
    public func writePackets() -> Int32 { mosquitto_loop_write(handle, 1) }

    /// `mosquitto_loop_misc`: keepalive pings and retries; call at least once a second.
    @discardableResult
    public func housekeeping() -> Int32 { mosquitto_loop_misc(handle) }

    /// Queues a message; written by the next ``writePackets()``. Returns its message id.
    @discardableResult
    public func publish(_ topic: String, _ payload: [UInt8], qos: Int = 1, retain: Bool = false) throws(MQTTError) -> Int32 {
        var messageID: Int32 = 0
        try check("mosquitto_publish", subject: topic, mosquitto_publish(handle, &messageID, topic, Int32(payload.count), payload, Int32(qos), retain))
        return messageID
    }

    /// The same for part of a buffer (an event cut out of nookd's line), without copying it.
    public func publish(_ topic: String, slice payload: ArraySlice<UInt8>, qos: Int = 1, retain: Bool = false) throws(MQTTError) {
        var messageID: Int32 = 0
        let code = payload.withUnsafeBytes { bytes in
            mosquitto_publish(handle, &messageID, topic, Int32(bytes.count), bytes.baseAddress, Int32(qos), retain)
        }
        try check("mosquitto_publish", subject: topic, code)
    }

    public func publish(_ topic: String, _ text: String, qos: Int = 1, retain: Bool = false) throws(MQTTError) {
        try publish(topic, Array(text.utf8), qos: qos, retain: retain)
    }

    /// Subscribes. With MQTT 5 the broker keeps each message's retain flag as it was published
    /// (Retain As Published), so a retained publish can be told from an ordinary one even while
    /// we are connected, and sends retained messages only when the subscription is new, not
    /// again on every reconnect of a kept session. MQTT 3.1.1 has neither: the broker clears
    /// the flag on what it forwards live and sends what is retained on every subscribe.
    /// `retainedEveryTime` asks for what is retained on every subscribe with MQTT 5 too: a value read
    /// afresh after each reconnect (a counter that moved while we were away).
    /// Returns the packet id its SUBACK (``onSubscribed``) will carry.
    @discardableResult
    public func subscribe(_ topic: String, qos: Int = 1, retainedEveryTime: Bool = false) throws(MQTTError) -> Int32 {
        var messageID: Int32 = 0
        switch options.protocolVersion {
        case .v311:
            try check("mosquitto_subscribe", subject: topic, mosquitto_subscribe(handle, &messageID, topic, Int32(qos)))
        case .v5:
            let sendRetained = retainedEveryTime ? MQTT_SUB_OPT_SEND_RETAIN_ALWAYS : MQTT_SUB_OPT_SEND_RETAIN_NEW
            let subscriptionOptions = Int32(MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue | sendRetained.rawValue)
            try check("mosquitto_subscribe_v5", subject: topic,
                      mosquitto_subscribe_v5(handle, &messageID, topic, Int32(qos), subscriptionOptions, nil))
        }
        return messageID
    }

    /// A polite end: DISCONNECT is queued (the will is not published); written by ``writePackets()``.
    public func disconnect() {
        _ = mosquitto_disconnect(handle)
    }

    /// Ends the connection without writing anything still queued — above all the PUBACKs of
    /// messages nookd did not take — and without DISCONNECT, so the broker publishes the will
    /// and sends the unacknowledged messages again on the next connection (E5).
    public func abandon() {
        let fd = descriptor
        guard fd >= 0 else { return }
        try? System.shutdown(fd, SHUT_RDWR)
        // libmosquitto notices on its next read (end of file), closes the socket and reports
        // the disconnect; whatever it still reads meanwhile is answered into a queue that is
        // never written.
        for _ in 0..<10_000 where descriptor >= 0 {
            readPackets()
        }
    }

    public static func connackDescription(_ code: Int32) -> String {
        String(cString: mosquitto_connack_string(code))
    }

    /// A CONNACK's refusal in words: MQTT 5 reason codes, or 3.1.1 return codes. The two
    /// credential refusals read the same in both ("not authorised").
    public func refusal(_ code: Int32) -> String {
        guard options.protocolVersion == .v5 else { return Self.connackDescription(code) }
        switch code {
        case Int32(MQTT_RC_BAD_USERNAME_OR_PASSWORD.rawValue): return Self.connackDescription(4)
        case Int32(MQTT_RC_NOT_AUTHORIZED.rawValue): return Self.connackDescription(5)
        case Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue):
            return "Connection Refused: unsupported protocol version (this broker does not speak MQTT 5: set mqtt.protocol = \"3.1.1\")"
        default: return "Connection Refused: " + String(cString: mosquitto_reason_string(code))
        }
    }

    /// Whether a CONNACK refused the user name or password (or what they may do).
    public func refusedCredentials(_ code: Int32) -> Bool {
        switch options.protocolVersion {
        case .v311: code == 4 || code == 5
        case .v5: code == Int32(MQTT_RC_BAD_USERNAME_OR_PASSWORD.rawValue) || code == Int32(MQTT_RC_NOT_AUTHORIZED.rawValue)
        }
    }
}
