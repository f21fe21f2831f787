import NookSystem
#if canImport(Glibc)
import Glibc
#endif

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

    static func family(of host: String) -> Int32? {
        var four = in_addr()
        var six = in6_addr()
        if inet_pton(AF_INET, host, &four) == 1 { return AF_INET }
        if inet_pton(AF_INET6, host, &six) == 1 { return AF_INET6 }
        return nil
    }

    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// A listening TCP socket, non-blocking (owned; closed with this value).
final class HTTPListener {
    let socket: FileDescriptor
    let address: HTTPListenAddress
    /// The port bound (the kernel's choice when 0 was asked for).
    let port: UInt16

    init(_ address: HTTPListenAddress) throws(SystemCallError) {
        guard let family = HTTPListenAddress.family(of: address.host) else {
            throw SystemCallError("inet_pton", errno: .invalidArgument, subject: "\(address.host) is not an IPv4 or IPv6 address")
        }
        let fd = try systemCall("socket", subject: "HTTP listener \(address)") {
            Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        }
        let socket = FileDescriptor(owning: fd, name: "HTTP listener \(address)")
        var on: Int32 = 1
        _ = try? systemCall("setsockopt SO_REUSEADDR", subject: socket.name) { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) }
        var storage = sockaddr_storage()
        let length: socklen_t
        if family == AF_INET {
            var inet = sockaddr_in()
            inet.sin_family = sa_family_t(AF_INET)
            inet.sin_port = address.port.bigEndian
            inet_pton(AF_INET, address.host, &inet.sin_addr)
            withUnsafeMutableBytes(of: &storage) { target in withUnsafeBytes(of: inet) { target.copyMemory(from: $0) } }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else {
            // An IPv6 socket serves IPv6 only: 0.0.0.0 is configured as an address of its own.
            _ = try? systemCall("setsockopt IPV6_V6ONLY", subject: socket.name) { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size)) }
            var inet6 = sockaddr_in6()
            inet6.sin6_family = sa_family_t(AF_INET6)
            inet6.sin6_port = address.port.bigEndian
            inet_pton(AF_INET6, address.host, &inet6.sin6_addr)
            withUnsafeMutableBytes(of: &storage) { target in withUnsafeBytes(of: inet6) { target.copyMemory(from: $0) } }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
        _ = try systemCall("bind", subject: address.description) {
            withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        }
        _ = try systemCall("listen", subject: address.description) { listen(fd, 511) }
        var bound = sockaddr_storage()
        var boundLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { name in
                try? systemCall("getsockname", subject: socket.name) { getsockname(fd, name, &boundLength) }
            }
        }
        let boundPort = withUnsafeBytes(of: bound) { bytes in UInt16(bytes[2]) << 8 | UInt16(bytes[3]) }
        self.socket = socket
        self.address = address
        port = boundPort
    }

    /// The next waiting connection (non-blocking, close-on-exec) and its peer's address and
    /// whether it is loopback; nil when none waits.
    func accept() throws(SystemCallError) -> (socket: FileDescriptor, peer: String, loopback: Bool)? {
        var peer = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let listening = socket.rawValue
        let accepting = withUnsafeMutablePointer(to: &peer) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                Result { () throws(SystemCallError) in
                    try nonBlockingSystemCall("accept", subject: socket.name) { Glibc.accept(listening, address, &length) }
                }
            }
        }
        let fd: Int32
        switch accepting {
        case .success(let accepted?): fd = accepted
        case .success(nil): return nil
        case .failure(let failure) where failure.errno == .connectionAborted: return nil
        case .failure(let failure): throw failure
        }
        var name = ""
        var loopback = false
        if Int32(peer.ss_family) == AF_INET6 {
            var inet6 = sockaddr_in6()
            withUnsafeMutableBytes(of: &inet6) { target in withUnsafeBytes(of: peer) { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(MemoryLayout<sockaddr_in6>.size))) } }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            inet_ntop(AF_INET6, &inet6.sin6_addr, &text, socklen_t(INET6_ADDRSTRLEN))
            let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            loopback = host == "::1" || host.hasPrefix("::ffff:127.")
            name = "[\(host)]:\(UInt16(bigEndian: inet6.sin6_port))"
        } else {
            var inet = sockaddr_in()
            withUnsafeMutableBytes(of: &inet) { target in withUnsafeBytes(of: peer) { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(MemoryLayout<sockaddr_in>.size))) } }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            inet_ntop(AF_INET, &inet.sin_addr, &text, socklen_t(INET_ADDRSTRLEN))
            let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            loopback = host.hasPrefix("127.")
            name = "\(host):\(UInt16(bigEndian: inet.sin_port))"
        }
        let client = FileDescriptor(owning: fd, name: "HTTP client \(name)")
        _ = try? systemCall("fcntl F_SETFD", subject: client.name) { fcntl(fd, F_SETFD, FD_CLOEXEC) }
        try? client.setNonBlocking()
        // Bounded in the kernel too, so the server's own backlog bound sees a slow reader soon.
        var sendBuffer: Int32 = 262_144
        _ = try? systemCall("setsockopt SO_SNDBUF", subject: client.name) { setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size)) }
        var on: Int32 = 1
        _ = try? systemCall("setsockopt TCP_NODELAY", subject: client.name) { setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size)) }
        return (client, name, loopback)
    }
}
