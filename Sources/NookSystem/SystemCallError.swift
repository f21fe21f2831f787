import Glibc

/// A failed system call: its name, what it was called on, and the errno it set. One message
/// format for every module: `'open' failed for /dev/dri/card0: (13) Permission denied`
/// (swift-nio's `SystemCallError`).
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The C function, as a reader would grep for it: `open`, `ioctl FBIOBLANK`, `mmap`.
    public var call: String
    public var errno: Errno
    /// What the call was made on (a path, a descriptor's purpose), or nil.
    public var subject: String?

    /// - Parameter errno: defaults to the calling thread's `errno`, read at once.
    public init(_ call: String, errno: Errno = .current, subject: String? = nil) {
        self.call = call
        self.errno = errno
        self.subject = subject
    }

    /// `(13) Permission denied`: errno with `strerror(3)`'s text.
    public static func describe(errno code: Errno) -> String { code.description }

    public var description: String {
        "'\(call)' failed" + (subject.map { " for \($0)" } ?? "") + ": " + errno.description
    }
}
