#if compiler(>=6.3)
@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

// Why nookd has executors of its own: Swift concurrency's default executors on Linux are
// libdispatch's, and the first worker thread of a libdispatch global queue arms a once-a-second
// timer on the manager thread (`_dispatch_workq_monitor_pools`, created in
// `_dispatch_workq_init_once`) that is never cancelled. An idle nookd then woke once a second
// for nothing. These executors are plain pthreads that sleep in a condition variable
// until a job arrives or the earliest `Task.sleep` is due, so an idle nookd wakes only for its
// own timers (the clock's minute tick). Installed by `Nookd.main` for the nookd executable
// alone (SE-0476, still SPI in Swift 6.3); library tests keep the platform's executors.

/// Jobs to run now and a min-heap of jobs to run at a CLOCK_MONOTONIC deadline, for the
/// threads that take them with `next()`; and in the same heap the sleepers of nookd's clock
/// (`ExecutorClock`), which, unlike a `Task.sleep`'s job, leave the heap when their task is
/// cancelled: a runtime sleep's job stays until its deadline and wakes a thread then for
/// nothing, so every timeout that did not run out (a presenter's report that came, a turn
/// timer set again) woke an idle nookd once more.
final class JobQueue: @unchecked Sendable {
    private enum Due {
        case job(UnownedJob)
        case sleeper(UInt64)
    }

    private struct Timed {
        let deadline: UInt64
        let order: UInt64
        let due: Due
        func precedes(_ other: Timed) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : order < other.order
        }
    }

    private enum Next {
        case run(UnownedJob)
        case resume(CheckedContinuation<Void, any Error>)
        case stop
    }

    private let condition = ThreadCondition()
    // Guarded by `condition`.
    private var ready: [UnownedJob] = []
    private var readyHead = 0
    private var timed: [Timed] = []
    private var timedCount: UInt64 = 0
    private var stopped = false
    /// Sleepers waiting in `timed`, by their number, and the numbers cancelled before they slept.
    private var sleepers: [UInt64: CheckedContinuation<Void, any Error>] = [:]
    private var cancelledEarly: Set<UInt64> = []
    /// Numbers taken whose sleeper has not come to `sleep` yet.
    private var announced: Set<UInt64> = []
    private var sleeperCount: UInt64 = 0
    /// A thread is in the timed wait for `timed`'s earliest deadline.
    private var watching = false

    func push(_ job: UnownedJob) {
        condition.withLock {
            ready.append(job)
            condition.signal()
        }
    }

    func push(_ job: UnownedJob, atNanoseconds deadline: UInt64) {
        condition.withLock { insert(.job(job), at: deadline) }
    }

    /// Jobs and sleepers waiting for a deadline: each will wake a thread when it comes.
    var timersWaiting: Int { condition.withLock { timed.count } }

    /// A number for a sleeper, taken before it sleeps so that a cancellation can name it.
    func newSleeper() -> UInt64 {
        condition.withLock {
            sleeperCount += 1
            announced.insert(sleeperCount)
            return sleeperCount
        }
    }

    /// Resumes `continuation` at `deadline`, or with `CancellationError` once `cancel(_:)` names it.
    func sleep(_ sleeper: UInt64, atNanoseconds deadline: UInt64, _ continuation: CheckedContinuation<Void, any Error>) {
        let cancelled: Bool = condition.withLock {
            announced.remove(sleeper)
            if cancelledEarly.remove(sleeper) != nil { return true }
            sleepers[sleeper] = continuation
            insert(.sleeper(sleeper), at: deadline)
            return false
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
    }

    /// Takes the sleeper out of the heap, so nothing wakes at its deadline, and resumes it.
    func cancel(_ sleeper: UInt64) {
        let continuation: CheckedContinuation<Void, any Error>? = condition.withLock {
            guard let continuation = sleepers.removeValue(forKey: sleeper) else {
                // Not asleep yet: when it comes, it finds itself cancelled (one already woken is left).
                if announced.contains(sleeper) { cancelledEarly.insert(sleeper) }
                return nil
            }
            if let index = timed.firstIndex(where: { if case .sleeper(sleeper) = $0.due { true } else { false } }) {
                let wasFirst = index == 0
                remove(at: index)
                // The watcher waits for the deadline that went: it waits again for the new first.
                if wasFirst { condition.broadcast() }
            }
            return continuation
        }
        continuation?.resume(throwing: CancellationError())
    }

    /// The next runnable job, waiting for one as long as needed; nil once stopped. One idle
    /// thread at a time (the watcher) sleeps until the earliest deadline, the others until a
    /// job comes: a due timer wakes one thread, not all of them. A due sleeper is resumed here
    /// (its task's job comes through `push`).
    func next() -> UnownedJob? {
        while true {
            switch take() {
            case .run(let job): return job
            case .resume(let continuation): continuation.resume()
            case .stop: return nil
            }
        }
    }

    private func take() -> Next {
        condition.withLock {
            defer {
                // A thread leaving with a job while timers wait and none watches hands the watch on.
                if !timed.isEmpty && !watching { condition.signal() }
            }
            while !stopped {
                if let first = timed.first, first.deadline <= ThreadCondition.nowNanoseconds {
                    switch popEarliest() {
                    case .job(let job): return .run(job)
                    case .sleeper(let sleeper):
                        guard let continuation = sleepers.removeValue(forKey: sleeper) else { continue }
                        return .resume(continuation)
                    }
                }
                if readyHead < ready.count {
                    let job = ready[readyHead]
                    readyHead += 1
                    if readyHead == ready.count {
                        ready.removeAll(keepingCapacity: true)
                        readyHead = 0
                    }
                    return .run(job)
                }
                if let first = timed.first, !watching {
                    watching = true
                    condition.wait(untilNanoseconds: first.deadline)
                    watching = false
                } else {
                    condition.wait()
                }
            }
            return .stop
        }
    }

    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }

    private func insert(_ due: Due, at deadline: UInt64) {
        timedCount += 1
        timed.append(Timed(deadline: deadline, order: timedCount, due: due))
        // Only a new earliest deadline changes how long the timer's watcher waits; all wake
        // so that the watcher (which may not be the one `signal` picks) sees it.
        if siftUp(timed.count - 1) == 0 { condition.broadcast() }
    }

    private func popEarliest() -> Due {
        let earliest = timed[0].due
        remove(at: 0)
        return earliest
    }

    private func remove(at index: Int) {
        let last = timed.removeLast()
        guard index < timed.count else { return }
        timed[index] = last
        siftDown(siftUp(index))
    }

    @discardableResult
    private func siftUp(_ start: Int) -> Int {
        var child = start
        while child > 0, timed[child].precedes(timed[(child - 1) / 2]) {
            timed.swapAt(child, (child - 1) / 2)
            child = (child - 1) / 2
        }
        return child
    }

    private func siftDown(_ start: Int) {
        var parent = start
        while true {
            var first = parent
            for child in [2 * parent + 1, 2 * parent + 2] where child < timed.count && timed[child].precedes(timed[first]) {
                first = child
            }
            if first == parent { return }
            timed.swapAt(parent, first)
            parent = first
        }
    }

    /// `instant` of `clock` as a CLOCK_MONOTONIC deadline in nanoseconds. Both standard clocks
    /// (and any clock measured in `Duration`) convert through their distance from now; a
    /// `ContinuousClock` instant drifts from CLOCK_MONOTONIC only by time spent suspended.
    static func deadline<C: Clock>(_ instant: C.Instant, clock: C) -> UInt64 {
        let now = ThreadCondition.nowNanoseconds
        guard let delay = clock.now.duration(to: instant) as? Duration else {
            fatalError("nookd's executor cannot schedule on \(C.self), whose durations are not Duration")
        }
        let nanoseconds = Double(delay.components.seconds) * 1e9 + Double(delay.components.attoseconds) / 1e9
        if nanoseconds <= 0 { return now }
        return nanoseconds < Double(UInt64.max - now) ? now + UInt64(nanoseconds) : .max
    }
}

/// An executor whose jobs, and timed jobs at their deadlines, wait in a `JobQueue`: nookd's pool
/// and its main thread.
protocol JobQueueExecutor: SchedulingExecutor {
    var queue: JobQueue { get }
}

extension JobQueueExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        queue.push(UnownedJob(job))
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        queue.push(UnownedJob(job), atNanoseconds: JobQueue.deadline(instant, clock: clock))
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        enqueue(job, at: clock.now.advanced(by: delay), tolerance: tolerance, clock: clock)
    }
}

/// The global executor of nookd's tasks: a few pthreads sharing one `JobQueue`.
final class ThreadPoolExecutor: TaskExecutor, JobQueueExecutor, @unchecked Sendable {
    let queue = JobQueue()

    init(threads: Int) {
        for index in 0..<threads {
            startThread(named: "nookd.pool\(index)") { [self] in
                let me = asUnownedTaskExecutor()
                while let job = queue.next() { job.runSynchronously(on: me) }
            }
        }
    }
}

/// The main actor's executor: runs on the thread that calls `run()`, nookd's main thread.
final class MainThreadExecutor: MainExecutor, JobQueueExecutor, @unchecked Sendable {
    let queue = JobQueue()
    /// The thread that made it (`Nookd.main`, through `NookdExecutors`), which calls `run()`.
    private let mainThread = pthread_self()

    func run() throws {
        let me = asUnownedSerialExecutor()
        while let job = queue.next() { job.runSynchronously(on: me) }
    }

    func stop() {
        queue.stop()
    }

    var isMainExecutor: Bool { true }

    /// `MainActor.assumeIsolated` off the main thread is a bug: stop there, as the platform's does.
    func checkIsolated() {
        guard pthread_equal(mainThread, pthread_self()) != 0 else {
            fatalError("main actor code ran off nookd's main thread")
        }
    }
}

/// nookd's executors, installed by `Nookd.main` before any task exists.
enum NookdExecutors: ExecutorFactory {
    static let mainExecutor: any MainExecutor = MainThreadExecutor()
    /// As many threads as the cooperative pool would have (one per CPU), at least two; the
    /// blocking work has threads of its own (`startThread`, `SerialWorker`).
    static let defaultExecutor: any TaskExecutor = pool
    static let pool = ThreadPoolExecutor(threads: max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
}
#endif
