#if canImport(Glibc)
import Glibc
#endif
import NookSystem

/// A DRM failure naming the libdrm or system call and its errno, with advice where a person
/// can act on it (D1).
public struct DRMError: Error, Hashable, Sendable, CustomStringConvertible {
    public var call: String
    public var errno: Errno?
    public var advice: String

    init(_ call: String, errno: Errno? = nil, advice: String = "") {
        self.call = call
        self.errno = errno
        self.advice = advice
    }

    /// For a call that returned `result < 0`: libdrm's mode-setting calls return -1 and set
    /// errno, its dumb-buffer helpers return a negative errno; both are read here.
    static func failed(_ call: String, result: Int32, advice: String = "") -> DRMError {
        DRMError(call, errno: result == -1 ? .current : Errno(rawValue: -result), advice: advice)
    }

    /// A failed system call made while setting up the display.
    init(_ failure: SystemCallError, advice: String = "") {
        self.init(failure.call + (failure.subject.map { " \($0)" } ?? ""), errno: failure.errno, advice: advice)
    }

    public var description: String {
        let text = errno.map { SystemCallError(call, errno: $0).description } ?? "'\(call)' failed"
        return advice.isEmpty ? text : text + ". " + advice
    }
}
