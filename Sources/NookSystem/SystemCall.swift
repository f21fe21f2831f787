import Glibc

// The one wrapper every system call in Nook goes through (swift-nio's `System.swift`): it
// retries EINTR, names the call in the error, and returns EAGAIN as a value where a
// non-blocking call may have nothing to do yet. `close` is the one call it never retries.

/// Runs `body`, a call that returns -1 and sets errno on failure, again while it fails with
/// EINTR (a signal arrived during the call); its result, or the errno of its other failure.
@inlinable
public func systemCallResult<Result: FixedWidthInteger>(_ body: () -> Result) -> Swift.Result<Result, Errno> {
    while true {
        let result = body()
        if result != -1 { return .success(result) }
        let code = Errno.current
        if code != .interrupted { return .failure(code) }
    }
}

/// Calls `body` (retrying EINTR) and returns its result, or throws ``SystemCallError`` naming
/// `call` when it returns -1: the convention of every plain system call. EAGAIN is thrown
/// too: on a blocking descriptor it is a failure (out of a resource), not "nothing yet".
@inlinable
public func systemCall<Result: FixedWidthInteger>(
    _ call: String, subject: String? = nil, _ body: () -> Result
) throws(SystemCallError) -> Result {
    switch systemCallResult(body) {
    case .success(let result): return result
    case .failure(let code): throw SystemCallError(call, errno: code, subject: subject)
    }
}

/// As ``systemCall(_:subject:_:)`` for a call on a non-blocking descriptor: nil when it
/// would have blocked (EAGAIN, EWOULDBLOCK), so that "nothing yet" is not an error.
@inlinable
public func nonBlockingSystemCall<Result: FixedWidthInteger>(
    _ call: String, subject: String? = nil, _ body: () -> Result
) throws(SystemCallError) -> Result? {
    switch systemCallResult(body) {
    case .success(let result): return result
    case .failure(.wouldBlock): return nil
    case .failure(let code): throw SystemCallError(call, errno: code, subject: subject)
    }
}

/// For a call that returns a pointer, or nil with errno set (`opendir`, `realpath`): the
/// pointer, or ``SystemCallError`` naming `call`. EINTR is retried. errno is cleared before
/// each call, so that a stale EINTR left by an earlier call cannot make this loop forever.
@inlinable
public func systemCall<Pointer>(
    _ call: String, subject: String? = nil, returning body: () -> Pointer?
) throws(SystemCallError) -> Pointer {
    while true {
        Glibc.errno = 0
        if let pointer = body() { return pointer }
        let code = Errno.current
        if code != .interrupted { throw SystemCallError(call, errno: code, subject: subject) }
    }
}

/// For a call that returns its error instead of setting errno: 0 or an errno value
/// (`posix_spawn`, the pthread functions), or a negative errno (sd-bus, libdrm's helpers).
/// Returns a non-negative result; throws ``SystemCallError`` naming `call` otherwise.
/// EINTR is retried.
@inlinable
public func errnoReturningCall<Result: FixedWidthInteger & SignedInteger>(
    _ call: String, subject: String? = nil, negative: Bool = false, _ body: () -> Result
) throws(SystemCallError) -> Result {
    while true {
        let result = body()
        if negative ? result >= 0 : result == 0 { return result }
        let code = Errno(rawValue: Int32(truncatingIfNeeded: negative ? -result : result))
        if code != .interrupted { throw SystemCallError(call, errno: code, subject: subject) }
    }
}

/// `close(2)`, called exactly once: never retried, because on Linux the descriptor is gone
/// even when close reports EINTR, and a retry could close another thread's new descriptor.
/// The errno of a failure, for a caller that reports it; EINTR is not one.
@discardableResult
public func closeDescriptor(_ descriptor: Int32, using close: (Int32) -> Int32 = { Glibc.close($0) }) -> Errno? {
    guard close(descriptor) == -1 else { return nil }
    let code = Errno.current
    return code == .interrupted ? nil : code
}
