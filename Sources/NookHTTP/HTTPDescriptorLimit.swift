import Logging
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// How many connections the descriptor limit (RLIMIT_NOFILE) lets nook-http hold, as nookd's
/// socket server decides it: the soft limit is raised toward the hard one first; past what is
/// left, `accept` would fail with EMFILE instead of the newcomer being served.
enum HTTPDescriptorLimit {
    /// Listeners, nookd's socket, the wake pipe, the token file and log, with room to spare.
    static let descriptorsBesidesClients = 32

    static func connectionsAllowed(_ wanted: Int, logger: Logger) -> Int {
        var limit = rlimit()
        do throws(SystemCallError) {
            _ = try systemCall("getrlimit", subject: "RLIMIT_NOFILE") { getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) }
        } catch {
            logger.warning("\(error)")
            return wanted
        }
        let unlimited = rlim_t.max
        let needed = rlim_t(wanted + descriptorsBesidesClients)
        if limit.rlim_cur != unlimited, limit.rlim_cur < needed, limit.rlim_max == unlimited || limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max == unlimited ? needed : min(needed, limit.rlim_max)
            if (try? systemCall("setrlimit", subject: "RLIMIT_NOFILE") { setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) }) != nil { limit = raised }
        }
        guard limit.rlim_cur != unlimited, limit.rlim_cur < needed else { return wanted }
        let allowed = max(1, Int(limit.rlim_cur) - descriptorsBesidesClients)
        logger.warning("http.max_connections = \(wanted) needs \(needed) descriptors but the limit is \(limit.rlim_cur) (RLIMIT_NOFILE, hard \(limit.rlim_max)): serving at most \(allowed) connections; raise LimitNOFILE= or lower http.max_connections")
        return allowed
    }
}
