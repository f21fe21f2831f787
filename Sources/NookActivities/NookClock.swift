/// A point in time on a ``NookClock``: a duration since that clock's own origin.
public struct NookInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var sinceOrigin: Duration

    public init(sinceOrigin: Duration) { self.sinceOrigin = sinceOrigin }

    public static let origin = NookInstant(sinceOrigin: .zero)

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.sinceOrigin < rhs.sinceOrigin }
    public static func + (lhs: Self, rhs: Duration) -> Self { Self(sinceOrigin: lhs.sinceOrigin + rhs) }
    public static func - (lhs: Self, rhs: Duration) -> Self { Self(sinceOrigin: lhs.sinceOrigin - rhs) }
    public static func - (lhs: Self, rhs: Self) -> Duration { lhs.sinceOrigin - rhs.sinceOrigin }

    public var description: String { "t+\(sinceOrigin.nookSeconds)s" }
}

/// The one source of time for the queue and the arbiter (Q18).
///
/// Injected so tests run on a manual clock without sleeping. A concrete protocol rather than
/// the standard `Clock` because an existential `any Clock` cannot name its `Instant`.
public protocol NookClock: Sendable {
    var now: NookInstant { get }
    /// Returns at or after `deadline`; throws `CancellationError` if the task is cancelled first.
    func sleep(until deadline: NookInstant) async throws
}

/// Real time from the standard library's `ContinuousClock` (monotonic, includes suspend).
public struct NookSystemClock: NookClock {
    private let origin: ContinuousClock.Instant

    public init() { origin = ContinuousClock.now }

    public var now: NookInstant { NookInstant(sinceOrigin: ContinuousClock.now - origin) }

    public func sleep(until deadline: NookInstant) async throws {
        let wake = origin + deadline.sinceOrigin
        // A deadline already past (a present with no vblank to wait for) must not cost a trip
        // through the runtime's timer queue and back onto the pool.
        guard wake > ContinuousClock.now else { return try Task.checkCancellation() }
        try await ContinuousClock().sleep(until: wake, tolerance: nil)
    }
}
