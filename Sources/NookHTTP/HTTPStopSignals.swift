import NookSystem
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM and SIGINT stop the server gracefully: NookSystem's ``SignalRelay`` (the handler
/// nookd uses too) hands them to its thread, which wakes the server's stop pipe, and the loop
/// writes the answers under way before it returns. A second stop signal ends the process at
/// once. SIGHUP reads the token file again.
public enum HTTPStopSignals {
    private static let received = Atomic<Int>(0)

    /// Installs the handlers before it returns; throws if the relay cannot be made (no
    /// descriptor left): nook-http must not serve with SIGHUP ignored and SIGTERM ending it
    /// with no stop.
    public static func install(stopping server: HTTPServer) throws(SystemCallError) {
        let wakers = server.wakers
        _ = try SignalRelay.watch { number in
            if number == SIGHUP {
                wakers.reload.wake()
                return
            }
            if received.add(1, ordering: .relaxed).newValue > 1 { _exit(128 + number) }
            wakers.stop.wake()
        }
    }
}
