#if canImport(Glibc)
import Glibc
#endif

/// A DRM failure naming the libdrm or system call and its errno, with advice where a person
/// can act on it (D1).
public struct DRMError: Error, Hashable, Sendable, CustomStringConvertible {
    public var call: String
    public var errno: Int32?
    public var advice: String

    init(_ call: String, errno: Int32? = nil, advice: String = "") {
        self.call = call
        self.errno = errno
        self.advice = advice
    }

    /// For a call that returned `result < 0`: libdrm's mode-setting calls return -1 and set
    /// errno, its dumb-buffer helpers return a negative errno; both are read here.
    static func failed(_ call: String, result: Int32, advice: String = "") -> DRMError {
        DRMError(call, errno: result == -1 ? Glibc.errno : -result, advice: advice)
    }

    public var description: String {
        var text = "'\(call)' failed"
        if let errno { text += ": (\(errno)) \(String(cString: strerror(errno)))" }
        return advice.isEmpty ? text : text + ". " + advice
    }
}
