
/// Quiet hours (Z1): whether the board is quiet now (its schedule, or a person's `quiet
/// on|off|until`), and what that means for an activity of a given priority. The surface arbiter
/// consults ``admits(_:)`` on every claim (``NookSurfaceArbiter/setGate(_:)``), so an activity
/// below the minimum waits in its queue; the daemon ends the priorities configured to be
/// suppressed instead. The activity already on the glass is never touched.
public final class NookQuietHours: Sendable {
    public struct Policy: Hashable, Sendable {
        /// Activities at or above this take the glass while quiet.
        public var minimum: NookActivityPriority
        /// Priorities below the minimum that end (`suppressed`) instead of waiting.
        public var suppressed: Set<NookActivityPriority>

        public init(minimum: NookActivityPriority = .high, suppressed: Set<NookActivityPriority> = []) {
            (self.minimum, self.suppressed) = (minimum, suppressed)
        }
    }

    /// What a person asked for, over the schedule.
    public enum Override: Hashable, Sendable {
        /// Quiet until `off`.
        case on
        /// Quiet until this time, then the schedule again.
        case until(NookLocalTime)
        /// Not quiet until this time (the end of the scheduled period it was said in).
        case offUntil(NookLocalTime)
    }

    public enum Source: String, CaseIterable, Hashable, Sendable {
        case schedule, manual
    }

    public struct Status: Hashable, Sendable {
        public var quiet: Bool
        /// Why: the schedule or a person (nil when not quiet and nothing overrides).
        public var source: Source?
        /// When this state ends by itself, if it does (nil: quiet until `off`, or no schedule).
        public var until: NookLocalTime?
        public var minimum: NookActivityPriority

        public init(quiet: Bool, source: Source?, until: NookLocalTime?, minimum: NookActivityPriority) {
            (self.quiet, self.source, self.until, self.minimum) = (quiet, source, until, minimum)
        }
    }

    private struct State {
        var schedule: NookQuietSchedule
        var policy: Policy
        var override: Override?
    }

    private let state: Locked<State>
    private let localTime: @Sendable () -> NookLocalTime

    public init(schedule: NookQuietSchedule = NookQuietSchedule(), policy: Policy = Policy(), localTime: @escaping @Sendable () -> NookLocalTime) {
        state = Locked(State(schedule: schedule, policy: policy))
        self.localTime = localTime
    }

    /// A config reload: the new schedule and policy; a person's override stays.
    public func configure(schedule: NookQuietSchedule, policy: Policy) {
        state.withLock { $0.schedule = schedule; $0.policy = policy }
    }

    public var policy: Policy { state.withLock { $0.policy } }

    /// `quiet on` (`.on`), `quiet until` (`.until`), or back to the schedule (nil).
    public func set(_ override: Override?) {
        state.withLock { $0.override = override }
    }

    /// `quiet off`: not quiet now, even inside a scheduled period (until that period ends).
    public func turnOff() {
        let now = localTime()
        state.withLock { state in
            state.override = state.schedule.period(containing: now).map { .offUntil($0.end) }
        }
    }

    public func status() -> Status {
        let now = localTime()
        return state.withLock { state in
            let scheduled = state.schedule.period(containing: now)
            switch state.override {
            case .on?:
                return Status(quiet: true, source: .manual, until: nil, minimum: state.policy.minimum)
            case .until(let end)? where now < end:
                return Status(quiet: true, source: .manual, until: end, minimum: state.policy.minimum)
            case .offUntil(let end)? where now < end:
                return Status(quiet: false, source: .manual, until: end, minimum: state.policy.minimum)
            default:
                state.override = nil  // an override that has run out
                if let scheduled {
                    return Status(quiet: true, source: .schedule, until: scheduled.end, minimum: state.policy.minimum)
                }
                return Status(quiet: false, source: nil, until: state.schedule.nextStart(after: now), minimum: state.policy.minimum)
            }
        }
    }

    public var isQuiet: Bool { status().quiet }

    /// Whether an activity of `priority` may take the glass now.
    public func admits(_ priority: NookActivityPriority) -> Bool {
        let status = status()
        return !status.quiet || priority >= status.minimum
    }

    /// Whether an activity of `priority` is to end as `suppressed` now rather than wait.
    public func suppresses(_ priority: NookActivityPriority) -> Bool {
        // Asked for every enqueue: a priority nobody suppresses costs no reading of the clock.
        guard state.withLock({ $0.policy.suppressed.contains(priority) }) else { return false }
        return !admits(priority)
    }
}
