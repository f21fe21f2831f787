import NookConfig
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// The bridge's settings (SPEC E4–E7), read from its own file (`/etc/nook/mqtt.toml`) with
/// NookConfig's rules: every error names the file, the line and the key. A file of its own,
/// not a table in nookd's: nookd never reads what the network-facing process needs, and the
/// bridge never reads the display's settings.
public struct MQTTConfig: Sendable, Equatable {
    public var host = "localhost"
    /// 1883, or 8883 with TLS, unless set.
    public var port: Int?
    public var keepalive = 30
    /// MQTT 5 unless set to 3.1.1 (for a broker older than MQTT 5, such as mosquitto before 1.6).
    public var protocolVersion = MQTTConnection.ProtocolVersion.v5
    /// Stable across restarts, so the broker keeps the session (E5); `nook-mqtt-DEVICE` unless set.
    public var clientID: String?
    public var prefix = "nook"
    /// Where AWTRIX's custom-app topics start (`AWTRIX/custom/APP`, `AWTRIX/switch`, …);
    /// nil: `PREFIX/DEVICE`.
    public var awtrixPrefix: String?
    /// This board's name in topics; the host name unless set.
    public var device: String
    /// nookd's queue module the cards go to; nil: the foreground one.
    public var module: String?
    /// A file of `username = "…"` and `password = "…"`, readable by the bridge's user only.
    public var credentialsFile: String?
    /// Sends credentials over plain TCP; off unless the file says so (E6).
    public var allowPlainCredentials = false
    public var tls: TLS?
    public var discovery = true
    public var discoveryPrefix = "homeassistant"
    /// How often `state` is read from nookd even when no event says it changed; 0, the
    /// default, never: nookd's `watch` stream announces every change (`status` events).
    public var statePollMilliseconds = 0

    public struct TLS: Sendable, Equatable {
        public var caFile: String
        public var certFile: String?
        public var keyFile: String?

        public init(caFile: String, certFile: String? = nil, keyFile: String? = nil) {
            (self.caFile, self.certFile, self.keyFile) = (caFile, certFile, keyFile)
        }
    }

    public init(device: String = MQTTConfig.hostName()) {
        self.device = device
    }

    public var effectivePort: Int { port ?? (tls == nil ? 1883 : 8883) }
    public var effectiveClientID: String { clientID ?? "nook-mqtt-" + device }
    /// In UTF-8 bytes.
    public static let longestClientID = 256

    public static let defaultPath = "/etc/nook/mqtt.toml"
    static let tables = ["mqtt", "mqtt.tls", "homeassistant"]

    /// Reads and checks `document`; unknown keys are errors (a typo must not pass silently).
    public init(_ document: ConfigDocument) throws(ConfigError) {
        self.init()
        let reader = ConfigReader(document)
        host = try reader.string("mqtt.host") ?? host
        guard !host.isEmpty else { throw reader.error("mqtt.host", "must not be empty") }
        port = try reader.integer("mqtt.port", in: 1...65535)
        keepalive = try reader.integer("mqtt.keepalive", in: 5...65535) ?? keepalive
        if let version = try reader.string("mqtt.protocol") {
            guard let known = MQTTConnection.ProtocolVersion(rawValue: version) else {
                throw reader.error("mqtt.protocol", "must be \"5\" or \"3.1.1\", got \"\(version)\"")
            }
            protocolVersion = known
        }
        clientID = try reader.string("mqtt.client_id")
        if let clientID, clientID.isEmpty {
            throw reader.error("mqtt.client_id", "must not be empty")
        }
        prefix = try reader.string("mqtt.prefix") ?? prefix
        try Self.checkTopicLevels(prefix, key: "mqtt.prefix", reader: reader, allowSlash: true)
        awtrixPrefix = try reader.string("mqtt.awtrix_prefix")
        if let awtrixPrefix { try Self.checkTopicLevels(awtrixPrefix, key: "mqtt.awtrix_prefix", reader: reader, allowSlash: true) }
        if let name = try reader.string("mqtt.device") { device = name }
        try Self.checkTopicLevels(device, key: "mqtt.device", reader: reader, allowSlash: false)
        guard device != "all" else { throw reader.error("mqtt.device", "'all' is the topic every board listens on; pick another name") }
        // libmosquitto shows a message's DUP flag only in a debug line it cuts at about 560
        // bytes, after the client id: with a longer id a redelivery would be shown again.
        if effectiveClientID.utf8.count > Self.longestClientID {
            let key = clientID == nil ? "mqtt.device" : "mqtt.client_id"
            throw reader.error(key, clientID == nil
                ? "makes a client id ('nook-mqtt-' and the name) of \(effectiveClientID.utf8.count) bytes; at most \(Self.longestClientID): pick a shorter name or set mqtt.client_id"
                : "is \(effectiveClientID.utf8.count) bytes; at most \(Self.longestClientID)")
        }
        module = try reader.string("mqtt.module")
        if let module, module.isEmpty { throw reader.error("mqtt.module", "must not be empty") }
        credentialsFile = try reader.string("mqtt.credentials")
        allowPlainCredentials = try reader.bool("mqtt.allow_plain_credentials") ?? false
        if let milliseconds = try reader.integer("mqtt.state_poll_ms", in: 0...60_000) {
            guard milliseconds == 0 || milliseconds >= 100 else { throw reader.error("mqtt.state_poll_ms", "must be 0 (off) or at least 100, got \(milliseconds)") }
            statePollMilliseconds = milliseconds
        }
        let caFile = try reader.string("mqtt.tls.ca_file")
        let certFile = try reader.string("mqtt.tls.cert_file")
        let keyFile = try reader.string("mqtt.tls.key_file")
        if let caFile {
            guard (certFile == nil) == (keyFile == nil) else {
                throw reader.error(certFile == nil ? "mqtt.tls.cert_file" : "mqtt.tls.key_file",
                                   "a client certificate needs both mqtt.tls.cert_file and mqtt.tls.key_file")
            }
            tls = TLS(caFile: caFile, certFile: certFile, keyFile: keyFile)
        } else if certFile != nil || keyFile != nil {
            throw reader.error(certFile != nil ? "mqtt.tls.cert_file" : "mqtt.tls.key_file", "needs mqtt.tls.ca_file (TLS is on when a CA file is set)")
        }
        discovery = try reader.bool("homeassistant.discovery") ?? discovery
        discoveryPrefix = try reader.string("homeassistant.prefix") ?? discoveryPrefix
        try Self.checkTopicLevels(discoveryPrefix, key: "homeassistant.prefix", reader: reader, allowSlash: true)
        try reader.rejectUnknownKeys(known: Self.tables)
    }

    /// Topic levels must not hold the wildcards `+` and `#`, and a device name is one level.
    private static func checkTopicLevels(_ text: String, key: String, reader: ConfigReader, allowSlash: Bool) throws(ConfigError) {
        guard !text.isEmpty else { throw reader.error(key, "must not be empty") }
        if text.contains(where: { $0 == "+" || $0 == "#" || $0 == "\0" }) {
            throw reader.error(key, "must not contain the MQTT wildcards '+' or '#'")
        }
        if !allowSlash, text.contains("/") { throw reader.error(key, "is one topic level and must not contain '/'") }
        if text.hasPrefix("/") || text.hasSuffix("/") || text.contains("//") { throw reader.error(key, "must not start or end with '/' or hold an empty level") }
    }

    /// The host name as a topic level: `gethostname(2)`, with what a topic level cannot hold replaced.
    public static func hostName() -> String {
        guard let name = try? System.hostName() else { return "nook" }
        let cleaned = String(name.map { "+#/".contains($0) ? "-" : $0 })
        return cleaned.isEmpty || cleaned == "all" ? "nook" : cleaned
    }

    public static func load(path: String) throws(ConfigError) -> MQTTConfig {
        try MQTTConfig(ConfigDocument.load(path: path))
    }
}
