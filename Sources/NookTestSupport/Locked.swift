#if canImport(Glibc)
import Glibc
#endif

/// A value behind a `pthread_mutex_t`, for test code shared between threads. Tests use it
/// instead of `Synchronization.Mutex`, a futex that ThreadSanitizer cannot see on Linux: with it,
/// `swift test --sanitize=thread` would report the test's own, correctly locked, bookkeeping.
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private var mutex = pthread_mutex_t()

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(&mutex, nil)
    }

    deinit { pthread_mutex_destroy(&mutex) }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body(&value)
    }
}
