import Foundation
#if compiler(>=6.1)
import Testing
#else
// Swift 6.0's Swift Testing has the scoping trait as an experimental interface of another name.
@_spi(Experimental) import Testing
#endif

/// Runs every test of a suite on threads of its own instead of Swift Testing's cooperative pool.
///
/// End-to-end tests block for seconds at a time (a nookd process to start, a socket to answer,
/// `usleep` between polls). The cooperative pool has one thread per core, two on the CI
/// machine: two blocking tests at once stall every async test in the process, and under
/// AddressSanitizer the queue tests' 20 s watchdogs fired while they waited for a thread.
/// A task executor preference keeps the test's own task (so `#expect` still knows its test)
/// and only moves where its code runs.
public struct OwnThreads: SuiteTrait, TestTrait {
    public var isRecursive: Bool { true }
}

#if compiler(>=6.1)
extension OwnThreads: TestScoping {
    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await function() }
    }
}
#else
// An SPI protocol: the conformance is SPI too. Swift Testing finds it at run time all the same.
@_spi(Experimental)
extension OwnThreads: CustomExecutionTrait {
    public func execute(_ function: @escaping @Sendable () async throws -> Void, for test: Test,
                        testCase: Test.Case?) async throws {
        try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await function() }
    }
}
#endif

extension Trait where Self == OwnThreads {
    /// See ``OwnThreads``.
    public static var ownThreads: Self { OwnThreads() }
}

/// Runs each job of its tasks on a new thread: blocking there holds up nothing else.
final class ThreadPerJobExecutor: TaskExecutor {
    static let shared = ThreadPerJobExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread { job.runSynchronously(on: executor) }.start()
    }
}

extension Task where Success == Void, Failure == Never {
    /// An unstructured task whose jobs each run on a thread of their own, as ``OwnThreads``'
    /// tests do: a `Task {}` inherits no executor preference and queues on the cooperative pool,
    /// where it would hold a thread if `body` blocked, and where it waits behind every other
    /// test's jobs before it starts.
    @discardableResult
    public static func onOwnThreads(_ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task(executorPreference: ThreadPerJobExecutor.shared) { await body() }
    }
}

extension Task where Success == Void, Failure == any Error {
    /// ``Task/onOwnThreads(_:)`` for a body that throws (an in-process nookd's `run`).
    @discardableResult
    public static func onOwnThreads(_ body: @escaping @Sendable () async throws -> Void) -> Task<Void, any Error> {
        Task(executorPreference: ThreadPerJobExecutor.shared) { try await body() }
    }
}
