import Synchronization

/// A value behind a lock that ThreadSanitizer can see: every state shared between threads in
/// Nook, and in its tests, is kept in one of these.
///
/// Why not `Synchronization.Mutex` alone: on Linux it is a priority-inheriting futex, and when
/// two threads contend, the kernel hands the lock from one to the other inside `futex(2)`,
/// which TSan does not intercept. It then sees the second thread's locked accesses as
/// unordered with the first's and reports a race on correctly locked state (CI's TSan pass
/// failed on `NookSurfaceArbiter` for this). So each critical section also ends with a
/// release store on `handOver` and begins with an acquire load of it: a real happens-before
/// edge, made with atomics compiled into our code, which TSan instruments. The `Mutex` still
/// provides the mutual exclusion; the two atomics cost a few nanoseconds.
///
/// A `pthread_mutex_t` would be visible as well, but `NookActivities` imports only the
/// standard library, and one lock type serves every module.
public final class Locked<Value: ~Copyable>: Sendable {
    private let mutex: Mutex<Value>
    private let handOver = Atomic<UInt>(0)

    public init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with the value while holding the lock. Not reentrant: calling `withLock`
    /// on the same lock from inside `body` deadlocks.
    public func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(Failure) -> sending Result in
            _ = handOver.load(ordering: .acquiring)
            defer { handOver.add(1, ordering: .releasing) }
            return try body(&value)
        }
    }
}
