import NookSystem

/// Where nook-http listens: an IPv4 or IPv6 address and a port. Loopback by default (H4);
/// anything else is the operator's explicit choice (`http.listen`, `--listen`).
public struct HTTPListenAddress: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public static let defaultPort: UInt16 = 8722

    public init(host: String = "127.0.0.1", port: UInt16 = HTTPListenAddress.defaultPort) { (self.host, self.port) = (host, port) }

    /// `127.0.0.1:8722`, `[::1]:8722`, `0.0.0.0:80`, `localhost:8722`, or a bare port (loopback).
    public init?(parsing text: String) {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard let port = UInt16(portText), Self.family(of: host) != nil else { return nil }
        self.init(host: host == "localhost" ? "127.0.0.1" : host, port: port)
    }

    static func family(of host: String) -> Int32? { TCPListener.family(of: host) }

    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

extension TCPListener {
    /// nook-http's listener: the backlog is the kernel's usual maximum, and each connection's
    /// send buffer is bounded so the server's own backlog bound sees a slow reader soon.
    convenience init(http address: HTTPListenAddress) throws(SystemCallError) {
        try self.init(host: address.host, port: address.port, address: address.description,
                      options: Options(purpose: "HTTP", backlog: 511, sendBuffer: 262_144, noDelay: true))
    }
}
