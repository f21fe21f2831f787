import NookSystem

/// What the socket server does when `accept` fails. The listening socket stays readable while a
/// connection waits in its backlog, so an error that leaves the connection there (out of
/// descriptors or kernel memory) returns again at once for as long as it lasts: asking again
/// on every poll would spin a core and flood the log.
enum AcceptFailure: Equatable {
    /// Nothing (more) to accept.
    case drained
    /// This one connection went away before it was accepted; the next may be fine.
    case connectionLost
    /// Out of descriptors or memory, or an error nookd does not know: stop asking for new
    /// clients until a connection closes or a second passes.
    case starved

    init(errno code: Errno) {
        switch code {
        case .wouldBlock: self = .drained
        // EPERM is not here: a security module refuses before the connection leaves the
        // backlog, so it would come back at once, forever.
        case .connectionAborted, .protocolError: self = .connectionLost
        default: self = .starved
        }
    }
}

/// A warning that can repeat many times a second (refused connections, a starved `accept`)
/// is logged once, then at most once per interval, with how many it stands for.
struct LogThrottle {
    let interval: Duration
    private var last: Duration?
    private var suppressed = 0

    init(interval: Duration) { self.interval = interval }

    /// Whether to log now, and how many occurrences since the last line (this one included).
    mutating func admit(at now: Duration) -> Int? {
        suppressed += 1
        if let last, now - last < interval { return nil }
        defer { (last, suppressed) = (now, 0) }
        return suppressed
    }
}
