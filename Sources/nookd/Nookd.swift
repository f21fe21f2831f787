import ArgumentParser
import Dispatch
import Logging
import NookDaemon
import NookDisplay
#if canImport(Glibc)
import Glibc
#endif

/// nookd: parses flags, bootstraps logging, installs signal handlers and runs the daemon.
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

    func validate() throws {
        if let display, DaemonConfig.Backend(rawValue: display) == nil { throw ValidationError("--display must be auto, drm, fbdev or mock; got '\(display)'") }
        if let size, PixelSize(parsing: size) == nil { throw ValidationError("--size must be WIDTHxHEIGHT such as 1280x400; got '\(size)'") }
        if let rotation, rotation % 90 != 0 || !(0...270).contains(rotation) { throw ValidationError("--rotation must be 0, 90, 180 or 270; got \(rotation)") }
        if let theme, theme != "dark" && theme != "light" { throw ValidationError("--theme must be dark or light; got '\(theme)'") }
        if let logLevel, Logger.Level(rawValue: logLevel) == nil { throw ValidationError("--log-level must be trace, debug, info, notice, warning or error; got '\(logLevel)'") }
        if let socket, !socket.hasPrefix("/") { throw ValidationError("--socket must be an absolute path; got '\(socket)'") }
        if let journal, journal != "none", !journal.hasPrefix("/") { throw ValidationError("--journal must be an absolute path or none; got '\(journal)'") }
        if let journalSync, JournalSync(rawValue: journalSync) == nil { throw ValidationError("--journal-sync must be ack or interval; got '\(journalSync)'") }
    }

    /// The command line, applied over the file at start and again at every SIGHUP reload.
    func overrides() -> @Sendable (inout DaemonConfig) -> Void {
        let (socket, display, frames, size, rotation, theme, socketGroup, logLevel, journal) =
            (socket, display, frames, size, rotation, theme, socketGroup, logLevel, journal)
        let journalSync = journalSync.flatMap(JournalSync.init(rawValue:))
        return { config in
            if let journal { config.journalPath = journal == "none" ? nil : journal }
            if let journalSync { config.journalSync = journalSync }
            if let socket { config.socketPath = socket }
            if let display { config.backend = DaemonConfig.Backend(rawValue: display)! }
            if let frames { config.framesDirectory = frames }
            if let size { config.mockSize = PixelSize(parsing: size)! }
            if let rotation { config.rotation = Rotation(degrees: rotation)! }
            if let theme { config.useAppearance(theme) }
            if let socketGroup { config.socketGroup = socketGroup }
            if let logLevel { config.logLevel = logLevel }
        }
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
        // A journal at a file-size limit gets EFBIG and degrades to memory; it must not kill nookd.
        signal(SIGXFSZ, SIG_IGN)
        let signals = SignalWatcher(logger: logger, stop: { daemon.requestStop() }, reload: { Task { await daemon.reload() } })
        do {
            try await daemon.run()
        } catch {
            logger.error("\(error)")
            throw ExitCode(1)
        }
        withExtendedLifetime(signals) {}
    }
}

/// SIGTERM/SIGINT stop the daemon (a second one exits at once); SIGHUP reloads (N1, N2).
final class SignalWatcher {
    private let sources: [any DispatchSourceSignal]

    init(logger: Logger, stop: @escaping @Sendable () -> Void, reload: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "nookd.signals")
        let stops = Counter()
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if number == SIGHUP {
                    reload()
                    return
                }
                if stops.increment() > 1 {
                    logger.warning("second stop signal: exiting now")
                    exit(1)
                }
                stop()
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
        // libdispatch installs its handler for a signal source on its manager thread, after
        // resume() has returned; until then the disposition is the SIG_IGN set above and a stop
        // signal is dropped. nookd opens its socket only after this returns, so a client (or
        // systemd) that sees nookd ready can always stop it.
        for _ in 0..<2000 where [SIGTERM, SIGINT, SIGHUP].contains(where: { Self.isIgnored($0) }) {
            usleep(1000)
        }
    }

    private static func isIgnored(_ number: Int32) -> Bool {
        var current = sigaction()
        sigaction(number, nil, &current)
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}

final class Counter: @unchecked Sendable {
    private var value = 0
    /// Only called on the signal queue, which is serial.
    func increment() -> Int {
        value += 1
        return value
    }
}

enum FileHandleStandardError {
    /// Writes straight to file descriptor 2 (the C `stderr` global is not concurrency-safe).
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = Glibc.write(2, &bytes, bytes.count)
    }
}
