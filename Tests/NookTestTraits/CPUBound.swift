import Foundation
#if compiler(>=6.1)
import Testing
#else
// Swift 6.0's Swift Testing has the scoping trait as an experimental interface of another name.
@_spi(Experimental) import Testing
#endif

/// Runs each test of a suite on a thread of its own, one job after another, instead of on Swift
/// Testing's cooperative pool: for tests that compute for seconds without waiting on anything
/// (golden comparisons, a burst of 100,000 enqueues, a scan of every source file).
///
/// The pool has one thread per core, two on the CI machine. Swift Testing before 6.3 starts
/// every test at once, so a computing test held a pool thread while the jobs of hundreds of
/// others queued behind it, among them the tasks nookd's own code starts (a socket server's
/// settle, a journal's stop), which then did not start within a test's 20–60 s bound. On a
/// thread of the test's own the kernel shares the cores between it and the pool instead.
///
/// The jobs run in turn: a test of this kind must not block its thread waiting for a child
/// task (blocking tests take ``OwnThreads``, a thread per job).
public struct CPUBound: SuiteTrait, TestTrait {
    public var isRecursive: Bool { true }
}

#if compiler(>=6.3)
// Swift Testing from 6.3 starts at most twice the cores' count of tests at once, so the pool
// drains without help; a thread per computing test there only took the cores from the pool's
// two threads (the in-process nookd tests' jobs then waited past their bounds in whole runs).
extension CPUBound: TestScoping {
    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await function()
    }
}
#elseif compiler(>=6.1)
extension CPUBound: TestScoping {
    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(SerialThreadExecutor()) { try await function() }
    }
}
#else
// An SPI protocol: the conformance is SPI too. Swift Testing finds it at run time all the same.
@_spi(Experimental)
extension CPUBound: CustomExecutionTrait {
    public func execute(_ function: @escaping @Sendable () async throws -> Void, for test: Test,
                        testCase: Test.Case?) async throws {
        try await withTaskExecutorPreference(SerialThreadExecutor()) { try await function() }
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
