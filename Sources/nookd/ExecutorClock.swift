#if compiler(>=6.3)
import NookActivities

/// nookd's clock on its own executors: real time as `NookSystemClock` reads it, whose sleeps
/// wait in the pool's `JobQueue` and leave it when their task is cancelled. A `Task.sleep`
/// that is cancelled stays in the executor's heap until its deadline and wakes a thread then
/// for nothing: the app rotation's queue waits up to 2 s for the screen's report of each slide
/// in, the report comes and cancels the wait, and an idle nookd woke again 2 s later (A2: one
/// wake a switch).
struct ExecutorClock: NookClock {
    private let origin: ContinuousClock.Instant
    private let queue: JobQueue

    init(queue: JobQueue) {
        origin = ContinuousClock.now
        self.queue = queue
    }

    var now: NookInstant { NookInstant(sinceOrigin: ContinuousClock.now - origin) }

    func sleep(until deadline: NookInstant) async throws {
        let wake = origin + deadline.sinceOrigin
        guard wake > ContinuousClock.now else { return try Task.checkCancellation() }
        try Task.checkCancellation()
        let nanoseconds = JobQueue.deadline(wake, clock: ContinuousClock())
        let sleeper = queue.newSleeper()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                queue.sleep(sleeper, atNanoseconds: nanoseconds, continuation)
            }
        } onCancel: {
            queue.cancel(sleeper)
        }
    }
}
#endif
