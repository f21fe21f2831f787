import Glibc

/// The one owner of an open file descriptor: closed exactly once, when the last reference
/// goes (swift-system's `FileDescriptor`, as a class so that no copy can close it twice).
///
/// Reads and writes retry `EINTR`; every failure is a ``SystemCallError`` naming the call.
public final class FileDescriptor: Sendable {
    /// The descriptor number, for calls this type does not wrap (ioctl, mmap, poll). Valid
    /// only while this owner lives.
    public let rawValue: Int32
    /// What the descriptor is, for error messages: a path, or a purpose such as `wake pipe`.
    public let name: String

    /// Takes ownership of `rawValue`, which must be an open descriptor nobody else closes.
    public init(owning rawValue: Int32, name: String) {
        self.rawValue = rawValue
        self.name = name
    }

    /// `open(2)` with `O_CLOEXEC` added, retrying `EINTR`.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(SystemCallError) -> FileDescriptor {
        let fd = try systemCall("open", subject: path) { Glibc.open(path, flags | O_CLOEXEC, mode) }
        return FileDescriptor(owning: fd, name: path)
    }

    deinit { closeDescriptor(rawValue) }

    /// `read(2)` into `buffer`, retrying `EINTR`: the byte count, 0 at end of file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        try systemCall("read", subject: name) { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// `read(2)` into `buffer` on a non-blocking descriptor: the byte count, 0 at end of file,
    /// nil when nothing is there yet (EAGAIN).
    public func readIfReady(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int? {
        try nonBlockingSystemCall("read", subject: name) { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// `write(2)` until every byte of `bytes` is written (a write may take fewer).
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            offset += try systemCall("write", subject: name) {
                Glibc.write(rawValue, bytes.baseAddress! + offset, bytes.count - offset)
            }
        }
    }

    /// `fstat(2)`.
    public func status() throws(SystemCallError) -> stat {
        var info = stat()
        _ = try systemCall("fstat", subject: name) { fstat(rawValue, &info) }
        return info
    }

    /// Adds `O_NONBLOCK` through `fcntl(2)`.
    public func setNonBlocking() throws(SystemCallError) {
        let flags = try systemCall("fcntl F_GETFL", subject: name) { fcntl(rawValue, F_GETFL) }
        _ = try systemCall("fcntl F_SETFL", subject: name) { fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) }
    }
}
