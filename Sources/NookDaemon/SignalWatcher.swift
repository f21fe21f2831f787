#if canImport(Glibc)
import Glibc
#endif
import NookLogging
import NookActivities
import NookSystem
import Synchronization

/// SIGTERM/SIGINT stop the daemon (a second one exits at once); SIGHUP reloads (N1, N2).
final class SignalWatcher: Sendable {
    private let id: Int

    /// Throws if the relay's pipe cannot be made (no descriptor left: `RLIMIT_NOFILE`).
    init(logger: Logger, stop: @escaping @Sendable () -> Void, reload: @escaping @Sendable () -> Void) throws(DaemonError) {
        let stops = Counter()
        do throws(SystemCallError) {
            id = try SignalRelay.watch { number in
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
        } catch {
            throw DaemonError("cannot handle signals: \(error)")
        }
        // A journal at a file-size limit gets EFBIG and degrades to memory; it must not kill nookd.
        signal(SIGXFSZ, SIG_IGN)
    }

    /// Stops reacting to signals (the handlers stay installed and ignore them: the daemon is on
    /// its way out).
    func cancel() {
        SignalRelay.forget(id)
    }
}

/// nookd's signals from the first line of `main` (N2): SIGTERM, SIGINT and SIGHUP are caught
/// by NookSystem's ``SignalRelay`` before anything opens the display, and one that comes before
/// the signal service watches is held for it (a stop then ends nookd cleanly once its services
/// have started). A
/// second stop signal while one is held exits at once, as it does once nookd runs, so a start
/// that hangs can still be interrupted.
public enum DaemonSignals {
    /// Installs the relay now; throws if its pipe cannot be made.
    public static func hold() throws(DaemonError) {
        do throws(SystemCallError) { try SignalRelay.hold() } catch { throw DaemonError("cannot handle signals: \(error)") }
    }

    /// For a run that will not start the daemon (`--test-display`): the signals get their
    /// default action back, and one held meanwhile acts now.
    public static func release() {
        SignalRelay.release()
    }
}

/// Stop signals counted on the relay's thread.
final class Counter: @unchecked Sendable {
    private var value = 0
    /// Only called on the relay's thread.
    func increment() -> Int {
        value += 1
        return value
    }
}
