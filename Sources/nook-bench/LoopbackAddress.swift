#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 socket address (`host` dotted, `port` 0 for any) handed to `body` as the
/// `sockaddr` pointer and length that bind and connect take.
func withIPv4Address<Result>(_ host: String, port: Int = 0, _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result) rethrows -> Result {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr(host)
    return try withUnsafePointer(to: &address) { pointer in
        try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
}
