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
    public var host = Keys.host.defaultValue
    /// 1883, or 8883 with TLS, unless set.
    public var port: Int?
    public var keepalive = Keys.keepalive.defaultValue
    /// MQTT 5 unless set to 3.1.1 (for a broker older than MQTT 5, such as mosquitto before 1.6).
    public var protocolVersion = MQTTConnection.ProtocolVersion.v5
    /// Stable across restarts, so the broker keeps the session (E5); `nook-mqtt-DEVICE` unless set.
    public var clientID: String?
    public var prefix = Keys.prefix.defaultValue
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
    public var allowPlainCredentials = Keys.allowPlainCredentials.defaultValue
    public var tls: TLS?
    public var discovery = Keys.discovery.defaultValue
    public var discoveryPrefix = Keys.discoveryPrefix.defaultValue
    /// Who the board says it is in discovery: Nook, or an AWTRIX 3 clock (M6), so that
    /// blueprints that pick their clock by its maker and model find the board.
    public var identity = Discovery.Identity.nook
    /// How often `state` is read from nookd even when no event says it changed; 0, the
    /// default, never: nookd's `watch` stream announces every change (`status` events).
    public var statePollMilliseconds = Keys.statePoll.defaultValue

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
    /// The tables of the keys, for the error about a key in an unknown table.
    static let tables = SettingDeclaration.tables(of: settings)

    /// nook-mqtt's keys, each spelled once here: the reader reads them through these, and
    /// nook-mqtt(8) is checked against ``settings``. Read at start only.
    enum Keys {
        static let host = Setting<String>.text("mqtt.host", default: "localhost", reload: .restart)
        static let port = Setting<Int?>.integer("mqtt.port", in: 1...65535, reload: .restart)
        static let device = Setting<String?>.text("mqtt.device", reload: .restart)
        static let prefix = Setting<String>.text("mqtt.prefix", default: "nook", reload: .restart)
        static let awtrixPrefix = Setting<String?>.text("mqtt.awtrix_prefix", reload: .restart)
        static let clientID = Setting<String?>.text("mqtt.client_id", reload: .restart)
        static let keepalive = Setting<Int>.integer("mqtt.keepalive", default: 30, in: 5...65535, reload: .restart)
        /// "5" or "3.1.1", checked by ``MQTTConnection/ProtocolVersion``.
        static let protocolVersion = Setting<String?>.text("mqtt.protocol", reload: .restart)
        static let module = Setting<String?>.text("mqtt.module", reload: .restart)
        static let credentials = Setting<String?>.text("mqtt.credentials", reload: .restart)
        static let allowPlainCredentials = Setting<Bool>.bool("mqtt.allow_plain_credentials", default: false, reload: .restart)
        static let statePoll = Setting<Int>.integer("mqtt.state_poll_ms", default: 0, in: 0...60_000, reload: .restart,
                                                    shownRange: "0 (off) or 100 to 60000")
        static let caFile = Setting<String?>.text("mqtt.tls.ca_file", reload: .restart)
        static let certFile = Setting<String?>.text("mqtt.tls.cert_file", reload: .restart)
        static let keyFile = Setting<String?>.text("mqtt.tls.key_file", reload: .restart)
        static let discovery = Setting<Bool>.bool("homeassistant.discovery", default: true, reload: .restart)
        static let discoveryPrefix = Setting<String>.text("homeassistant.prefix", default: "homeassistant", reload: .restart)
        static let identity = Setting<String>.choice("homeassistant.identity", among: Discovery.Identity.allCases.map(\.rawValue),
                                                     default: Discovery.Identity.nook.rawValue, reload: .restart)
    }

    /// Every key nook-mqtt reads, in the order nook-mqtt(8) lists them.
    public static let settings = [Keys.host.declaration, Keys.port.declaration, Keys.device.declaration, Keys.prefix.declaration,
                                  Keys.awtrixPrefix.declaration, Keys.clientID.declaration, Keys.keepalive.declaration,
                                  Keys.protocolVersion.declaration, Keys.module.declaration, Keys.credentials.declaration,
                                  Keys.allowPlainCredentials.declaration, Keys.statePoll.declaration, Keys.caFile.declaration,
                                  Keys.certFile.declaration, Keys.keyFile.declaration, Keys.discovery.declaration, Keys.discoveryPrefix.declaration,
                                  Keys.identity.declaration]

    /// Reads and checks `document`; unknown keys are errors (a typo must not pass silently).
    public init(_ document: ConfigDocument) throws(ConfigError) {
        self.init()
        let reader = ConfigReader(document)
        host = try Keys.host.read(reader) ?? host
        guard !host.isEmpty else { throw reader.error(Keys.host.key, "must not be empty") }
        port = try Keys.port.read(reader)
        keepalive = try Keys.keepalive.read(reader) ?? keepalive
        if let version = try Keys.protocolVersion.read(reader) {
            guard let known = MQTTConnection.ProtocolVersion(rawValue: version) else {
                throw reader.error(Keys.protocolVersion.key, "must be \"5\" or \"3.1.1\", got \"\(version)\"")
            }
            protocolVersion = known
        }
        clientID = try Keys.clientID.read(reader)
        if let clientID, clientID.isEmpty {
            throw reader.error(Keys.clientID.key, "must not be empty")
        }
        prefix = try Keys.prefix.read(reader) ?? prefix
        try Self.checkTopicLevels(prefix, key: Keys.prefix.key, reader: reader, allowSlash: true)
        awtrixPrefix = try Keys.awtrixPrefix.read(reader)
        if let awtrixPrefix { try Self.checkTopicLevels(awtrixPrefix, key: Keys.awtrixPrefix.key, reader: reader, allowSlash: true) }
        if let name = try Keys.device.read(reader) { device = name }
        try Self.checkTopicLevels(device, key: Keys.device.key, reader: reader, allowSlash: false)
        guard device != "all" else { throw reader.error(Keys.device.key, "'all' is the topic every board listens on; pick another name") }
        // libmosquitto shows a message's DUP flag only in a debug line it cuts at about 560
        // bytes, after the client id: with a longer id a redelivery would be shown again.
        if effectiveClientID.utf8.count > Self.longestClientID {
            let key = clientID == nil ? Keys.device.key : Keys.clientID.key
            throw reader.error(key, clientID == nil
                ? "makes a client id ('nook-mqtt-' and the name) of \(effectiveClientID.utf8.count) bytes; at most \(Self.longestClientID): pick a shorter name or set mqtt.client_id"
                : "is \(effectiveClientID.utf8.count) bytes; at most \(Self.longestClientID)")
        }
        module = try Keys.module.read(reader)
        if let module, module.isEmpty { throw reader.error(Keys.module.key, "must not be empty") }
        credentialsFile = try Keys.credentials.read(reader)
        allowPlainCredentials = try Keys.allowPlainCredentials.read(reader) ?? allowPlainCredentials
        if let milliseconds = try Keys.statePoll.read(reader) {
            guard milliseconds == 0 || milliseconds >= 100 else { throw reader.error(Keys.statePoll.key, "must be 0 (off) or at least 100, got \(milliseconds)") }
            statePollMilliseconds = milliseconds
        }
        let caFile = try Keys.caFile.read(reader)
        let certFile = try Keys.certFile.read(reader)
        let keyFile = try Keys.keyFile.read(reader)
        if let caFile {
            guard (certFile == nil) == (keyFile == nil) else {
                throw reader.error(certFile == nil ? Keys.certFile.key : Keys.keyFile.key,
                                   "a client certificate needs both \(Keys.certFile.key) and \(Keys.keyFile.key)")
            }
            tls = TLS(caFile: caFile, certFile: certFile, keyFile: keyFile)
        } else if certFile != nil || keyFile != nil {
            throw reader.error(certFile != nil ? Keys.certFile.key : Keys.keyFile.key, "needs \(Keys.caFile.key) (TLS is on when a CA file is set)")
        }
        try Self.checkOwnTopicsAreNotTaken(Topics(prefix: prefix, device: device, awtrixPrefix: awtrixPrefix), reader: reader,
                                           key: awtrixPrefix == nil ? Keys.device.key : Keys.awtrixPrefix.key)
        discovery = try Keys.discovery.read(reader) ?? discovery
        discoveryPrefix = try Keys.discoveryPrefix.read(reader) ?? discoveryPrefix
        try Self.checkTopicLevels(discoveryPrefix, key: Keys.discoveryPrefix.key, reader: reader, allowSlash: true)
        if let name = try Keys.identity.read(reader), let known = Discovery.Identity(rawValue: name) { identity = known }
        try reader.rejectUnknownKeys(known: Self.tables)
    }

    /// No topic the bridge publishes to may be one it takes: with `awtrix_prefix = "nook"` and
    /// `device = "custom"`, `nook/custom/error` is an AWTRIX app's topic, and each error the
    /// bridge published came back as an app it refused, without end.
    private static func checkOwnTopicsAreNotTaken(_ topics: Topics, reader: ConfigReader, key: String) throws(ConfigError) {
        for row in MQTTTopicTable.rows where row.direction == .outbound {
            let topic = row.topic(prefix: topics.prefix, device: topics.device, awtrixPrefix: topics.awtrixPrefix)
            if let taken = topics.route(topic)?.row {
                throw reader.error(key, "makes \(topic), a topic the bridge publishes to, also one it takes (\(taken.pattern)): "
                                   + "it would read its own messages back; pick another mqtt.device or mqtt.awtrix_prefix")
            }
        }
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
