#if canImport(Glibc)
import Glibc
#endif

/// How many connections the descriptor limit (RLIMIT_NOFILE) lets a server hold: the soft
/// limit is raised toward the hard one first, as servers do; past what is left, `accept` would
/// fail with EMFILE instead of the newcomer hearing why. nookd's socket and nook-http share it.
public enum DescriptorLimit {
    /// `wanted` connections, or fewer, beside `besides` descriptors the server holds anyway;
    /// `warning` (naming `setting`, the config key that asked) when fewer, or when the limit
    /// could not be read.
    public static func connectionsAllowed(_ wanted: Int, besides: Int, setting: String) -> (allowed: Int, warning: String?) {
        var limit = rlimit()
        do throws(SystemCallError) {
            _ = try systemCall("getrlimit", subject: "RLIMIT_NOFILE") { getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) }
        } catch {
            return (wanted, "\(error)")
        }
        let unlimited = rlim_t.max  // RLIM_INFINITY
        let needed = rlim_t(wanted + besides)
        if limit.rlim_cur != unlimited, limit.rlim_cur < needed, limit.rlim_max == unlimited || limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max == unlimited ? needed : min(needed, limit.rlim_max)
            if (try? systemCall("setrlimit", subject: "RLIMIT_NOFILE") { setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) }) != nil { limit = raised }
        }
        guard limit.rlim_cur != unlimited, limit.rlim_cur < needed else { return (wanted, nil) }
        let allowed = max(1, Int(limit.rlim_cur) - besides)
        return (allowed, "\(setting) = \(wanted) needs \(needed) descriptors but the limit is \(limit.rlim_cur) (RLIMIT_NOFILE, hard \(limit.rlim_max)): "
            + "serving at most \(allowed) connections; raise LimitNOFILE= or lower \(setting)")
    }
}

extension DescriptorLimit {
    /// The soft descriptor limit after raising it toward `needed` (never past the hard limit),
    /// and the hard limit; `nil` for either means unlimited.
    public static func raised(toAtLeast needed: Int) throws(SystemCallError) -> (soft: UInt64?, hard: UInt64?) {
        var limit = rlimit()
        _ = try systemCall("getrlimit", subject: "RLIMIT_NOFILE") { getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) }
        let unlimited = rlim_t.max  // RLIM_INFINITY
        let wanted = rlim_t(needed)
        if limit.rlim_cur != unlimited, limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = limit.rlim_max == unlimited ? wanted : min(wanted, limit.rlim_max)
            if raised.rlim_cur > limit.rlim_cur,
               (try? systemCall("setrlimit", subject: "RLIMIT_NOFILE") { setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) }) != nil {
                limit = raised
            }
        }
        return (limit.rlim_cur == unlimited ? nil : UInt64(limit.rlim_cur), limit.rlim_max == unlimited ? nil : UInt64(limit.rlim_max))
    }
}
