import NookConfig

/// nook-lcdproc's settings from the board's config file (`[lcdproc]` and `[lcdproc.keys]` in
/// `/etc/nook/nook.toml`, SPEC E8), read with NookConfig's rules: every error names the file,
/// the line and the key. nookd leaves these tables to this program; this program reads
/// nothing else of the file. Unset keys are nil: the command line's flags, then the defaults,
/// decide them.
public struct LCDConfig: Sendable, Equatable {
    public var bind: String?
    public var port: Int?
    /// Listening anywhere but loopback needs this as well (LCDproc has no authentication).
    public var allowNetwork: Bool?
    public var columns: Int?
    public var rows: Int?
    public var cellWidth: Int?
    public var cellHeight: Int?
    public var maxScreens: Int?
    public var maxWidgets: Int?
    public var maxClients: Int?
    public var maxBacklog: Int?
    public var module: String?
    /// Seconds with no key after which the server menu closes; 0: never.
    public var menuTimeout: Int?
    /// `[lcdproc.keys]`: role or GPIO line name → key name (over ``LCDKeyMap/defaults``).
    public var keys: [String: String] = [:]
    /// Set when `lcdproc.bind` is not loopback and the file does not allow the network: the
    /// error (with its line) to give unless `--allow-network` allows it.
    public var bindNeedsAllowNetwork: ConfigError?
    /// The `[gpio.NAME]` lines of the same file: `[lcdproc.keys]` may map them by name.
    public var gpioLines: Set<String> = []

    /// The tables nook-lcdproc reads of the file (nookd leaves them to it).
    public static let tables = SettingDeclaration.tables(of: settings)

    /// nook-lcdproc's keys, each spelled once here: the reader reads them through these, and
    /// nook-lcdproc(8) is checked against ``settings``. Unset, the flags and then the defaults
    /// decide; read at start only.
    enum Keys {
        static let bind = Setting<String?>.text("lcdproc.bind", reload: .restart, shownDefault: "127.0.0.1")
        static let allowNetwork = Setting<Bool?>.bool("lcdproc.allow_network", reload: .restart)
        static let port = Setting<Int?>.integer("lcdproc.port", in: 0...65535, reload: .restart, shownDefault: "13666")
        static let size = Setting<String?>.text("lcdproc.size", reload: .restart, shownDefault: "40x4")
        static let cell = Setting<String?>.text("lcdproc.cell", reload: .restart, shownDefault: "5x8")
        static let maxScreens = Setting<Int?>.integer("lcdproc.max_screens", in: 1...65536, reload: .restart)
        static let maxWidgets = Setting<Int?>.integer("lcdproc.max_widgets", in: 1...65536, reload: .restart)
        static let maxClients = Setting<Int?>.integer("lcdproc.max_clients", in: 1...4096, reload: .restart)
        static let maxBacklog = Setting<Int?>.integer("lcdproc.max_backlog", in: 1024...(1 << 30), reload: .restart)
        static let module = Setting<String?>.text("lcdproc.module", reload: .restart)
        static let menuTimeout = Setting<Int?>.integer("lcdproc.menu_timeout", in: 0...3600, reload: .restart, shownDefault: "30")
        /// `[lcdproc.keys]`: the key a press of INPUT becomes, one key per input.
        static let key = Setting<String?>.text("lcdproc.keys.*", reload: .restart)
    }

    /// Every key nook-lcdproc reads, in the order nook-lcdproc(8) lists them.
    public static let settings = [Keys.bind.declaration, Keys.allowNetwork.declaration, Keys.port.declaration, Keys.size.declaration,
                                  Keys.cell.declaration, Keys.maxScreens.declaration, Keys.maxWidgets.declaration, Keys.maxClients.declaration,
                                  Keys.maxBacklog.declaration, Keys.module.declaration, Keys.menuTimeout.declaration, Keys.key.declaration]

    public init() {}

    public init(_ document: ConfigDocument) throws(ConfigError) {
        let reader = ConfigReader(document)
        bind = try Keys.bind.read(reader)
        if let bind, !LCDBindAddress.isValidHost(bind) {
            throw reader.error(Keys.bind.key, "must be an IPv4 address such as \"127.0.0.1\", got \"\(bind)\"")
        }
        port = try Keys.port.read(reader)
        allowNetwork = try Keys.allowNetwork.read(reader)
        if let bind, !LCDBindAddress(host: bind).isLoopback, allowNetwork != true {
            bindNeedsAllowNetwork = reader.error(Keys.bind.key, "\(bind) is not a loopback address; LCDproc has no authentication, so listening there needs \(Keys.allowNetwork.key) = true (or --allow-network) as well")
        }
        gpioLines = Set(document.entries.compactMap { key, _ -> String? in
            guard key.hasPrefix("gpio.") else { return nil }
            return key.dropFirst("gpio.".count).split(separator: ".").first.map(String.init)
        })
        if let size = try Keys.size.read(reader) {
            guard let (columns, rows) = Self.pair(size, width: 1...80, height: 1...24) else {
                throw reader.error(Keys.size.key, "must be \"COLUMNSxROWS\" with 1 to 80 columns and 1 to 24 rows, got \"\(size)\"")
            }
            (self.columns, self.rows) = (columns, rows)
        }
        if let cell = try Keys.cell.read(reader) {
            guard let (width, height) = Self.pair(cell, width: 1...64, height: 1...64) else {
                throw reader.error(Keys.cell.key, "must be \"WIDTHxHEIGHT\" in pixels, each from 1 to 64, got \"\(cell)\"")
            }
            (cellWidth, cellHeight) = (width, height)
        }
        maxScreens = try Keys.maxScreens.read(reader)
        maxWidgets = try Keys.maxWidgets.read(reader)
        maxClients = try Keys.maxClients.read(reader)
        maxBacklog = try Keys.maxBacklog.read(reader)
        module = try Keys.module.read(reader)
        menuTimeout = try Keys.menuTimeout.read(reader)
        if let module, module.isEmpty { throw reader.error(Keys.module.key, "must not be empty") }
        let keysTable = String(Keys.key.key.dropLast())
        for (key, _) in document.entries where key.hasPrefix(keysTable) {
            let input = String(key.dropFirst(keysTable.count))
            // A deeper table is not a key mapping: left for the unknown-key check below.
            guard !input.contains(".") else { continue }
            guard let name = try Keys.key.named(input).read(reader) else { continue }
            if let problem = LCDKeyMap.problem(with: name) { throw reader.error(key, problem) }
            if let problem = LCDKeyMap.problem(withInput: input, gpioLines: gpioLines) { throw reader.error(key, problem) }
            keys[input] = name
        }
        try reader.rejectUnknownKeys(in: Self.tables)
    }

    public static func load(path: String) throws(ConfigError) -> LCDConfig {
        try LCDConfig(ConfigDocument.load(path: path))
    }

    /// `AxB` with each part in its range.
    public static func pair(_ text: String, width: ClosedRange<Int>, height: ClosedRange<Int>) -> (Int, Int)? {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int(parts[0]), let second = Int(parts[1]),
              width.contains(first), height.contains(second) else { return nil }
        return (first, second)
    }
}
