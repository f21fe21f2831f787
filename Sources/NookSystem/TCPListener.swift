import Glibc
import Synchronization

/// A listening TCP socket, non-blocking and close-on-exec (owned; closed with this value): the
/// one listener of nook-http and nook-lcdproc. The address is IPv4 or IPv6 by its text; an IPv6
/// socket serves IPv6 only, so that 0.0.0.0 is an address of its own.
public final class TCPListener: Sendable {
    /// How the listener and the connections it accepts are set up.
    public struct Options: Sendable {
        /// Names the listener and its clients in errors: `HTTP` gives `HTTP listener`, `HTTP client`.
        public var purpose: String
        /// `listen(2)`'s backlog.
        public var backlog: Int32
        /// `SO_SNDBUF` of each accepted connection: the kernel's share of a client's unread
        /// answers is bounded too, so the server's own backlog bound sees a slow reader soon.
        public var sendBuffer: Int32
        /// `TCP_NODELAY` on each accepted connection.
        public var noDelay: Bool

        public init(purpose: String, backlog: Int32, sendBuffer: Int32, noDelay: Bool) {
            (self.purpose, self.backlog, self.sendBuffer, self.noDelay) = (purpose, backlog, sendBuffer, noDelay)
        }
    }

    /// An accepted connection: non-blocking, close-on-exec, set up as ``Options`` says.
    public struct Connection {
        public let socket: FileDescriptor
        /// `127.0.0.1:40000`, `[::1]:40000`.
        public let peer: String
        /// Whether the peer's address is loopback (IPv4-mapped loopback included).
        public let loopback: Bool
    }

    public let socket: FileDescriptor
    /// The address listened on, as given.
    public let host: String
    /// The port bound (the kernel's choice when 0 was asked for).
    public let port: UInt16
    private let options: Options
    /// A descriptor held back for ``dropPending()``: out of descriptors, a waiting connection
    /// can be neither served nor left waiting (the listener stays readable, and a poll loop
    /// would spin on it), so this one is closed to accept it and close it. -1 when none.
    private let spare: Atomic<Int32>

    /// The address family of `host` (a numeric IPv4 or IPv6 address), or nil.
    public static func family(of host: String) -> Int32? {
        var four = in_addr()
        var six = in6_addr()
        if inet_pton(AF_INET, host, &four) == 1 { return AF_INET }
        if inet_pton(AF_INET6, host, &six) == 1 { return AF_INET6 }
        return nil
    }

    /// Binds `host`:`port` and listens.
    /// - Parameter address: how the address is named in the errors of `bind` and `listen`.
    public init(host: String, port: UInt16, address: String, options: Options) throws(SystemCallError) {
        guard let family = Self.family(of: host) else {
            throw SystemCallError("inet_pton", errno: .invalidArgument, subject: "\(host) is not an IPv4 or IPv6 address")
        }
        let name = "\(options.purpose) listener \(address)"
        let socket = FileDescriptor(owning: try System.socket(family, SOCK_STREAM, flags: SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue, subject: name), name: name)
        let fd = socket.rawValue
        _ = try? System.setSocketOption(fd, SOL_SOCKET, SO_REUSEADDR, 1, name: "SO_REUSEADDR", subject: name)
        var storage = sockaddr_storage()
        let length: socklen_t
        if family == AF_INET {
            var inet = sockaddr_in()
            inet.sin_family = sa_family_t(AF_INET)
            inet.sin_port = port.bigEndian
            inet_pton(AF_INET, host, &inet.sin_addr)
            withUnsafeMutableBytes(of: &storage) { target in withUnsafeBytes(of: inet) { target.copyMemory(from: $0) } }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else {
            _ = try? System.setSocketOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1, name: "IPV6_V6ONLY", subject: name)
            var inet6 = sockaddr_in6()
            inet6.sin6_family = sa_family_t(AF_INET6)
            inet6.sin6_port = port.bigEndian
            inet_pton(AF_INET6, host, &inet6.sin6_addr)
            withUnsafeMutableBytes(of: &storage) { target in withUnsafeBytes(of: inet6) { target.copyMemory(from: $0) } }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
        try withUnsafePointer(to: &storage) { pointer throws(SystemCallError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw throws(SystemCallError) in
                try System.bind(fd, raw, length, subject: address)
            }
        }
        try System.listen(fd, backlog: options.backlog, subject: address)
        var bound = sockaddr_storage()
        var boundLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &bound) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { name in
                _ = try? System.socketName(fd, name, &boundLength, subject: socket.name)
            }
        }
        // The port sits at the same offset in sockaddr_in and sockaddr_in6.
        self.port = withUnsafeBytes(of: bound) { bytes in UInt16(bytes[2]) << 8 | UInt16(bytes[3]) }
        self.socket = socket
        self.host = host
        self.options = options
        spare = Atomic(Self.openSpare())
    }

    deinit {
        let fd = spare.exchange(-1, ordering: .acquiringAndReleasing)
        if fd >= 0 { _ = closeDescriptor(fd) }
    }

    private static func openSpare() -> Int32 {
        (try? systemCall("open", subject: "the listener's spare descriptor") { Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC) }) ?? -1
    }

    /// Out of descriptors (``accept()`` threw EMFILE or ENFILE): accepts the connection that
    /// waits with the spare descriptor's number and closes it at once, so that its client sees
    /// the connection end instead of hanging, and the listener is no longer readable for it.
    /// True if one was dropped. Call it from one thread (the listener's poll loop).
    @discardableResult
    public func dropPending() -> Bool {
        let held = spare.exchange(-1, ordering: .acquiringAndReleasing)
        if held >= 0 { _ = closeDescriptor(held) }
        defer { spare.store(Self.openSpare(), ordering: .releasing) }
        guard let fd = try? System.acceptIfReady(socket.rawValue, nil, nil, subject: socket.name) else { return false }
        _ = closeDescriptor(fd)
        return true
    }

    /// The next waiting connection; nil when none waits, or the one that waited went away
    /// before it was accepted.
    public func accept() throws(SystemCallError) -> Connection? {
        var peer = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let listening = socket.rawValue
        let name = socket.name
        let accepting = withUnsafeMutablePointer(to: &peer) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                Result { () throws(SystemCallError) in try System.acceptIfReady(listening, address, &length, subject: name) }
            }
        }
        let fd: Int32
        switch accepting {
        case .success(let accepted?): fd = accepted
        case .success(nil): return nil
        case .failure(let failure) where failure.errno == .connectionAborted: return nil
        case .failure(let failure): throw failure
        }
        let (peerName, loopback) = Self.describe(peer)
        let client = FileDescriptor(owning: fd, name: "\(options.purpose) client \(peerName)")
        // Glibc's Swift module does not expose the _GNU_SOURCE accept4: flags set after accept.
        _ = try? System.setCloseOnExec(fd, subject: client.name)
        try? client.setNonBlocking()
        _ = try? System.setSocketOption(fd, SOL_SOCKET, SO_SNDBUF, options.sendBuffer, name: "SO_SNDBUF", subject: client.name)
        if options.noDelay {
            _ = try? System.setSocketOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1, name: "TCP_NODELAY", subject: client.name)
        }
        return Connection(socket: client, peer: peerName, loopback: loopback)
    }

    /// `host:port` or `[host]:port`, and whether the host is loopback.
    private static func describe(_ peer: sockaddr_storage) -> (String, Bool) {
        if Int32(peer.ss_family) == AF_INET6 {
            var inet6 = sockaddr_in6()
            withUnsafeMutableBytes(of: &inet6) { target in withUnsafeBytes(of: peer) { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(MemoryLayout<sockaddr_in6>.size))) } }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            inet_ntop(AF_INET6, &inet6.sin6_addr, &text, socklen_t(INET6_ADDRSTRLEN))
            let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return ("[\(host)]:\(UInt16(bigEndian: inet6.sin6_port))", host == "::1" || host.hasPrefix("::ffff:127."))
        }
        var inet = sockaddr_in()
        withUnsafeMutableBytes(of: &inet) { target in withUnsafeBytes(of: peer) { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(MemoryLayout<sockaddr_in>.size))) } }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        inet_ntop(AF_INET, &inet.sin_addr, &text, socklen_t(INET_ADDRSTRLEN))
        let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return ("\(host):\(UInt16(bigEndian: inet.sin_port))", host.hasPrefix("127."))
    }
}
