import Glibc

/// A failed system call: its name, what it was called on, and the errno it set. One message
/// format for every module: `'open' failed for /dev/dri/card0: (13) Permission denied`
/// (swift-nio's `SystemCallError`).
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The C function, as a reader would grep for it: `open`, `ioctl FBIOBLANK`, `mmap`.
    public var call: String
    public var errno: Int32
    /// What the call was made on (a path, a descriptor's purpose), or nil.
    public var subject: String?

    /// - Parameter errno: defaults to the calling thread's `errno`, read at once.
    public init(_ call: String, errno: Int32 = currentErrno(), subject: String? = nil) {
        self.call = call
        self.errno = errno
        self.subject = subject
    }

    /// `(13) Permission denied`: errno with `strerror(3)`'s text.
    public static func describe(errno code: Int32) -> String {
        "(\(code)) \(String(cString: strerror(code)))"
    }

    public var description: String {
        "'\(call)' failed" + (subject.map { " for \($0)" } ?? "") + ": " + Self.describe(errno: errno)
    }
}

/// The calling thread's `errno`, as a default argument (a parameter named `errno` hides it).
@inlinable
public func currentErrno() -> Int32 { errno }

/// Calls `body` again while it fails with `EINTR` (a signal arrived during the call), and
/// returns its first other result. Not for `close(2)`: on Linux the descriptor is gone even
/// when it reports EINTR, and a retry could close another thread's new descriptor.
@inlinable
public func retryingInterrupts<Result: FixedWidthInteger>(_ body: () -> Result) -> Result {
    while true {
        let result = body()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}

/// Calls `body` (retrying `EINTR`) and returns its result, or throws ``SystemCallError``
/// naming `call` when it returns -1: the convention of every plain system call.
@inlinable
public func systemCall<Result: FixedWidthInteger>(
    _ call: String, subject: String? = nil, _ body: () -> Result
) throws(SystemCallError) -> Result {
    let result = retryingInterrupts(body)
    if result == -1 { throw SystemCallError(call, subject: subject) }
    return result
}
