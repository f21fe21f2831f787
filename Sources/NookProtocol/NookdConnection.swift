#if canImport(Glibc)
import Glibc
#endif
import NookSystem

extension NookClient {
    /// Where a client finds nookd: `$NOOK_SOCKET`, else the user's own nookd
    /// (`$XDG_RUNTIME_DIR/nook/nookd.sock`, if it exists), else the system service's. A
    /// logged-in user has `XDG_RUNTIME_DIR` set even when nookd runs as the system service,
    /// hence the check that the user's socket is there.
    public static var defaultSocketPath: String {
        if let chosen = getenv("NOOK_SOCKET").map({ String(cString: $0) }), !chosen.isEmpty { return chosen }
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty,
           fileExists(runtime + "/nook/nookd.sock") {
            return runtime + "/nook/nookd.sock"
        }
        return "/run/nook/nookd.sock"
    }

    /// A connection that has asked for nookd's lifecycle events: every event after this
    /// returns arrives on it, in order (nookd subscribes before it answers).
    public static func watching(path: String, readTimeout: Duration) throws(ClientError) -> NookClient {
        let client = try NookClient(path: path)
        client.readTimeout = readTimeout
        _ = try client.request(Request(id: .string("watch"), operation: .watch), as: WatchAnswer.self)
        return client
    }
}

/// Seconds to wait before the next attempt to reach something that went away (nookd, a
/// broker): `first`, doubling up to `limit`, back to `first` once an attempt succeeds. A bridge
/// that starts before nookd finds it within a quarter second, and one whose peer is gone for
/// good does not spin.
public struct ReconnectBackoff: Sendable {
    private let first: Double
    private let limit: Double
    private var current: Double

    public init(first: Double = 0.25, limit: Double = 10) {
        (self.first, self.limit, current) = (first, limit, first)
    }

    public mutating func next() -> Double {
        defer { current = min(current * 2, limit) }
        return current
    }

    public mutating func reset() { current = first }
}
