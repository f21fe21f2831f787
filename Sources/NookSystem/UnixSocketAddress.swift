import Glibc

/// A `sockaddr_un` for a path (or, written with a leading `@`, an abstract name), checked
/// against the 107 bytes `sun_path` holds.
public struct UnixSocketAddress: Sendable {
    public let path: String
    private let storage: sockaddr_un
    private let length: socklen_t

    /// The most bytes a path may have (`sun_path` less its terminating NUL).
    public static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Nil when `path` is empty or longer than ``maximumPathLength``.
    public init?(path: String) {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maximumPathLength else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let isAbstract = bytes[0] == UInt8(ascii: "@")
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
            // An abstract socket (systemd's NOTIFY_SOCKET may be one) is addressed with a NUL.
            if isAbstract { buffer[0] = 0 }
        }
        self.path = path
        storage = address
        // An abstract name's length is exact (its bytes may include NULs); a path's is the
        // whole structure, as bind(2) and connect(2) accept.
        length = isAbstract
            ? socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path)! + bytes.count)
            : socklen_t(MemoryLayout<sockaddr_un>.size)
    }

    /// Calls `body` with the address as the `sockaddr` pointer and length that `bind(2)`,
    /// `connect(2)` and `sendto(2)` take.
    public func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}

extension FileDescriptor {
    /// A new Unix socket (`socket(AF_UNIX, type | SOCK_CLOEXEC, 0)`).
    public static func unixSocket(_ type: __socket_type, nonBlocking: Bool = false, name: String) throws(SystemCallError) -> FileDescriptor {
        var flags = Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { flags |= Int32(SOCK_NONBLOCK.rawValue) }
        let fd = try systemCall("socket", subject: name) { socket(AF_UNIX, flags, 0) }
        return FileDescriptor(owning: fd, name: name)
    }

    /// `connect(2)` to `address`, retrying `EINTR`.
    public func connect(to address: UnixSocketAddress) throws(SystemCallError) {
        _ = try systemCall("connect", subject: address.path) {
            address.withSocketAddress { Glibc.connect(rawValue, $0, $1) }
        }
    }
}
