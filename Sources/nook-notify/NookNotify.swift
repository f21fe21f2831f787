import ArgumentParser
import Logging
import NookLogging
import NookNotify
import NookProtocol
#if canImport(Glibc)
import Glibc
#endif

/// nook-notify: parses flags and runs the notification bridge (SPEC E1).
@main
struct NookNotifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nook-notify",
        abstract: "Show freedesktop notifications (notify-send) on the Nook display.",
        discussion: "Owns org.freedesktop.Notifications on the session bus (or the system bus with --system) and forwards each notification to nookd.")

    @Option(help: "nookd's socket (default: $NOOK_SOCKET, else $XDG_RUNTIME_DIR/nook/nookd.sock if it exists, else /run/nook/nookd.sock).")
    var socket: String?
    @Flag(help: "Serve on the system bus instead of the session bus.")
    var system = false
    @Flag(help: "Take the name from a running notification server that allows replacement.")
    var replace = false
    @Option(help: "nookd queue module the cards go to (default: the foreground one).")
    var module: String?
    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String = "info"

    func validate() throws {
        if let problem = StandardErrorLogging.problem(withLevel: logLevel) { throw ValidationError(problem) }
        if let module, module.isEmpty { throw ValidationError("--module must not be empty") }
    }

    func run() throws {
        StandardErrorLogging.bootstrap(level: logLevel)
        let options = NotificationBridge.Options(socketPath: socket ?? NookClient.defaultSocketPath, systemBus: system, replace: replace, module: module)
        do {
            try NotificationBridge(options: options, logger: Logger(label: "nook-notify")).run()
        } catch {
            let line = Array("nook-notify: \(error)\n".utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            throw ExitCode(1)
        }
    }
}
