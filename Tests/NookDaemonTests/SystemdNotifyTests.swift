import Foundation
import NookSystem
import NookTestTraits
import Testing

/// N3: under `Type=notify` systemd learns that nookd is ready, and that it is stopping, on
/// the datagram socket named by NOTIFY_SOCKET: a path, or an abstract name written `@name`.
@Suite("N3 readiness reaches systemd's notify socket", .serialized, .ownThreads)
struct SystemdNotifyTests {
    // Made outside the attribute: Swift 6.0's type checker crashes on an interpolation there.
    static let socketNames = ["@nook-notify-\(getpid())", "/tmp/nook-notify-\(getpid()).sock"]

    @Test(arguments: socketNames)
    func n3_readyAndStoppingAreSentToTheNotifySocket(name: String) throws {
        if !name.hasPrefix("@") { unlink(name) }
        defer { if !name.hasPrefix("@") { unlink(name) } }
        let listener = try FileDescriptor.unixSocket(SOCK_DGRAM, name: name)
        let address = try #require(UnixSocketAddress(path: name))
        #expect(address.withSocketAddress { bind(listener.rawValue, $0, $1) } == 0, "bind \(name): \(errno)")
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(listener.rawValue, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        let daemon = try DaemonProcess(launcher: ["/usr/bin/env", "NOTIFY_SOCKET=\(name)"])
        func receive() -> String {
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = recv(listener.rawValue, &buffer, buffer.count, 0)
            return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : "(nothing: errno \(errno))"
        }
        #expect(receive().hasPrefix("READY=1\nSTATUS=serving on \(daemon.socket)"))
        #expect(daemon.stop().status == 0)
        #expect(receive() == "STOPPING=1")
    }
}
