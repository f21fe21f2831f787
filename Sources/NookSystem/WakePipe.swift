import Glibc

/// A pipe that wakes a thread blocked in `poll(2)`: the thread polls ``readEnd`` with its
/// other descriptors, another thread calls ``wake()``. Both ends are non-blocking and
/// close-on-exec, and are closed with their owner.
public final class WakePipe: Sendable {
    public let readEnd: FileDescriptor
    public let writeEnd: FileDescriptor

    /// `pipe(2)`, then `O_NONBLOCK` and `FD_CLOEXEC` on both ends (Swift's Glibc module does
    /// not expose the `_GNU_SOURCE` `pipe2`).
    public init() throws(SystemCallError) {
        var ends: [Int32] = [-1, -1]
        _ = try systemCall("pipe", subject: "wake pipe") { pipe(&ends) }
        let readEnd = FileDescriptor(owning: ends[0], name: "wake pipe")
        let writeEnd = FileDescriptor(owning: ends[1], name: "wake pipe")
        for end in [readEnd, writeEnd] {
            _ = try systemCall("fcntl F_SETFD", subject: "wake pipe") { fcntl(end.rawValue, F_SETFD, FD_CLOEXEC) }
            try end.setNonBlocking()
        }
        self.readEnd = readEnd
        self.writeEnd = writeEnd
    }

    /// Makes the read end readable. Never blocks: a full pipe already wakes the poller.
    public func wake() {
        var byte: UInt8 = 1
        _ = try? nonBlockingSystemCall("write", subject: "wake pipe") { write(writeEnd.rawValue, &byte, 1) }
    }

    /// Empties the read end after `poll` reported it, so the next poll waits again.
    public func drain() {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while let count = withUnsafeMutableBytes(of: &bytes, { buffer in try? readEnd.readIfReady(into: buffer) }), count > 0 {}
    }

    /// A `pollfd` for the read end, to put first in a poll set.
    public var pollEntry: pollfd { pollfd(fd: readEnd.rawValue, events: Int16(POLLIN), revents: 0) }
}

/// `poll(2)` on `descriptors`, retrying `EINTR`; the number of entries with events.
/// - Parameter timeoutMilliseconds: -1 waits until an event.
public func pollDescriptors(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) throws(SystemCallError) -> Int {
    let count = descriptors.count
    return Int(try systemCall("poll") { poll(&descriptors, nfds_t(count), timeoutMilliseconds) })
}
