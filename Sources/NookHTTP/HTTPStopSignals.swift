import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM and SIGINT stop the server gracefully: the handler writes a byte to the server's
/// stop pipe (`write(2)` is async-signal-safe), and the loop writes the answers under way
/// before it returns. A second signal while stopping ends the process at once. SIGHUP reads the
/// token file again: its handler writes to the server's reload pipe the same way.
public enum HTTPStopSignals {
    nonisolated(unsafe) private static var descriptor: Int32 = -1
    nonisolated(unsafe) private static var reloadDescriptor: Int32 = -1
    nonisolated(unsafe) private static var received: Int32 = 0

    public static func install(stopping server: HTTPServer) {
        descriptor = server.stopDescriptor
        for number in [SIGTERM, SIGINT] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                HTTPStopSignals.received += 1
                if HTTPStopSignals.received > 1 { _exit(128 + number) }
                var byte: UInt8 = 1
                _ = write(HTTPStopSignals.descriptor, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = Int32(SA_RESTART)
            _ = try? systemCall("sigaction", subject: "SIGTERM/SIGINT") { sigaction(number, &action, nil) }
        }
        reloadDescriptor = server.reloadDescriptor
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            let saved = errno
            var byte: UInt8 = 1
            _ = write(HTTPStopSignals.reloadDescriptor, &byte, 1)
            errno = saved
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = Int32(SA_RESTART)
        _ = try? systemCall("sigaction", subject: "SIGHUP") { sigaction(SIGHUP, &action, nil) }
    }
}
