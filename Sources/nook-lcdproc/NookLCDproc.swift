import NookLogging
import NookConfig
import NookLCDproc
import NookProtocol
import NookSystem
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
        do {
            let socketPath = line.socket ?? NookClient.defaultSocketPath
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
            exit(1)
        }
    }
}
