import NookLogging
import NookSystem

/// How many connections the descriptor limit (RLIMIT_NOFILE) lets nook-http hold
/// (``DescriptorLimit``, as nookd's socket server decides it).
enum HTTPDescriptorLimit {
    /// Listeners, nookd's socket, the wake pipe, the token file and log, with room to spare.
    static let descriptorsBesidesClients = 32

    static func connectionsAllowed(_ wanted: Int, logger: Logger) -> Int {
        let (allowed, warning) = DescriptorLimit.connectionsAllowed(wanted, besides: descriptorsBesidesClients, setting: "http.max_connections")
        if let warning { logger.warning("\(warning)") }
        return allowed
    }
}
