import NookActivities

/// A ``ManualClock`` that counts the sleeps asked of it: how many times a polling loop went
/// round, for tests of what a loop does after a stall.
public final class CountingClock: NookClock {
    public let manual: ManualClock
    private let count = Locked(0)

    public init(_ manual: ManualClock = ManualClock()) { self.manual = manual }

    /// Sleeps asked for so far.
    public var sleeps: Int { count.withLock { $0 } }

    public var now: NookInstant { manual.now }

    public func sleep(until deadline: NookInstant) async throws {
        count.withLock { $0 += 1 }
        try await manual.sleep(until: deadline)
    }
}
