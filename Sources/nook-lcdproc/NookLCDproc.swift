import ArgumentParser
import NookLogging
import NookConfig
import NookLCDproc
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// nook-lcdproc: parses flags and the `[lcdproc]` tables of the config file, and runs the
/// LCDproc server (SPEC E8). A flag overrides the file; the file overrides the defaults.
@main
struct NookLCDprocCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nook-lcdproc",
        abstract: "An LCDproc server (protocol 0.3, as LCDd 0.5.9) whose screens are the Nook home glance.",
        discussion: """
            LCDproc clients (lcdproc, lcdexec, lcdvc, MPD and Kodi clients) connect over TCP; what they show is sent to nookd as the home content, and alert/foreground screens as cards. Nook's buttons reach clients as keys: open is Enter, dismiss is Escape, unless [lcdproc.keys] or --key says otherwise.
            Settings come from the [lcdproc] and [lcdproc.keys] tables of --config (default /etc/nook/nook.toml when it exists); each flag overrides its key.
            """)

    static let defaultConfig = "/etc/nook/nook.toml"

    @Option(help: "Config file whose [lcdproc] tables are read (default \(defaultConfig) if it exists).")
    var config: String?
    @Option(help: "nookd's socket (default: $NOOK_SOCKET, else $XDG_RUNTIME_DIR/nook/nookd.sock if it exists, else /run/nook/nookd.sock).")
    var socket: String?
    @Option(help: "IPv4 address to listen on (lcdproc.bind; default 127.0.0.1). Anything but loopback also needs --allow-network.")
    var bind: String?
    @Flag(help: "Allow --bind to a non-loopback address (lcdproc.allow_network): LCDproc has no authentication, anyone who reaches the port draws on the glance.")
    var allowNetwork = false
    @Option(help: "TCP port (lcdproc.port; LCDd's is 13666; 0 lets the kernel choose and prints it).")
    var port: Int?
    @Option(help: "The character grid clients are told about, COLUMNSxROWS (lcdproc.size; default 40x4).")
    var size: String?
    @Option(help: "Pixels per cell clients are told about, WIDTHxHEIGHT (lcdproc.cell; default 5x8; bars are sized in them).")
    var cell: String?
    @Option(help: "Most screens one client may add (lcdproc.max_screens; default 64).")
    var maxScreens: Int?
    @Option(help: "Most widgets on one screen (lcdproc.max_widgets; default 256).")
    var maxWidgets: Int?
    @Option(help: "Most clients at once (lcdproc.max_clients; default 64).")
    var maxClients: Int?
    @Option(help: "Bytes of answers a client may leave unread before it is dropped (lcdproc.max_backlog; default 1 MiB).")
    var maxBacklog: Int?
    @Option(help: "nookd queue module the cards go to (lcdproc.module; default: the foreground one).")
    var module: String?
    @Option(name: .customLong("key"), help: "INPUT=KEY: the LCDproc key a press of INPUT (open, dismiss, or a [gpio.NAME] line's NAME) becomes; KEY empty: none. Repeatable; over [lcdproc.keys].")
    var keys: [String] = []
    @Option(help: "Seconds with no key after which the server menu closes, 0 never (lcdproc.menu_timeout; default 30).")
    var menuTimeout: Int?
    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String = "info"

    /// The settings once the file and the flags are read, or a message naming what is wrong.
    struct Settings {
        var options = LCDServer.Options()
        var keyMap = LCDKeyMap()
        var module: String?
    }

    func settings() throws -> Settings {
        var file = LCDConfig()
        let path = config ?? (fileExists(Self.defaultConfig) ? Self.defaultConfig : nil)
        if let path {
            do { file = try LCDConfig.load(path: path) } catch { throw ValidationError("\(error)") }
        }
        var settings = Settings()
        let bind = self.bind ?? file.bind ?? "127.0.0.1"
        guard LCDBindAddress.isValidHost(bind) else { throw ValidationError("--bind must be an IPv4 address such as 127.0.0.1, got '\(bind)'") }
        if !LCDBindAddress(host: bind).isLoopback && !(allowNetwork || file.allowNetwork == true) {
            // From the file: its own message, naming the line.
            if self.bind == nil, let problem = file.bindNeedsAllowNetwork { throw ValidationError("\(problem)") }
            throw ValidationError("--bind \(bind) is not a loopback address; LCDproc has no authentication, so listening there needs --allow-network (or lcdproc.allow_network = true) as well")
        }
        let port = self.port ?? file.port ?? 13666
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535, got \(port)") }
        settings.options.bind = LCDBindAddress(host: bind, port: UInt16(port))
        var grid = LCDGrid(width: file.columns ?? 40, height: file.rows ?? 4, cellWidth: file.cellWidth ?? 5, cellHeight: file.cellHeight ?? 8)
        if let size {
            guard let (columns, rows) = LCDConfig.pair(size, width: 1...80, height: 1...24) else {
                throw ValidationError("--size must be COLUMNSxROWS with 1 to 80 columns and 1 to 24 rows, got '\(size)'")
            }
            (grid.width, grid.height) = (columns, rows)
        }
        if let cell {
            guard let (width, height) = LCDConfig.pair(cell, width: 1...64, height: 1...64) else {
                throw ValidationError("--cell must be WIDTHxHEIGHT with each from 1 to 64, got '\(cell)'")
            }
            (grid.cellWidth, grid.cellHeight) = (width, height)
        }
        settings.options.grid = grid
        for (value, flag) in [(maxScreens, "max-screens"), (maxWidgets, "max-widgets"), (maxClients, "max-clients"), (maxBacklog, "max-backlog")] {
            if let value, value < 1 { throw ValidationError("--\(flag) must be at least 1, got \(value)") }
        }
        settings.options.limits.screens = maxScreens ?? file.maxScreens ?? settings.options.limits.screens
        settings.options.limits.widgetsPerScreen = maxWidgets ?? file.maxWidgets ?? settings.options.limits.widgetsPerScreen
        settings.options.maximumClients = maxClients ?? file.maxClients ?? settings.options.maximumClients
        settings.options.maximumBacklogBytes = maxBacklog ?? file.maxBacklog ?? settings.options.maximumBacklogBytes
        settings.module = module ?? file.module
        if let module = settings.module, module.isEmpty { throw ValidationError("--module must not be empty") }
        let timeout = menuTimeout ?? file.menuTimeout ?? 30
        guard (0...3600).contains(timeout) else { throw ValidationError("--menu-timeout must be 0 to 3600 seconds, got \(timeout)") }
        settings.options.menu.timeoutFrames = timeout * 8
        settings.keyMap.keys.merge(file.keys) { $1 }
        for assignment in keys {
            guard let (input, key) = LCDKeyMap.parse(assignment: assignment) else {
                throw ValidationError("--key must be INPUT=KEY (such as open=Enter), got '\(assignment)'")
            }
            if let problem = LCDKeyMap.problem(with: key) { throw ValidationError("--key \(assignment): \(problem)") }
            if let problem = LCDKeyMap.problem(withInput: input, gpioLines: file.gpioLines) { throw ValidationError("--key \(assignment): \(problem)") }
            settings.keyMap.keys[input] = key
        }
        settings.options.menu.twoKeys = LCDMenuSettings.twoKeys(for: settings.keyMap, settings: settings.options.menu)
        return settings
    }

    func validate() throws {
        if let problem = StandardErrorLogging.problem(withLevel: logLevel) { throw ValidationError(problem) }
        _ = try settings()
    }

    func run() throws {
        StandardErrorLogging.bootstrap(level: logLevel)
        let logger = Logger(label: "nook-lcdproc")
        let settings = try settings()
        do {
            let socketPath = socket ?? NookClient.defaultSocketPath
            let sender = try GlanceSender(socketPath: socketPath, module: settings.module, logger: logger)
            let server = try LCDServer(options: settings.options, sender: sender, logger: logger)
            let keys = settings.keyMap.keys.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }.map { "\($0.key)→\($0.value)" }
            logger.info("Nook's inputs as keys: \(keys.isEmpty ? "none" : keys.joined(separator: ", "))")
            let menu = settings.options.menu
            logger.info("server menu: \(menu.menuKey) opens it, \(menu.enterKey) selects, \(menu.twoKeys ? "\(menu.menuKey) moves to the next entry once open (two keys)" : "\(menu.upKey)/\(menu.downKey) move, \(menu.menuKey) goes back"); closes after \(menu.timeoutFrames == 0 ? "no time" : "\(menu.timeoutFrames / 8) s") with no key")
            let inputs = try InputListener(socketPath: socketPath, keyMap: settings.keyMap, logger: logger) { [keys = server.keys] key in keys.press(key: key) }
            StopSignals.restoreDefaults()
            // The chosen port, for whoever started us with --port 0 (tests, scripts).
            writeWhole("listening on \(settings.options.bind.host):\(server.port)\n", to: 1)
            try server.run()
            inputs.stop()
        } catch {
            writeWhole("nook-lcdproc: \(error)\n", to: 2)
            throw ExitCode(1)
        }
    }
}
