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
///
/// Why the value is a stored property beside a `Mutex<Void>` locked by hand, and not inside a
/// `Mutex<Value>`'s closure: Swift 6.0 (Debian 13's, the oldest Nook supports) rejects the
/// closure form. Its region checker sees `body` captured by the closure and calls the result
/// "task-isolated", and calls the closure's `inout sending` value used after being sent; and a
/// `~Copyable` Value made its debug build crash in IRGen ("Not a nested archetype"). No Nook
/// value is non-copyable. The class is `@unchecked Sendable` for the one reason `Mutex` is
/// `Sendable`: the value is reached only with the lock held, and goes in and out only as
/// `sending` (disconnected) values, so a non-`Sendable` value is never shared.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex = Mutex(())
    private let handOver = Atomic<UInt>(0)
    // Guarded by `mutex`.
    private var value: Value

    public init(_ value: sending Value) {
        self.value = value
    }

    /// Runs `body` with the value while holding the lock. Not reentrant: calling `withLock`
    /// on the same lock from inside `body` deadlocks.
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        mutex._unsafeLock()
        defer { mutex._unsafeUnlock() }
        _ = handOver.load(ordering: .acquiring)
        defer { handOver.add(1, ordering: .releasing) }
        return try body(&value)
    }
}
