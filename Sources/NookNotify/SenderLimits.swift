/// Keeps one sender from flooding the glass (SPEC E1 bad input): each bus connection gets a
/// bucket of `burst` notifications refilled at `perSecond`, and may have at most
/// `liveLimit` notifications live at once. Time is a value passed in (seconds on any
/// monotonic clock), so tests need no sleeping.
public struct SenderLimits: Sendable {
    public var burst: Double
    public var perSecond: Double
    public var liveLimit: Int
    private var buckets: [String: (tokens: Double, at: Double)] = [:]

    public init(burst: Double = 60, perSecond: Double = 20, liveLimit: Int = 64) {
        (self.burst, self.perSecond, self.liveLimit) = (burst, perSecond, liveLimit)
    }

    /// Takes one token for `sender` at `now`; nil if allowed, else why not.
    public mutating func admit(_ sender: String, now: Double, live: Int) -> String? {
        if live >= liveLimit {
            return "\(sender) already has \(live) notifications waiting or on screen (at most \(liveLimit))"
        }
        var bucket = buckets[sender] ?? (burst, now)
        bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.at) * perSecond)
        bucket.at = now
        guard bucket.tokens >= 1 else {
            buckets[sender] = bucket
            return "\(sender) sends more than \(Int(perSecond)) notifications a second"
        }
        bucket.tokens -= 1
        buckets[sender] = bucket
        forgetIdle(now: now)
        return nil
    }

    /// Buckets that have refilled are the same as none: dropping them keeps memory bounded
    /// however many short-lived senders (one per `notify-send`) come and go.
    private mutating func forgetIdle(now: Double) {
        guard buckets.count > 256 else { return }
        let refill = burst / perSecond
        buckets = buckets.filter { now - $0.value.at < refill }
    }

    public var trackedSenders: Int { buckets.count }
}
