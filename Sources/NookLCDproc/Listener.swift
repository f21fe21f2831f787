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

/// The listening TCP socket (owned; closed with this value).
final class TCPListener {
    let socket: FileDescriptor
    /// The port bound (the kernel's choice when 0 was asked for).
    let port: UInt16

    init(_ address: LCDBindAddress) throws(SystemCallError) {
        let host = address.host == "localhost" ? "127.0.0.1" : address.host
        var inet = in_addr()
        guard inet_pton(AF_INET, host, &inet) == 1 else {
            throw SystemCallError("inet_pton", errno: .invalidArgument, subject: "\(address.host) is not an IPv4 address")
        }
        let fd = try systemCall("socket", subject: "LCDproc listener") { Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0) }
        let socket = FileDescriptor(owning: fd, name: "LCDproc listener")
        var on: Int32 = 1
        _ = try? systemCall("setsockopt SO_REUSEADDR", subject: "LCDproc listener") { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) }
        var sockaddr = sockaddr_in()
        sockaddr.sin_family = sa_family_t(AF_INET)
        sockaddr.sin_port = address.port.bigEndian
        sockaddr.sin_addr = inet
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = try systemCall("bind", subject: address.description) {
            withUnsafePointer(to: &sockaddr) { $0.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        }
        _ = try systemCall("listen", subject: address.description) { listen(fd, 64) }
        var bound = sockaddr_in()
        var boundLength = length
        _ = withUnsafeMutablePointer(to: &bound) { pointer in
            pointer.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) { address in
                try? systemCall("getsockname", subject: "LCDproc listener") { getsockname(fd, address, &boundLength) }
            }
        }
        self.socket = socket
        port = UInt16(bigEndian: bound.sin_port)
    }

    /// The next waiting connection, non-blocking and close-on-exec; nil when none waits.
    func accept() throws(SystemCallError) -> (FileDescriptor, String)? {
        var peer = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = socket.rawValue
        // Glibc's Swift module does not expose the _GNU_SOURCE accept4: flags set after accept.
        let accepting = withUnsafeMutablePointer(to: &peer) { pointer in
            pointer.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) { address in
                Result { () throws(SystemCallError) in
                    try nonBlockingSystemCall("accept4", subject: "LCDproc listener") { Glibc.accept(listening, address, &length) }
                }
            }
        }
        let fd: Int32
        switch accepting {
        case .success(let accepted?): fd = accepted
        // Nothing waits, or the one that waited went away before it was accepted.
        case .success(nil): return nil
        case .failure(let failure) where failure.errno == .connectionAborted: return nil
        case .failure(let failure): throw failure
        }
        // The kernel's share of a client's unread answers is bounded too (it would otherwise
        // grow to megabytes before the server's own backlog limit sees anything).
        var sendBuffer: Int32 = 65536
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        inet_ntop(AF_INET, &peer.sin_addr, &text, socklen_t(INET_ADDRSTRLEN))
        let name = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + ":\(UInt16(bigEndian: peer.sin_port))"
        let client = FileDescriptor(owning: fd, name: "LCDproc client \(name)")
        _ = try? systemCall("setsockopt SO_SNDBUF", subject: client.name) { setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size)) }
        _ = try? systemCall("fcntl F_SETFD", subject: client.name) { fcntl(fd, F_SETFD, FD_CLOEXEC) }
        try? client.setNonBlocking()
        return (client, name)
    }
}
