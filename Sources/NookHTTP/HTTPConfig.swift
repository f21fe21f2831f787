import NookConfig
import NookProtocol

/// nook-http's settings: `[http]` in `/etc/nook/http.toml`, read with NookConfig's rules (every
/// error names the file, the line and the key; an unknown key is an error). Unset keys keep
/// the defaults; `--listen` overrides `http.listen`.
public struct HTTPConfig: Sendable, Equatable {
    public static let defaultPath = "/etc/nook/http.toml"
    /// The tables of the keys, for the error about a key in an unknown table.
    static let tables = SettingDeclaration.tables(of: settings)

    /// Loopback alone by default (H4); anything else is written here or given with `--listen`.
    public var listen: [HTTPListenAddress] = [HTTPListenAddress()]
    /// The token file; nil: no tokens, loopback clients only.
    public var tokens: String?
    public var maximumBodyBytes = Keys.maxBodyBytes.defaultValue
    public var maximumHeaderBytes = Keys.maxHeaderBytes.defaultValue
    public var maximumConnections = Keys.maxConnections.defaultValue
    public var idleTimeoutSeconds = Keys.idleTimeout.defaultValue
    public var headerTimeoutSeconds = Keys.headerTimeout.defaultValue
    /// A call nookd has not answered in this long means nookd is stuck (``NookdLink/Options/callTimeout``).
    public var nookdTimeoutSeconds = Keys.nookdTimeout.defaultValue
    public var rateLimit = HTTPAccess.RateLimit()
    /// `[publish]`: the ntfy topics taken and the modules published and alert cards go to
    /// (docs/publishing.md).
    public var publish = PublishSettings()
    /// `[lametric]`: LaMetric Time's local API over TLS (M4); off by default.
    public var lametric = LaMetricSettings()
    /// `[icons]`: LaMetric icon ids fetched over HTTPS into a bounded cache (M3); off by default.
    public var icons = IconSourceSettings()

    /// nook-http's keys, each spelled once here: the reader reads them through these, and
    /// nook-http(8) is checked against ``settings``. Read at start only.
    enum Keys {
        /// One address or an array of them; the default is ``HTTPListenAddress/init()``'s.
        static let listen = Setting<[String]>.texts("http.listen", default: [], reload: .restart)
        static let tokens = Setting<String?>.text("http.tokens", reload: .restart)
        static let maxBodyBytes = Setting<Int>.integer("http.max_body_bytes", default: 64 * 1024, in: 1024...(16 << 20), reload: .restart)
        static let maxHeaderBytes = Setting<Int>.integer("http.max_header_bytes", default: 16 * 1024, in: 1024...(1 << 20), reload: .restart)
        static let maxConnections = Setting<Int>.integer("http.max_connections", default: 1024, in: 1...65536, reload: .restart)
        static let idleTimeout = Setting<Int>.integer("http.idle_timeout_s", default: 60, in: 1...86400, reload: .restart)
        static let headerTimeout = Setting<Int>.integer("http.header_timeout_s", default: 10, in: 1...600, reload: .restart)
        static let nookdTimeout = Setting<Int>.integer("http.nookd_timeout_s", default: 15, in: 1...600, reload: .restart)
        static let ratePerSecond = Setting<Double>.number("http.rate_limit_per_s", default: HTTPAccess.RateLimit().perSecond, in: 0...1_000_000,
                                                          reload: .restart)
        static let rateBurst = Setting<Double>.number("http.rate_limit_burst", default: HTTPAccess.RateLimit().burst, in: 1...1_000_000, reload: .restart)
        static let topics = Setting<[String]>.texts("publish.topics", default: [], reload: .restart)
        static let gotifyModule = Setting<String?>.text("publish.gotify_module", reload: .restart)
        static let awtrixModule = Setting<String?>.text("publish.awtrix_module", reload: .restart)
        static let alertModule = Setting<String?>.text("publish.alert_module", reload: .restart)
        static let lametricListen = Setting<[String]>.texts("lametric.listen", default: [], reload: .restart, shownDefault: "none (off)")
        static let lametricCertificate = Setting<String>.text("lametric.certificate", default: LaMetricSettings.defaultCertificate, reload: .restart)
        static let lametricKey = Setting<String>.text("lametric.key", default: LaMetricSettings.defaultKey, reload: .restart)
        static let lametricName = Setting<String?>.text("lametric.name", reload: .restart, shownDefault: "the host name")
        static let iconsSource = Setting<String?>.text("icons.source", reload: .restart, shownDefault: "none (off)")
        static let iconsDirectory = Setting<String>.text("icons.directory", default: IconSourceSettings.defaultDirectory, reload: .restart)
        static let iconsMaxCount = Setting<Int>.integer("icons.max_count", default: 1000, in: 1...100_000, reload: .restart)
        static let iconsMaxBytes = Setting<Int>.integer("icons.max_bytes", default: 8 << 20, in: (64 << 10)...(1 << 30), reload: .restart)
        static let iconsTimeout = Setting<Int>.integer("icons.timeout_s", default: 15, in: 1...600, reload: .restart)
    }

    /// Every key nook-http reads, in the order nook-http(8) lists them.
    public static let settings = [Keys.listen.declaration, Keys.tokens.declaration, Keys.maxBodyBytes.declaration, Keys.maxHeaderBytes.declaration,
                                  Keys.maxConnections.declaration, Keys.idleTimeout.declaration, Keys.headerTimeout.declaration,
                                  Keys.nookdTimeout.declaration, Keys.ratePerSecond.declaration, Keys.rateBurst.declaration, Keys.topics.declaration,
                                  Keys.gotifyModule.declaration, Keys.awtrixModule.declaration, Keys.alertModule.declaration,
                                  Keys.lametricListen.declaration, Keys.lametricCertificate.declaration, Keys.lametricKey.declaration,
                                  Keys.lametricName.declaration, Keys.iconsSource.declaration, Keys.iconsDirectory.declaration,
                                  Keys.iconsMaxCount.declaration, Keys.iconsMaxBytes.declaration, Keys.iconsTimeout.declaration]

    public init() {}

    public init(_ document: ConfigDocument) throws(ConfigError) {
        self.init()
        let reader = ConfigReader(document)
        if let addresses = try Self.listenAddresses(reader, Keys.listen) { listen = addresses }
        tokens = try Keys.tokens.read(reader)
        if tokens?.isEmpty == true { throw reader.error(Keys.tokens.key, "must be the path of the token file, got an empty string") }
        maximumBodyBytes = try Keys.maxBodyBytes.read(reader) ?? maximumBodyBytes
        maximumHeaderBytes = try Keys.maxHeaderBytes.read(reader) ?? maximumHeaderBytes
        maximumConnections = try Keys.maxConnections.read(reader) ?? maximumConnections
        idleTimeoutSeconds = try Keys.idleTimeout.read(reader) ?? idleTimeoutSeconds
        headerTimeoutSeconds = try Keys.headerTimeout.read(reader) ?? headerTimeoutSeconds
        nookdTimeoutSeconds = try Keys.nookdTimeout.read(reader) ?? nookdTimeoutSeconds
        rateLimit.perSecond = try Keys.ratePerSecond.read(reader) ?? rateLimit.perSecond
        rateLimit.burst = try Keys.rateBurst.read(reader) ?? rateLimit.burst
        publish = try Self.publishSettings(reader)
        lametric = try Self.lametricSettings(reader)
        icons = try Self.iconSettings(reader)
        try reader.rejectUnknownKeys(known: Self.tables)
    }

    /// `publish.topics` (`["alerts", "backups=home"]`: a topic, then the module its cards go
    /// to), `publish.gotify_module`, `publish.awtrix_module`, `publish.alert_module`.
    private static func publishSettings(_ reader: ConfigReader) throws(ConfigError) -> PublishSettings {
        var settings = PublishSettings()
        if let entries = try Keys.topics.read(reader) {
            switch PublishSettings.topics(parsing: entries) {
            case .success(let topics): settings.topics = topics
            case .failure(let error): throw reader.error(Keys.topics.key, error.message)
            }
        }
        func module(_ setting: Setting<String?>) throws(ConfigError) -> String? {
            guard let name = try setting.read(reader) else { return nil }
            guard !name.isEmpty else { throw reader.error(setting.key, "must name a module of nookd's, got an empty string") }
            return name
        }
        settings.gotifyModule = try module(Keys.gotifyModule)
        settings.awtrixModule = try module(Keys.awtrixModule)
        settings.alertModule = try module(Keys.alertModule)
        return settings
    }

    /// `lametric.listen` (empty: off), `lametric.certificate`, `lametric.key`, `lametric.name`.
    private static func lametricSettings(_ reader: ConfigReader) throws(ConfigError) -> LaMetricSettings {
        var settings = LaMetricSettings()
        settings.listen = try listenAddresses(reader, Keys.lametricListen, example: "0.0.0.0:4343") ?? []
        for (setting, path) in [(Keys.lametricCertificate, \LaMetricSettings.certificate), (Keys.lametricKey, \LaMetricSettings.key)] {
            guard let value = try setting.read(reader) else { continue }
            guard !value.isEmpty else { throw reader.error(setting.key, "must be the path of a PEM file, got an empty string") }
            settings[keyPath: path] = value
        }
        settings.name = try Keys.lametricName.read(reader)
        if settings.name?.isEmpty == true { throw reader.error(Keys.lametricName.key, "must be the device's name, got an empty string") }
        return settings
    }

    /// `icons.source` (unset: off), `icons.directory` (an absolute path), `icons.max_count`, `icons.max_bytes`,
    /// `icons.timeout_s`.
    private static func iconSettings(_ reader: ConfigReader) throws(ConfigError) -> IconSourceSettings {
        var settings = IconSourceSettings()
        if let text = try Keys.iconsSource.read(reader) {
            switch IconSourceURL.parse(text) {
            case .success(let url): settings.source = url
            case .failure(let error): throw reader.error(Keys.iconsSource.key, error.message)
            }
        }
        if let directory = try Keys.iconsDirectory.read(reader) {
            guard directory.hasPrefix("/"), directory.count > 1 else {
                throw reader.error(Keys.iconsDirectory.key, "must be an absolute path other than /, got \"\(directory)\"")
            }
            settings.directory = directory
        }
        settings.maximumCount = try Keys.iconsMaxCount.read(reader) ?? settings.maximumCount
        settings.maximumBytes = try Keys.iconsMaxBytes.read(reader) ?? settings.maximumBytes
        settings.timeoutSeconds = try Keys.iconsTimeout.read(reader) ?? settings.timeoutSeconds
        return settings
    }

    /// `http.listen` or `lametric.listen`: one address (`"127.0.0.1:8722"`) or an array of them.
    private static func listenAddresses(_ reader: ConfigReader, _ setting: Setting<[String]>,
                                        example: String = "127.0.0.1:8722") throws(ConfigError) -> [HTTPListenAddress]? {
        let texts: [String]
        if let many = try? setting.read(reader) {
            texts = many
        } else if let one = try reader.string(setting.key) {
            texts = [one]
        } else {
            return nil
        }
        guard !texts.isEmpty else { throw reader.error(setting.key, "must name at least one address, such as \"\(example)\"") }
        var addresses: [HTTPListenAddress] = []
        for text in texts {
            guard let address = HTTPListenAddress(parsing: text) else {
                throw reader.error(setting.key, "must be ADDRESS:PORT with an IPv4 or [IPv6] address, such as \"\(example)\" or \"[::1]:8722\", got \"\(text)\"")
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
        options.tlsListen = lametric.listen
        options.limits = HTTPParserLimits(headerBytes: maximumHeaderBytes, bodyBytes: maximumBodyBytes)
        options.maximumConnections = maximumConnections
        options.idleTimeout = .seconds(idleTimeoutSeconds)
        options.headerTimeout = .seconds(headerTimeoutSeconds)
        return options
    }
}
