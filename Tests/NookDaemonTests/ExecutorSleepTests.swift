#if compiler(>=6.3)
import NookActivities
@testable import nookd
import NookSystem
import NookTestSupport
import NookTestTraits
import Testing

/// A2's one wake a switch, at its cause: on nookd's own executors a cancelled `Task.sleep`
/// keeps its job in the executor's heap until its deadline, and wakes a thread then for
/// nothing. The app rotation's queue waits up to 2 s for the screen's report of each slide in,
/// and the report cancels the wait: an idle nookd woke 2 s after every switch between two apps.
/// nookd's clock sleeps in the executor's queue itself, and a cancelled sleep leaves it.
@Suite("A2 nookd's clock: a cancelled sleep wakes nothing", .ownThreads)
struct ExecutorSleepTests {
    /// The sleepers' tasks run on threads of their own: on the cooperative pool, early in a
    /// whole run, one waited behind every suite's jobs for over 30 s before it began to sleep.
    func sleeping(_ clock: ExecutorClock, until deadline: NookInstant) -> Task<Void, any Error> {
        Task.onOwnThreads { try await clock.sleep(until: deadline) }
    }

    @Test func a2_aCancelledSleepLeavesNoDeadlineToWakeAThread() async throws {
        let queue = JobQueue()
        let clock = ExecutorClock(queue: queue)
        let sleeper = sleeping(clock, until: clock.now + .seconds(3600))
        #expect(try await settles { queue.timersWaiting == 1 }, "the sleep never waited in the queue")
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(queue.timersWaiting == 0, "the cancelled sleep's deadline would still wake a thread in an hour")
    }

    @Test func a2_aSleepCancelledBeforeItWaitsEndsAtOnceAndLeavesNothing() async throws {
        let queue = JobQueue()
        let sleeper = queue.newSleeper()
        queue.cancel(sleeper)
        await #expect(throws: CancellationError.self) {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                queue.sleep(sleeper, atNanoseconds: ThreadCondition.nowNanoseconds + 3_600_000_000_000, continuation)
            }
        }
        #expect(queue.timersWaiting == 0)
    }

    @Test func a2_aSleepThatComesDueEndsWhenItsDeadlineHasPassed() async throws {
        let queue = JobQueue()
        let clock = ExecutorClock(queue: queue)
        startThread(named: "test.executor") { while queue.next() != nil {} }
        defer { queue.stop() }
        let deadline = clock.now + .milliseconds(30)
        let sleeper = sleeping(clock, until: deadline)
        // Bounded: a sleep that never comes due would otherwise hang the test, not fail it.
        #expect(try await settles { queue.timersWaiting == 0 && clock.now >= deadline }, "the sleep did not come due")
        try await sleeper.value
        #expect(clock.now >= deadline)
    }
}
#endif
