import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 address and port to listen on. LCDproc is unauthenticated, so the default is
/// loopback; anything else is the operator's explicit choice (`bind_address`).
public struct LCDBindAddress: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String = "127.0.0.1", port: UInt16 = 13666) { (self.host, self.port) = (host, port) }

    public var isLoopback: Bool { host.hasPrefix("127.") || host == "localhost" }

    /// Whether `host` is what the listener can bind: dotted IPv4, or `localhost`.
    public static func isValidHost(_ host: String) -> Bool {
        var inet = in_addr()
        return host == "localhost" || inet_pton(AF_INET, host, &inet) == 1
    }

    public var description: String { "\(host):\(port)" }
}

extension TCPListener {
    /// nook-lcdproc's listener, IPv4 only (`localhost` is 127.0.0.1).
    convenience init(lcdproc address: LCDBindAddress) throws(SystemCallError) {
        let host = address.host == "localhost" ? "127.0.0.1" : address.host
        var inet = in_addr()
        guard inet_pton(AF_INET, host, &inet) == 1 else {
            throw SystemCallError("inet_pton", errno: .invalidArgument, subject: "\(address.host) is not an IPv4 address")
        }
        // The kernel's share of a client's unread answers is bounded too (it would otherwise
        // grow to megabytes before the server's own backlog limit sees anything).
        try self.init(host: host, port: address.port, address: address.description,
                      options: Options(purpose: "LCDproc", backlog: 64, sendBuffer: 65536, noDelay: false))
    }
}
