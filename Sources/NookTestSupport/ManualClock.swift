import NookActivities
import Synchronization

/// A clock that moves only when a test says so (Q18): no test sleeps on wall time.
///
/// `advance(by:)` moves time forward and resumes every sleeper whose deadline has passed,
/// earliest first. `waitForSleepers(atLeast:)` lets a test wait until the code under test has
/// gone to sleep, so it advances only once the sleeper is there to wake.
public final class ManualClock: NookClock {
    private struct Sleeper {
        var deadline: NookInstant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = NookInstant.origin
        var nextID: UInt64 = 0
        var sleepers: [UInt64: Sleeper] = [:]
        var cancelledBeforeRegistering: Set<UInt64> = []
        var sleeperWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    public init() {}

    public var now: NookInstant { state.withLock { $0.now } }

    /// How many tasks are asleep on this clock right now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// When the tasks asleep on this clock now will wake, earliest first.
    public var deadlines: [NookInstant] { state.withLock { $0.sleepers.values.map(\.deadline).sorted() } }

    public func sleep(until deadline: NookInstant) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case sleep, wakeNow, cancelled }
                let (outcome, watchers) = state.withLock { state -> (Outcome, [CheckedContinuation<Void, Never>]) in
                    if state.cancelledBeforeRegistering.remove(id) != nil { return (.cancelled, []) }
                    if deadline <= state.now { return (.wakeNow, []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (.sleep, Self.takeSatisfiedWatchers(&state))
                }
                switch outcome {
                case .sleep: for watcher in watchers { watcher.resume() }
                case .wakeNow: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledBeforeRegistering.insert(id)
                    return nil as Sleeper?
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration`, waking due sleepers in deadline order.
    public func advance(by duration: Duration) {
        advance(to: now + duration)
    }

    /// Moves time forward to `instant` (never backwards), waking due sleepers in deadline order.
    public func advance(to instant: NookInstant) {
        let due = state.withLock { state -> [Sleeper] in
            if instant > state.now { state.now = instant }
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` tasks are asleep on this clock.
    public func waitForSleepers(atLeast count: Int = 1) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.sleepers.count >= count { return true }
                state.sleeperWatchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func takeSatisfiedWatchers(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = state.sleepers.count
        let ready = state.sleeperWatchers.filter { $0.count <= count }.map(\.continuation)
        state.sleeperWatchers.removeAll { $0.count <= count }
        return ready
    }
}

/// A clock on which every sleep returns at once and moves time to its deadline: runs a
/// queue's whole timeline as fast as the CPU allows (benchmarks, long bursts in tests).
public final class InstantClock: NookClock {
    private let current = Locked(NookInstant.origin)

    public init() {}

    public var now: NookInstant { current.withLock { $0 } }

    public func sleep(until deadline: NookInstant) async throws {
        try Task.checkCancellation()
        current.withLock { if deadline > $0 { $0 = deadline } }
    }
}
