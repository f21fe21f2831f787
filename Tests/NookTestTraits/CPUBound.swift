import Foundation
#if compiler(>=6.1)
import Testing
#else
// Swift 6.0's Swift Testing has the scoping trait as an experimental interface of another name.
@_spi(Experimental) import Testing
#endif

/// Runs the tests that compute for seconds without waiting on anything (golden comparisons, a
/// burst of 100,000 enqueues, a scan of every source file) one job after another on one thread
/// that all of them share, instead of on Swift Testing's cooperative pool.
///
/// The pool has one thread per core, two on the CI machine, and its queue is first come, first
/// served: a job that a test's code enqueues (an in-process nookd's socket settle, a rotation's
/// turn, a sleeper's start) waits behind every computing job queued before it. With computing
/// tests on the pool, whole runs starved those jobs for over 30 s (gdb showed both pool threads
/// in render and scan tests while the in-process nookd tests' jobs waited) under Swift 6.3,
/// which starts a few tests at a time, as under 6.0, which starts them all at once. A thread
/// per computing test instead took the cores from the pool's two. One thread for all of them
/// leaves the pool to short jobs and costs the kernel one more runnable thread.
///
/// The jobs run in turn: a test of this kind must not block its thread waiting for a child
/// task or another test (blocking tests take ``OwnThreads``, a thread per job).
public struct CPUBound: SuiteTrait, TestTrait {
    public var isRecursive: Bool { true }
}

#if compiler(>=6.1)
extension CPUBound: TestScoping {
    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(SerialThreadExecutor.computing) { try await function() }
    }
}
#else
// An SPI protocol: the conformance is SPI too. Swift Testing finds it at run time all the same.
@_spi(Experimental)
extension CPUBound: CustomExecutionTrait {
    public func execute(_ function: @escaping @Sendable () async throws -> Void, for test: Test,
                        testCase: Test.Case?) async throws {
        try await withTaskExecutorPreference(SerialThreadExecutor.computing) { try await function() }
    }
}
#endif

extension Trait where Self == CPUBound {
    /// See ``CPUBound``.
    public static var cpuBound: Self { CPUBound() }
}

/// Runs its jobs one after another on a thread it starts when a job comes to an idle executor;
/// the thread ends when none is left, so an executor that is no longer used holds no thread.
final class SerialThreadExecutor: TaskExecutor, @unchecked Sendable {
    /// The one that every ``CPUBound`` test shares.
    static let computing = SerialThreadExecutor()

    // @unchecked: `jobs` and `draining` are read and written only under `lock`.
    private let lock = NSLock()
    private var jobs: [UnownedJob] = []
    private var draining = false

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let start = lock.withLock { () -> Bool in
            jobs.append(job)
            defer { draining = true }
            return !draining
        }
        if start { Thread { self.drain() }.start() }
    }

    private func drain() {
        let executor = asUnownedTaskExecutor()
        while let job = lock.withLock({ () -> UnownedJob? in
            if jobs.isEmpty { draining = false; return nil }
            return jobs.removeFirst()
        }) {
            job.runSynchronously(on: executor)
        }
    }
}
