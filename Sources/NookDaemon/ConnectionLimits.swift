/// How nookd shares its connection slots and its memory for slow clients (C1, C4): one user
/// cannot hold every slot, a client that stalls part-way through a line or sits idle gives its
/// slot back, and what waits for clients that do not read is bounded in total.
public struct ConnectionLimits: Hashable, Sendable {
    /// `daemon.partial_line_timeout`: a client that sent part of a line and nothing more for this
    /// long is closed (a person typing into socat takes seconds, not minutes).
    public var partialLineTimeout: Duration = .seconds(10)
    /// `daemon.idle_timeout`: a client with nothing in flight (a running watch, inputs or
    /// enqueue-with-wait stream is in flight) and no half line is closed after this long.
    public var idleTimeout: Duration = .seconds(300)
    /// `daemon.unread_timeout`: a client whose requests nookd holds back for answers it does not
    /// read, and whose socket has taken none of them for this long, is dropped. A client that
    /// reads takes bytes within moments; one stopped or hung does not.
    public var unreadTimeout: Duration = .seconds(30)
    /// `daemon.max_connections_per_user`: connections one uid may hold (root, nookd's own user
    /// and `daemon.admin_group` are not counted against it); nil: a quarter of the slots.
    public var perUser: Int?
    /// `daemon.max_buffered_bytes`: answers and events waiting for all clients together.
    public var bufferedBytes = OutboundBudget.defaultLimit

    public init() {}

    static let timeoutRange = 1...86_400
    static let bufferedRange = (64 << 10)...(1 << 30)

    /// Slots only root, nookd's user and the admin group may take, so that a crowd of ordinary
    /// clients never locks them out.
    static func reserved(of maximum: Int) -> Int { maximum >= 4 ? max(1, maximum / 16) : 0 }

    func perUser(of maximum: Int) -> Int { perUser ?? max(1, maximum / 4) }

    /// Whether a newcomer gets a slot: nil if so, else why not.
    func refusal(open: Int, ofUser: Int, maximum: Int, privileged: Bool, uid: UInt32) -> String? {
        if open >= maximum {
            return "nookd already serves \(maximum) connections, the most daemon.max_connections allows; try again later"
        }
        guard !privileged else { return nil }
        let reserved = Self.reserved(of: maximum)
        if open >= maximum - reserved {
            return "nookd serves \(open) connections; the last \(reserved) of daemon.max_connections (\(maximum)) are kept for root and daemon.admin_group; try again later"
        }
        let share = perUser(of: maximum)
        if ofUser >= share {
            return "uid \(uid) already has \(ofUser) connections open, the most daemon.max_connections_per_user (\(share)) allows; close some first"
        }
        return nil
    }

    /// What becomes of a connection at `now`.
    enum Verdict: Equatable {
        /// Kept; looked at again by `until` (nil: only when something happens).
        case keep(until: Duration?)
        case partialLine
        case idle
        /// nookd holds its requests back for answers it reads none of (``ClientConnection/makeRoom()``).
        case unread
    }

    /// The timeouts: `partial` when part of a line waits for its end; `answering` while nookd
    /// owes the client answers or streams it events (a watch is a request in flight until the
    /// connection ends, so watchers and bridges are never idle; nookd's own back-pressure must
    /// not count as the client's stall); `lastHeard` when bytes last came in, and `lastAnswered`
    /// when its last requests were answered. `companion`: the client's process streams on
    /// another connection (a bridge's request connection beside its watch), so it is not idle.
    /// `lineStarted`: when the unfinished line's first byte came in (a half line is timed from
    /// there, not from its latest byte). `unreadSince`: while nookd holds the client's requests
    /// back until it reads its answers, since when it has read none of them: past
    /// `unreadTimeout` of that, it is dropped (a client that reads slowly is not).
    func verdict(partial: Bool, answering: Bool, companion: Bool = false, lastHeard: Duration, lineStarted: Duration? = nil,
                 lastAnswered: Duration, unreadSince: Duration? = nil, now: Duration) -> Verdict {
        if let unreadSince {
            let deadline = unreadSince + unreadTimeout
            return now >= deadline ? .unread : .keep(until: deadline)
        }
        guard !answering else { return .keep(until: nil) }
        let since = max(lastHeard, lastAnswered)
        if partial {
            let deadline = max(lineStarted ?? lastHeard, lastAnswered) + partialLineTimeout
            return now >= deadline ? .partialLine : .keep(until: deadline)
        }
        guard !companion else { return .keep(until: nil) }
        let deadline = since + idleTimeout
        return now >= deadline ? .idle : .keep(until: deadline)
    }
}
