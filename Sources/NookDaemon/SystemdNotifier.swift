#if canImport(Glibc)
import Glibc
#endif
import NookSystem

/// Tells systemd about readiness (`Type=notify`) when `NOTIFY_SOCKET` is set; a no-op otherwise.
enum SystemdNotifier {
    static func notify(_ message: String) {
        guard let socketPath = getenv("NOTIFY_SOCKET").map({ String(cString: $0) }),
              let address = UnixSocketAddress(path: socketPath),
              let socket = try? FileDescriptor.unixSocket(SOCK_DGRAM, name: "NOTIFY_SOCKET") else { return }
        _ = message.withCString { text in
            address.withSocketAddress { to, length in
                try? System.sendIfReady(socket.rawValue, text, strlen(text), flags: Int32(MSG_NOSIGNAL), to: to, length, subject: socketPath)
            }
        }
    }
}
