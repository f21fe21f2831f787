import NookConfig
import NookLogging
import NookSystem

/// nook-lcdproc's command line, read by ``FlagReader`` as the other bridges' are: ArgumentParser
/// would link FoundationEssentials into a process that runs all day (docs/benchmarks.md,
/// "Reading flags"). The help, the messages, their order and exit 64 are ArgumentParser's, word
/// for word, as they were. A flag overrides its key in the config file; the file overrides the
/// defaults.
public struct LCDCommandLine: Sendable, Equatable {
    public var config: String?
    public var socket: String?
    public var bind: String?
    public var allowNetwork = false
    public var port: Int?
    public var size: String?
    public var cell: String?
    public var maxScreens: Int?
    public var maxWidgets: Int?
    public var maxClients: Int?
    public var maxBacklog: Int?
    public var module: String?
    /// `--key INPUT=KEY`, in the order given.
    public var keys: [String] = []
    public var menuTimeout: Int?
    public var logLevel = "info"
    public var help = false

    public static let defaultConfig = "/etc/nook/nook.toml"

    public init() {}

    /// A command line the server cannot run with (exit 64), as ArgumentParser worded it, with
    /// the flag's help line printed under a missing or bad value.
    public typealias Problem = CommandLineProblem

    /// The settings once the file and the flags are read.
    public struct Settings: Sendable {
        public var options = LCDServer.Options()
        public var keyMap = LCDKeyMap()
        public var module: String?
    }

    /// Every flag nook-lcdproc accepts, in the order `--help` lists them, each with what it sets
    /// (``usage`` is written out in ArgumentParser's layout; a test checks it lists each of these).
    /// The whole numbers are checked where they are met, as ArgumentParser converted each in turn.
    static let table = FlagTable<LCDCommandLine>([
        .value("--config", placeholder: "<config>", help: "Config file whose [lcdproc] tables are read (default \(defaultConfig) if it exists).") {
            $0.config = $1
        },
        .value("--socket", placeholder: "<socket>",
               help: "nookd's socket (default: $NOOK_SOCKET, else $XDG_RUNTIME_DIR/nook/nookd.sock if it exists, else /run/nook/nookd.sock).") {
            $0.socket = $1
        },
        .value("--bind", placeholder: "<bind>",
               help: "IPv4 address to listen on (lcdproc.bind; default 127.0.0.1). Anything but loopback also needs --allow-network.") { $0.bind = $1 },
        .toggle("--allow-network",
                help: "Allow --bind to a non-loopback address (lcdproc.allow_network): LCDproc has no authentication, anyone who reaches the port draws on the glance.") {
            $0.allowNetwork = true
        },
        number("--port", help: "TCP port (lcdproc.port; LCDd's is 13666; 0 lets the kernel choose and prints it).") { $0.port = $1 },
        .value("--size", placeholder: "<size>", help: "The character grid clients are told about, COLUMNSxROWS (lcdproc.size; default 40x4).") { $0.size = $1 },
        .value("--cell", placeholder: "<cell>",
               help: "Pixels per cell clients are told about, WIDTHxHEIGHT (lcdproc.cell; default 5x8; bars are sized in them).") { $0.cell = $1 },
        number("--max-screens", help: "Most screens one client may add (lcdproc.max_screens; default 64).") { $0.maxScreens = $1 },
        number("--max-widgets", help: "Most widgets on one screen (lcdproc.max_widgets; default 256).") { $0.maxWidgets = $1 },
        number("--max-clients", help: "Most clients at once (lcdproc.max_clients; default 64).") { $0.maxClients = $1 },
        number("--max-backlog", help: "Bytes of answers a client may leave unread before it is dropped (lcdproc.max_backlog; default 1 MiB).") {
            $0.maxBacklog = $1
        },
        .value("--module", placeholder: "<module>", help: "nookd queue module the cards go to (lcdproc.module; default: the foreground one).") {
            $0.module = $1
        },
        .value("--key", placeholder: "<key>",
               help: "INPUT=KEY: the LCDproc key a press of INPUT (open, dismiss, or a [gpio.NAME] line's NAME) becomes; KEY empty: none. Repeatable; over [lcdproc.keys].") {
            $0.keys.append($1)
        },
        number("--menu-timeout", help: "Seconds with no key after which the server menu closes, 0 never (lcdproc.menu_timeout; default 30).") {
            $0.menuTimeout = $1
        },
        .value("--log-level", placeholder: "<log-level>", help: "Log level: trace, debug, info, notice, warning, error.") { $0.logLevel = $1 },
        .toggle("-h", "--help", help: "Show help information.") { $0.help = true },
    ])

    public static var options: [FlagReader.Option] { table.options }

    /// A whole number's row, its placeholder the flag's name, as ArgumentParser's.
    private static func number(_ name: String, help: String, _ set: @escaping @Sendable (inout LCDCommandLine, Int) -> Void) -> FlagRow<LCDCommandLine> {
        .value(name, placeholder: "<\(name.dropFirst(2))>", help: help, check: FlagTable<LCDCommandLine>.wholeNumber(name)) { (line, value) throws(Problem) in
            guard let number = Int(value) else { throw table.invalidValue(value, for: name) }
            set(&line, number)
        }
    }

    /// Reads `arguments` (without the program name) in ArgumentParser's order: a missing value
    /// or a switch given one, where it is met; then the whole numbers; then `-h`/`--help`
    /// anywhere, over every later problem; then the log level and the settings (which read the
    /// config file at `--config`, else at `defaultConfig` when it exists); then an unknown
    /// option; then the unexpected words. The settings are nil only for `--help`.
    public static func parse(_ arguments: [String], defaultConfig: String = defaultConfig) throws(Problem) -> (line: LCDCommandLine, settings: Settings?) {
        var line = LCDCommandLine()
        let helpNames = ["-h", "--help"]
        // ArgumentParser took `--allow-network=` as `--allow-network`, `--help=1` as help, and
        // `--port=` as `--port`, whose value is then the next word.
        // Words after a lone `--` are left as they are: each is unexpected, as written.
        let flagWords = arguments.firstIndex(of: "--") ?? arguments.endIndex
        let words = arguments[..<flagWords].map { word -> String in
            let name = String(word.prefix { $0 != "=" })
            if helpNames.contains(name) { return name }
            return word.hasSuffix("=") && word.hasPrefix("--") && FlagReader.option(named: String(word.dropLast()), in: options) != nil
                ? String(word.dropLast()) : word
        } + arguments[flagWords...]
        let strays = try table.readAsArgumentParser(words, into: &line, emptyInlineIsMissing: false, suggesting: true)
        // Help loses to a missing or bad value (above), and wins over everything below.
        if line.help { return (line, nil) }
        if let problem = StandardErrorLogging.problem(withLevel: line.logLevel) { throw Problem(problem) }
        let settings = try line.settings(defaultConfig: defaultConfig)
        if let unknown = strays.first(where: { if case .unknownOption = $0 { true } else { false } }) { throw table.argumentParserProblem(unknown, suggesting: true) }
        let unexpected = strays.compactMap { if case .unexpectedArgument(let word) = $0 { word } else { nil } }
        if unexpected.count > 1 {
            throw Problem("\(unexpected.count) unexpected arguments: '\(unexpected.joined(separator: "', '"))'")
        }
        if let first = strays.first { throw table.argumentParserProblem(first, suggesting: true) }
        return (line, settings)
    }

    /// The settings of the file and the flags, or a message naming what is wrong.
    func settings(defaultConfig: String) throws(Problem) -> Settings {
        var file = LCDConfig()
        let path = config ?? (fileExists(defaultConfig) ? defaultConfig : nil)
        if let path {
            do throws(ConfigError) { file = try LCDConfig.load(path: path) } catch { throw Problem("\(error)") }
        }
        var settings = Settings()
        let bind = self.bind ?? file.bind ?? "127.0.0.1"
        guard LCDBindAddress.isValidHost(bind) else { throw Problem("--bind must be an IPv4 address such as 127.0.0.1, got '\(bind)'") }
        if !LCDBindAddress(host: bind).isLoopback && !(allowNetwork || file.allowNetwork == true) {
            // From the file: its own message, naming the line.
            if self.bind == nil, let problem = file.bindNeedsAllowNetwork { throw Problem("\(problem)") }
            throw Problem("--bind \(bind) is not a loopback address; LCDproc has no authentication, so listening there needs --allow-network (or lcdproc.allow_network = true) as well")
        }
        let port = self.port ?? file.port ?? 13666
        guard (0...65535).contains(port) else { throw Problem("--port must be 0 to 65535, got \(port)") }
        settings.options.bind = LCDBindAddress(host: bind, port: UInt16(port))
        var grid = LCDGrid(width: file.columns ?? 40, height: file.rows ?? 4, cellWidth: file.cellWidth ?? 5, cellHeight: file.cellHeight ?? 8)
        if let size {
            guard let (columns, rows) = LCDConfig.pair(size, width: 1...80, height: 1...24) else {
                throw Problem("--size must be COLUMNSxROWS with 1 to 80 columns and 1 to 24 rows, got '\(size)'")
            }
            (grid.width, grid.height) = (columns, rows)
        }
        if let cell {
            guard let (width, height) = LCDConfig.pair(cell, width: 1...64, height: 1...64) else {
                throw Problem("--cell must be WIDTHxHEIGHT with each from 1 to 64, got '\(cell)'")
            }
            (grid.cellWidth, grid.cellHeight) = (width, height)
        }
        settings.options.grid = grid
        for (value, flag) in [(maxScreens, "max-screens"), (maxWidgets, "max-widgets"), (maxClients, "max-clients"), (maxBacklog, "max-backlog")] {
            if let value, value < 1 { throw Problem("--\(flag) must be at least 1, got \(value)") }
        }
        settings.options.limits.screens = maxScreens ?? file.maxScreens ?? settings.options.limits.screens
        settings.options.limits.widgetsPerScreen = maxWidgets ?? file.maxWidgets ?? settings.options.limits.widgetsPerScreen
        settings.options.maximumClients = maxClients ?? file.maxClients ?? settings.options.maximumClients
        settings.options.maximumBacklogBytes = maxBacklog ?? file.maxBacklog ?? settings.options.maximumBacklogBytes
        settings.module = module ?? file.module
        if let module = settings.module, module.isEmpty { throw Problem("--module must not be empty") }
        let timeout = menuTimeout ?? file.menuTimeout ?? 30
        guard (0...3600).contains(timeout) else { throw Problem("--menu-timeout must be 0 to 3600 seconds, got \(timeout)") }
        settings.options.menu.timeoutFrames = timeout * 8
        settings.keyMap.keys.merge(file.keys) { $1 }
        for assignment in keys {
            guard let (input, key) = LCDKeyMap.parse(assignment: assignment) else {
                throw Problem("--key must be INPUT=KEY (such as open=Enter), got '\(assignment)'")
            }
            if let problem = LCDKeyMap.problem(with: key) { throw Problem("--key \(assignment): \(problem)") }
            if let problem = LCDKeyMap.problem(withInput: input, gpioLines: file.gpioLines) { throw Problem("--key \(assignment): \(problem)") }
            settings.keyMap.keys[input] = key
        }
        settings.options.menu.twoKeys = LCDMenuSettings.twoKeys(for: settings.keyMap, settings: settings.options.menu)
        return settings
    }

    /// What goes to standard error for `problem` before exit 64.
    public static func errorText(_ problem: Problem) -> String { problem.argumentParserText(usage: "nook-lcdproc <options>", program: "nook-lcdproc") }

    /// `--help`, on standard output.
    public static let usage = """
        OVERVIEW: An LCDproc server (protocol 0.3, as LCDd 0.5.9) whose screens are the
        Nook home glance.

        LCDproc clients (lcdproc, lcdexec, lcdvc, MPD and Kodi clients) connect over
        TCP; what they show is sent to nookd as the home content, and alert/foreground
        screens as cards. Nook's buttons reach clients as keys: open is Enter, dismiss
        is Escape, unless [lcdproc.keys] or --key says otherwise.
        Settings come from the [lcdproc] and [lcdproc.keys] tables of --config (default
        /etc/nook/nook.toml when it exists); each flag overrides its key.

        USAGE: nook-lcdproc <options>

        OPTIONS:
          --config <config>       Config file whose [lcdproc] tables are read (default
                                  /etc/nook/nook.toml if it exists).
          --socket <socket>       nookd's socket (default: $NOOK_SOCKET, else
                                  $XDG_RUNTIME_DIR/nook/nookd.sock if it exists, else
                                  /run/nook/nookd.sock).
          --bind <bind>           IPv4 address to listen on (lcdproc.bind; default
                                  127.0.0.1). Anything but loopback also needs
                                  --allow-network.
          --allow-network         Allow --bind to a non-loopback address
                                  (lcdproc.allow_network): LCDproc has no
                                  authentication, anyone who reaches the port draws on
                                  the glance.
          --port <port>           TCP port (lcdproc.port; LCDd's is 13666; 0 lets the
                                  kernel choose and prints it).
          --size <size>           The character grid clients are told about,
                                  COLUMNSxROWS (lcdproc.size; default 40x4).
          --cell <cell>           Pixels per cell clients are told about, WIDTHxHEIGHT
                                  (lcdproc.cell; default 5x8; bars are sized in them).
          --max-screens <max-screens>
                                  Most screens one client may add (lcdproc.max_screens;
                                  default 64).
          --max-widgets <max-widgets>
                                  Most widgets on one screen (lcdproc.max_widgets;
                                  default 256).
          --max-clients <max-clients>
                                  Most clients at once (lcdproc.max_clients; default
                                  64).
          --max-backlog <max-backlog>
                                  Bytes of answers a client may leave unread before it
                                  is dropped (lcdproc.max_backlog; default 1 MiB).
          --module <module>       nookd queue module the cards go to (lcdproc.module;
                                  default: the foreground one).
          --key <key>             INPUT=KEY: the LCDproc key a press of INPUT (open,
                                  dismiss, or a [gpio.NAME] line's NAME) becomes; KEY
                                  empty: none. Repeatable; over [lcdproc.keys].
          --menu-timeout <menu-timeout>
                                  Seconds with no key after which the server menu
                                  closes, 0 never (lcdproc.menu_timeout; default 30).
          --log-level <log-level> Log level: trace, debug, info, notice, warning,
                                  error. (default: info)
          -h, --help              Show help information.


        """
}
