import NookConfig
import NookProtocol

/// nook-http's settings: `[http]` in `/etc/nook/http.toml`, read with NookConfig's rules (every
/// error names the file, the line and the key; an unknown key is an error). Unset keys keep
/// the defaults; `--listen` overrides `http.listen`.
public struct HTTPConfig: Sendable, Equatable {
    public static let defaultPath = "/etc/nook/http.toml"
    static let tables = ["http", "publish"]

    /// Loopback alone by default (H4); anything else is written here or given with `--listen`.
    public var listen: [HTTPListenAddress] = [HTTPListenAddress()]
    /// The token file; nil: no tokens, loopback clients only.
    public var tokens: String?
    public var maximumBodyBytes = 64 * 1024
    public var maximumHeaderBytes = 16 * 1024
    public var maximumConnections = 1024
    public var idleTimeoutSeconds = 60
    public var headerTimeoutSeconds = 10
    /// A call nookd has not answered in this long means nookd is stuck (``NookdLink/Options/callTimeout``).
    public var nookdTimeoutSeconds = 15
    public var rateLimit = HTTPAccess.RateLimit()
    /// `[publish]`: the ntfy topics taken and the modules published and alert cards go to
    /// (docs/publishing.md).
    public var publish = PublishSettings()

    public init() {}

    public init(_ document: ConfigDocument) throws(ConfigError) {
        self.init()
        let reader = ConfigReader(document)
        if let addresses = try Self.listenAddresses(reader) { listen = addresses }
        tokens = try reader.string("http.tokens")
        if tokens?.isEmpty == true { throw reader.error("http.tokens", "must be the path of the token file, got an empty string") }
        maximumBodyBytes = try reader.integer("http.max_body_bytes", in: 1024...(16 << 20)) ?? maximumBodyBytes
        maximumHeaderBytes = try reader.integer("http.max_header_bytes", in: 1024...(1 << 20)) ?? maximumHeaderBytes
        maximumConnections = try reader.integer("http.max_connections", in: 1...65536) ?? maximumConnections
        idleTimeoutSeconds = try reader.integer("http.idle_timeout_s", in: 1...86400) ?? idleTimeoutSeconds
        headerTimeoutSeconds = try reader.integer("http.header_timeout_s", in: 1...600) ?? headerTimeoutSeconds
        nookdTimeoutSeconds = try reader.integer("http.nookd_timeout_s", in: 1...600) ?? nookdTimeoutSeconds
        rateLimit.perSecond = try reader.number("http.rate_limit_per_s", in: 0...1_000_000) ?? rateLimit.perSecond
        rateLimit.burst = try reader.number("http.rate_limit_burst", in: 1...1_000_000) ?? rateLimit.burst
        publish = try Self.publishSettings(reader)
        try reader.rejectUnknownKeys(known: Self.tables)
    }

    /// `publish.topics` (`["alerts", "backups=home"]`: a topic, then the module its cards go
    /// to), `publish.gotify_module`, `publish.awtrix_module`, `publish.alert_module`.
    private static func publishSettings(_ reader: ConfigReader) throws(ConfigError) -> PublishSettings {
        var settings = PublishSettings()
        if let entries = try reader.strings("publish.topics") {
            switch PublishSettings.topics(parsing: entries) {
            case .success(let topics): settings.topics = topics
            case .failure(let error): throw reader.error("publish.topics", error.message)
            }
        }
        func module(_ key: String) throws(ConfigError) -> String? {
            guard let name = try reader.string(key) else { return nil }
            guard !name.isEmpty else { throw reader.error(key, "must name a module of nookd's, got an empty string") }
            return name
        }
        settings.gotifyModule = try module("publish.gotify_module")
        settings.awtrixModule = try module("publish.awtrix_module")
        settings.alertModule = try module("publish.alert_module")
        return settings
    }

    /// `http.listen`: one address (`"127.0.0.1:8722"`) or an array of them.
    private static func listenAddresses(_ reader: ConfigReader) throws(ConfigError) -> [HTTPListenAddress]? {
        let texts: [String]
        if let many = try? reader.strings("http.listen") {
            texts = many
        } else if let one = try reader.string("http.listen") {
            texts = [one]
        } else {
            return nil
        }
        guard !texts.isEmpty else { throw reader.error("http.listen", "must name at least one address, such as \"127.0.0.1:8722\"") }
        var addresses: [HTTPListenAddress] = []
        for text in texts {
            guard let address = HTTPListenAddress(parsing: text) else {
                throw reader.error("http.listen", "must be ADDRESS:PORT with an IPv4 or [IPv6] address, such as \"127.0.0.1:8722\" or \"[::1]:8722\", got \"\(text)\"")
            }
            addresses.append(address)
        }
        return addresses
    }

    public static func load(path: String) throws(ConfigError) -> HTTPConfig {
        try HTTPConfig(ConfigDocument.load(path: path))
    }

    /// The options of the link to nookd at `socketPath` these settings make.
    public func nookdOptions(socketPath: String) -> NookdLink.Options {
        var options = NookdLink.Options(socketPath: socketPath)
        options.callTimeout = .seconds(nookdTimeoutSeconds)
        options.waitingCallTimeout = .seconds(Int64(NookProtocol.frameWaitSeconds + nookdTimeoutSeconds))
        return options
    }

    /// The server's options these settings make.
    public var serverOptions: HTTPServer.Options {
        var options = HTTPServer.Options()
        options.listen = listen
        options.limits = HTTPParserLimits(headerBytes: maximumHeaderBytes, bodyBytes: maximumBodyBytes)
        options.maximumConnections = maximumConnections
        options.idleTimeout = .seconds(idleTimeoutSeconds)
        options.headerTimeout = .seconds(headerTimeoutSeconds)
        return options
    }
}
