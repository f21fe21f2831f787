import ArgumentParser
import Logging
import NookDaemon
#if canImport(Glibc)
import Glibc
#endif

/// nookd: parses flags, bootstraps logging and runs the daemon (which handles the signals).
@main
struct Nookd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nookd",
        abstract: "Show transient activities as cards on a small display.",
        discussion: "Flags override the config file. SIGHUP reloads it; SIGTERM/SIGINT quiesce, restore the display and exit 0.")

    @Option(help: "Config file (TOML). Without it nookd runs on its defaults.")
    var config: String?
    @Option(help: "Socket path (default $XDG_RUNTIME_DIR/nook/nookd.sock, else /run/nook/nookd.sock).")
    var socket: String?
    @Option(help: "Display backend: auto, drm, fbdev or mock.")
    var display: String?
    @Option(help: "Directory the mock display writes its PNG frames to.")
    var frames: String?
    @Option(help: "Mock display size, WIDTHxHEIGHT.")
    var size: String?
    @Option(help: "Rotation from drawing to panel: 0, 90, 180 or 270.")
    var rotation: Int?
    @Option(help: "Theme appearance: dark or light.")
    var theme: String?
    @Option(help: "Group that may use the socket (mode 0660).")
    var socketGroup: String?
    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String?
    @Option(help: "Journal of unfinished activities, restored after a crash or restart (default $STATE_DIRECTORY/journal under systemd; \"none\" turns it off).")
    var journal: String?
    @Option(help: "When a journal record is safe enough to answer: ack (synced first; the default) or interval (synced within a second).")
    var journalSync: String?
    @Flag(help: "Validate the config file and flags, print the result and exit.")
    var check = false
    @Flag(help: "Show a test card on the DRM display for a second, restore the display, report and exit.")
    var testDisplay = false

    /// The flags that override the config file (checked by the file's own rules).
    var flagOverrides: FlagOverrides {
        var flags = FlagOverrides()
        (flags.socket, flags.display, flags.frames, flags.size, flags.rotation) = (socket, display, frames, size, rotation)
        (flags.theme, flags.socketGroup, flags.logLevel, flags.journal, flags.journalSync) = (theme, socketGroup, logLevel, journal, journalSync)
        return flags
    }

    func validate() throws {
        do throws(SettingProblem) { try flagOverrides.validate() } catch { throw ValidationError(error.description) }
    }

    /// The command line, applied over the file at start and again at every SIGHUP reload.
    func overrides() -> @Sendable (inout DaemonConfig) -> Void {
        let flags = flagOverrides
        return { config in flags.apply(to: &config) }
    }

    func run() async throws {
        var settings = DaemonConfig()
        if let config {
            do {
                settings = try DaemonConfig.load(path: config)
            } catch {
                FileHandleStandardError.write("nookd: error: \(error)\n")
                throw ExitCode(2)
            }
        }
        let apply = overrides()
        apply(&settings)
        if testDisplay {
            do {
                print(try await DisplayCheck.run(settings, logger: Logger(label: "nookd")))
                return
            } catch {
                FileHandleStandardError.write("nookd: \(error)\n")
                throw ExitCode(1)
            }
        }
        if check {
            print("nookd: configuration OK (socket \(settings.socketPath), display \(settings.backend.rawValue), modules \(settings.modules.map(\.rawValue).joined(separator: ", ")))")
            return
        }
        let level = Logger.Level(rawValue: settings.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "nookd")
        let daemon: Daemon
        do {
            daemon = try Daemon(config: settings, configPath: config, overrides: apply, logger: logger)
        } catch {
            logger.error("\(error)")
            throw ExitCode(1)
        }
        do {
            try await daemon.run()
        } catch {
            logger.error("\(error)")
            throw ExitCode(1)
        }
    }
}

enum FileHandleStandardError {
    /// Writes straight to file descriptor 2 (the C `stderr` global is not concurrency-safe).
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = Glibc.write(2, &bytes, bytes.count)
    }
}
