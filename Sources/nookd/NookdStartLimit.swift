import NookSystem

/// The open-file limit nookd needs before it starts anything. Below it nookd would fail part
/// way, at whichever call ran out first, and on the platform's executors libdispatch stops the
/// process itself (SIGILL) when it cannot get a descriptor of its own: checked first, the
/// answer is one clear error and exit status 1 with either executors and any compiler.
enum NookdStartLimit {
    /// What nookd opens to start on the mock display (the socket, the signal relay, wake pipes,
    /// fonts) with libdispatch's own: 14 was measured as enough, and a panel adds its device,
    /// inputs and GPIO lines; twice that leaves room.
    static let descriptorsToStart = 32

    /// The error to print, or nil when the limit (raised toward the need where the hard limit
    /// allows) is enough.
    static func problem() -> String? {
        let limits: (soft: UInt64?, hard: UInt64?)
        do throws(SystemCallError) {
            limits = try DescriptorLimit.raised(toAtLeast: descriptorsToStart)
        } catch {
            return "nookd: error: cannot read the open-file limit: \(error)\n"
        }
        guard let soft = limits.soft, soft < UInt64(descriptorsToStart) else { return nil }
        let hard = limits.hard.map { "\($0)" } ?? "unlimited"
        return "nookd: error: the open-file limit (RLIMIT_NOFILE) is \(soft), hard \(hard), and nookd needs at least "
            + "\(descriptorsToStart) descriptors to start: raise LimitNOFILE= in its unit (or ulimit -n)\n"
    }
}
