import NookLogging
import NookConfig
import NookLCDproc
import NookProtocol
import NookSystem
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// nook-lcdproc: reads its flags and the `[lcdproc]` tables of the config file
/// (`LCDCommandLine`, FlagReader), and runs the LCDproc server (SPEC E8). A flag overrides the
/// file; the file overrides the defaults.
@main
enum NookLCDprocCommand {
    static func main() {
        let read: (line: LCDCommandLine, settings: LCDCommandLine.Settings?)
        do {
            read = try LCDCommandLine.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            writeWhole(LCDCommandLine.errorText(error), to: 2)
            exit(64)
        }
        guard let settings = read.settings, !read.line.help else {
            writeWhole(LCDCommandLine.usage, to: 1)
            exit(0)
        }
        let line = read.line
        StandardErrorLogging.bootstrap(level: line.logLevel)
        let logger = Logger(label: "nook-lcdproc")
        // Unblocked (a parent may leave them blocked) and then held from here on: a stop
        // signal that comes while the server is being set up stops it once it runs, and the
        // server closes its clients and its nookd connections before the exit 0 that
        // nook-lcdproc(8) promises, rather than dying of the signal (exit 143).
        StopSignals.restoreDefaults()
        do {
            try SignalRelay.hold()
        } catch {
            writeWhole("nook-lcdproc: cannot handle the stop signals: \(error)\n", to: 2)
            exit(1)
        }
        do {
            let socketPath = line.socket ?? NookClient.defaultSocketPath
            let sender = try GlanceSender(socketPath: socketPath, module: settings.module, logger: logger)
            let server = try LCDServer(options: settings.options, sender: sender, logger: logger)
            let keys = settings.keyMap.keys.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }.map { "\($0.key)→\($0.value)" }
            logger.info("Nook's inputs as keys: \(keys.isEmpty ? "none" : keys.joined(separator: ", "))")
            let menu = settings.options.menu
            logger.info("server menu: \(menu.menuKey) opens it, \(menu.enterKey) selects, \(menu.twoKeys ? "\(menu.menuKey) moves to the next entry once open (two keys)" : "\(menu.upKey)/\(menu.downKey) move, \(menu.menuKey) goes back"); closes after \(menu.timeoutFrames == 0 ? "no time" : "\(menu.timeoutFrames / 8) s") with no key")
            let inputs = try InputListener(socketPath: socketPath, keyMap: settings.keyMap, logger: logger) { [keys = server.keys] key in keys.press(key: key) }
            let stops = Atomic<Int>(0)
            let stop = server.stopper
            _ = try SignalRelay.watch { [logger] number in
                // A second stop signal while the first one's stop runs ends it at once.
                if stops.add(1, ordering: .relaxed).newValue > 1 { _exit(128 + number) }
                logger.notice("stopping on signal \(number): closing the clients and the connections to nookd")
                stop()
            }
            // The chosen port, for whoever started us with --port 0 (tests, scripts).
            writeWhole("listening on \(settings.options.bind.host):\(server.port)\n", to: 1)
            try server.run()
            inputs.stop()
            logger.info("stopped")
        } catch {
            writeWhole("nook-lcdproc: \(error)\n", to: 2)
            exit(1)
        }
    }
}
