import Glibc
import NookSystem
import Testing

/// NookSystem's one TCP listener (nook-http's and nook-lcdproc's): the port the kernel chose,
/// each peer's address and whether it is loopback (H4: what a non-loopback client may do is
/// decided from it), the options set on each connection, and errors naming the call.
@Suite struct TCPListenerTests {
    static let options = TCPListener.Options(purpose: "test", backlog: 8, sendBuffer: 65536, noDelay: true)

    /// A blocking client connected to `host`:`port`.
    static func connect(_ host: String, port: UInt16) throws -> FileDescriptor {
        let family = try #require(TCPListener.family(of: host))
        let socket = FileDescriptor(owning: try System.socket(family, SOCK_STREAM, flags: SOCK_CLOEXEC.rawValue), name: "test client")
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
            var inet6 = sockaddr_in6()
            inet6.sin6_family = sa_family_t(AF_INET6)
            inet6.sin6_port = port.bigEndian
            inet_pton(AF_INET6, host, &inet6.sin6_addr)
            withUnsafeMutableBytes(of: &storage) { target in withUnsafeBytes(of: inet6) { target.copyMemory(from: $0) } }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
        try withUnsafePointer(to: &storage) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in try System.connect(socket.rawValue, raw, length) }
        }
        return socket
    }

    /// Accepts the one connection waiting, polling the listener until it is readable.
    static func acceptOne(_ listener: TCPListener) throws -> TCPListener.Connection {
        var entry = pollfd(fd: listener.socket.rawValue, events: Int16(POLLIN), revents: 0)
        _ = try System.poll(&entry, timeoutMilliseconds: -1)
        return try #require(try listener.accept())
    }

    @Test func h4_theListenerNamesEachPeerAndWhetherItIsLoopback() throws {
        let listener = try TCPListener(host: "127.0.0.1", port: 0, address: "127.0.0.1:0", options: Self.options)
        #expect(listener.port != 0 && listener.host == "127.0.0.1")
        #expect(try listener.accept() == nil, "nothing waits yet: nil, not an error")
        let client = try Self.connect("127.0.0.1", port: listener.port)
        let accepted = try Self.acceptOne(listener)
        #expect(accepted.loopback)
        #expect(accepted.peer.hasPrefix("127.0.0.1:"), "\(accepted.peer)")
        #expect(accepted.socket.name == "test client \(accepted.peer)")
        // Non-blocking and close-on-exec, with TCP_NODELAY as asked.
        let flags = fcntl(accepted.socket.rawValue, F_GETFL)
        #expect(flags & O_NONBLOCK != 0)
        #expect(fcntl(accepted.socket.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        var noDelay: Int32 = 0
        try System.socketOption(accepted.socket.rawValue, Int32(IPPROTO_TCP), TCP_NODELAY, into: &noDelay, name: "TCP_NODELAY")
        #expect(noDelay != 0)
        withExtendedLifetime(client) {}
    }

    @Test func h4_anIPv6ListenerServesIPv6Only() throws {
        guard let listener = try? TCPListener(host: "::1", port: 0, address: "[::1]:0", options: Self.options) else { return }  // no IPv6 here
        let client = try Self.connect("::1", port: listener.port)
        let accepted = try Self.acceptOne(listener)
        #expect(accepted.loopback && accepted.peer.hasPrefix("[::1]:"), "\(accepted.peer)")
        var only: Int32 = 0
        try System.socketOption(listener.socket.rawValue, Int32(IPPROTO_IPV6), IPV6_V6ONLY, into: &only, name: "IPV6_V6ONLY")
        #expect(only != 0)
        withExtendedLifetime(client) {}
    }

    @Test func h4_aBadAddressOrATakenPortIsAnErrorNamingTheCall() throws {
        #expect(throws: SystemCallError("inet_pton", errno: .invalidArgument, subject: "example.org is not an IPv4 or IPv6 address")) {
            try TCPListener(host: "example.org", port: 0, address: "example.org:0", options: Self.options)
        }
        let first = try TCPListener(host: "127.0.0.1", port: 0, address: "127.0.0.1:0", options: Self.options)
        do {
            _ = try TCPListener(host: "127.0.0.1", port: first.port, address: "127.0.0.1:\(first.port)", options: Self.options)
            Issue.record("a second listener on port \(first.port) was made")
        } catch {
            #expect(error.call == "bind" && error.subject == "127.0.0.1:\(first.port)", "\(error)")
            #expect(error.description.hasPrefix("'bind' failed for 127.0.0.1:\(first.port): (98)"), "\(error)")
        }
    }
}
