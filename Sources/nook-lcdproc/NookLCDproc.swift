import ArgumentParser
import Logging
import NookLogging
import NookLCDproc
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// nook-lcdproc: parses flags and runs the LCDproc server (SPEC E8).
@main
struct NookLCDprocCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nook-lcdproc",
        abstract: "An LCDproc server (protocol 0.3, as LCDd 0.5.9) whose screens are the Nook home glance.",
        discussion: "LCDproc clients (lcdproc, lcdexec, lcdvc, MPD and Kodi clients) connect over TCP; what they show is sent to nookd as the home content, and alert/foreground screens as cards.")

    @Option(help: "nookd's socket (default: $NOOK_SOCKET, else $XDG_RUNTIME_DIR/nook/nookd.sock if it exists, else /run/nook/nookd.sock).")
    var socket: String?
    @Option(help: "IPv4 address to listen on. Anything but loopback also needs --allow-network.")
    var bind = "127.0.0.1"
    @Flag(help: "Allow --bind to a non-loopback address: LCDproc has no authentication, anyone who reaches the port draws on the glance.")
    var allowNetwork = false
    @Option(help: "TCP port (LCDd's is 13666; 0 lets the kernel choose and prints it).")
    var port: Int = 13666
    @Option(help: "The character grid clients are told about, COLUMNSxROWS.")
    var size = "40x4"
    @Option(help: "Pixels per cell clients are told about, WIDTHxHEIGHT (bars are sized in them).")
    var cell = "5x8"
    @Option(help: "Most screens one client may add.")
    var maxScreens = 64
    @Option(help: "Most widgets on one screen.")
    var maxWidgets = 256
    @Option(help: "Most clients at once.")
    var maxClients = 64
    @Option(help: "Bytes of answers a client may leave unread before it is dropped.")
    var maxBacklog = 1 << 20
    @Option(help: "nookd queue module the cards go to (default: the foreground one).")
    var module: String?
    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String = "info"

    static func pair(_ text: String, _ flag: String, range: ClosedRange<Int>) throws -> (Int, Int) {
        let parts = text.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, range.contains(parts[0]), range.contains(parts[1]) else {
            throw ValidationError("--\(flag) must be WIDTHxHEIGHT with each from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return (parts[0], parts[1])
    }

    func validate() throws {
        if let problem = StandardErrorLogging.problem(withLevel: logLevel) { throw ValidationError(problem) }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535, got \(port)") }
        let (columns, rows) = try Self.pair(size, "size", range: 1...80)
        guard rows <= 24 else { throw ValidationError("--size: at most 24 rows, got \(rows)") }
        _ = columns
        _ = try Self.pair(cell, "cell", range: 1...64)
        if !LCDBindAddress(host: bind).isLoopback && !allowNetwork {
            throw ValidationError("--bind \(bind) is not a loopback address; LCDproc has no authentication, so listening there needs --allow-network as well")
        }
        for (value, flag) in [(maxScreens, "max-screens"), (maxWidgets, "max-widgets"), (maxClients, "max-clients"), (maxBacklog, "max-backlog")] where value < 1 {
            throw ValidationError("--\(flag) must be at least 1, got \(value)")
        }
        if let module, module.isEmpty { throw ValidationError("--module must not be empty") }
    }

    func run() throws {
        StandardErrorLogging.bootstrap(level: logLevel)
        let logger = Logger(label: "nook-lcdproc")
        var options = LCDServer.Options()
        options.bind = LCDBindAddress(host: bind, port: UInt16(port))
        let (columns, rows) = try Self.pair(size, "size", range: 1...80)
        let (cellWidth, cellHeight) = try Self.pair(cell, "cell", range: 1...64)
        options.grid = LCDGrid(width: columns, height: rows, cellWidth: cellWidth, cellHeight: cellHeight)
        options.limits.screens = maxScreens
        options.limits.widgetsPerScreen = maxWidgets
        options.maximumClients = maxClients
        options.maximumBacklogBytes = maxBacklog
        do {
            let sender = try GlanceSender(socketPath: socket ?? NookClient.defaultSocketPath, module: module, logger: logger)
            let server = try LCDServer(options: options, sender: sender, logger: logger)
            StopSignals.restoreDefaults()
            // The chosen port, for whoever started us with --port 0 (tests, scripts).
            let announcement = Array("listening on \(bind):\(server.port)\n".utf8)
            _ = announcement.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            try server.run()
        } catch {
            let line = Array("nook-lcdproc: \(error)\n".utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            throw ExitCode(1)
        }
    }
}
