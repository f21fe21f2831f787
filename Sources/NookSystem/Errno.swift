import Glibc

/// An errno value, compared by name rather than by number (swift-system's `Errno`). Any value
/// the kernel reports is representable; the named ones are those Nook's code tells apart.
public struct Errno: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno`, read at once (before another call can change it).
    @inlinable
    public static var current: Errno { Errno(rawValue: Glibc.errno) }

    /// `strerror(3)`'s text: `Permission denied`.
    public var text: String { String(cString: strerror(rawValue)) }

    /// `(13) Permission denied`: the number, then the text, as every Nook error shows errno.
    public var description: String { "(\(rawValue)) \(text)" }

    /// EINTR: a signal arrived during the call; the wrapper retries it.
    public static let interrupted = Errno(rawValue: EINTR)
    /// EAGAIN, which is EWOULDBLOCK on Linux: a non-blocking call found nothing to do yet.
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    public static let permissionDenied = Errno(rawValue: EACCES)
    public static let notPermitted = Errno(rawValue: EPERM)
    public static let resourceBusy = Errno(rawValue: EBUSY)
    public static let noSuchDevice = Errno(rawValue: ENODEV)
    public static let noSuchDeviceOrAddress = Errno(rawValue: ENXIO)
    public static let noSpace = Errno(rawValue: ENOSPC)
    public static let diskQuotaExceeded = Errno(rawValue: EDQUOT)
    public static let ioError = Errno(rawValue: EIO)
    public static let fileExists = Errno(rawValue: EEXIST)
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    public static let isDirectory = Errno(rawValue: EISDIR)
    public static let tooManySymbolicLinkLevels = Errno(rawValue: ELOOP)
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    public static let brokenPipe = Errno(rawValue: EPIPE)
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)
    public static let connectionReset = Errno(rawValue: ECONNRESET)
    public static let connectionAborted = Errno(rawValue: ECONNABORTED)
    public static let protocolError = Errno(rawValue: EPROTO)
    public static let invalidArgument = Errno(rawValue: EINVAL)
    public static let timedOut = Errno(rawValue: ETIMEDOUT)
    public static let inProgress = Errno(rawValue: EINPROGRESS)
    public static let noData = Errno(rawValue: ENODATA)
    public static let notSupported = Errno(rawValue: EOPNOTSUPP)
    public static let notImplemented = Errno(rawValue: ENOSYS)
    public static let noChildProcess = Errno(rawValue: ECHILD)
    public static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    public static let tooManyOpenFilesInSystem = Errno(rawValue: ENFILE)
    public static let noBufferSpace = Errno(rawValue: ENOBUFS)
    public static let noMemory = Errno(rawValue: ENOMEM)
    /// ESTRPIPE: a stream suspended under it (an ALSA PCM after a system suspend).
    public static let streamSuspended = Errno(rawValue: ESTRPIPE)
}
