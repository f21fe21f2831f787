#if canImport(Glibc)
import Glibc
#endif

/// What a long-running Nook process (a bridge, a server) does first: SIGTERM, SIGINT and SIGHUP
/// end it at once, even when its parent left them ignored or blocked (a service manager's or
/// test runner's thread that blocks signals passes that on through `fork` and `exec`, and the
/// process could then not be stopped politely). SIGPIPE is ignored: a peer that went away is
/// an error return from `write`, not the end of the process.
public enum StopSignals {
    public static func restoreDefaults() {
        var set = sigset_t()
        sigemptyset(&set)
        for number in [SIGTERM, SIGINT, SIGHUP] {
            signal(number, SIG_DFL)
            sigaddset(&set, number)
        }
        _ = try? systemCall("sigprocmask") { sigprocmask(SIG_UNBLOCK, &set, nil) }
        signal(SIGPIPE, SIG_IGN)
    }
}
