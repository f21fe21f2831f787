#if compiler(>=6.3)
@_spi(ExperimentalCustomExecutors) import _Concurrency
#endif
import Dispatch
import NookLogging
import NookActivities
import NookDaemon
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// nookd: reads its flags, bootstraps logging and runs the daemon (which handles the signals).
/// The flags are read by `NookdCommandLine`, not ArgumentParser: that would link
/// FoundationEssentials into the daemon for a dozen flags (see docs/benchmarks.md).
@main
enum Nookd {
    /// Synchronous, so that nookd's own executors (ThreadExecutors.swift: libdispatch's wake
    /// once a second) are installed before the first task exists; the main thread then runs
    /// the main actor's jobs until `start` exits.
    ///
    /// Those executors need SE-0476's interface, which Swift 6.3 has and 6.0 lacks. Built with
    /// an older compiler, or run with `NOOKD_EXECUTORS=platform` (so nook-bench can measure
    /// both from one build), nookd runs on the platform's executors, libdispatch's: the same
    /// behaviour, plus libdispatch's wake once a second while idle.
    static func main() throws {
        // First of all: libdispatch, the platform's executors, starts with the first task and
        // crashes on a limit too small for it; nookd's own would fail at a later call.
        if let problem = NookdStartLimit.problem() {
            standardError(problem)
            exit(1)
        }
        // Before anything opens the display: a SIGTERM from here on is held for the signal
        // service, not the default action that would leave the glass as it was. If the relay
        // cannot be made, the signal service says so when it starts and nookd does not start.
        try? DaemonSignals.hold()
        #if compiler(>=6.3)
        if NookdExecutorChoice.fromEnvironment == .own {
            _createExecutors(factory: NookdExecutors.self)
            Task { await start(clock: ExecutorClock(queue: NookdExecutors.pool.queue)) }
            try NookdExecutors.mainExecutor.run()
            exit(0)
        }
        #endif
        Task { await start() }
        // Runs the main queue, the main actor's executor on the platform's executors, forever:
        // `start` ends the process.
        dispatchMain()
    }

    /// `clock`: nookd's own executors' (whose cancelled sleeps wake nothing), or the system's.
    static func start(clock: any NookClock = NookSystemClock()) async -> Never {
        let line: NookdCommandLine
        do {
            line = try NookdCommandLine.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            standardError("nookd: error: \(error)\nSee 'nookd --help'.\n")
            exit(64)
        }
        if line.help {
            print(NookdCommandLine.usage, terminator: "")
            exit(0)
        }
        exit(await run(line, clock: clock))
    }

    static func run(_ line: NookdCommandLine, clock daemonClock: any NookClock) async -> Int32 {
        var settings = DaemonConfig()
        if let config = line.config {
            do {
                settings = try DaemonConfig.load(path: config)
            } catch {
                standardError("nookd: error: \(error)\n")
                return 2
            }
        }
        // The command line, applied over the file at start and again at every SIGHUP reload.
        let flags = line.flags
        let apply: @Sendable (inout DaemonConfig) -> Void = { config in flags.apply(to: &config) }
        apply(&settings)
        if line.testDisplay {
            // No daemon to hand a signal to: Ctrl-C acts as it always did.
            DaemonSignals.release()
            do {
                print(try await DisplayCheck.run(settings, logger: Logger(label: "nookd")))
                return 0
            } catch {
                standardError("nookd: \(error)\n")
                return 1
            }
        }
        if line.check {
            // What a start would refuse that the file alone does not show (a group that does
            // not exist), refused here too.
            do {
                try settings.checkNames()
            } catch {
                standardError("nookd: error: \(error)\n")
                return 2
            }
            print("nookd: " + settings.summary)
            return 0
        }
        StandardErrorLogging.bootstrap(level: settings.logLevel)
        let logger = Logger(label: "nookd")
        let daemon: Daemon
        do {
            daemon = try NookdProcess.makeDaemon(config: settings, configPath: line.config, overrides: apply, logger: logger,
                                                 clock: daemonClock)
        } catch {
            logger.error("\(error)")
            return 1
        }
        do {
            try await daemon.run()
        } catch {
            logger.error("\(error)")
            return 1
        }
        return 0
    }

    /// Writes straight to file descriptor 2 (the C `stderr` global is not concurrency-safe).
    static func standardError(_ text: String) {
        writeWhole(text, to: 2)
    }
}
