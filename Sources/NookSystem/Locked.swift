import Glibc

/// A value behind a `pthread_mutex_t`. Use it where several threads share state and the
/// code must stay checkable by ThreadSanitizer: `Synchronization.Mutex` is a futex on Linux,
/// which TSan cannot see, so it reports every correctly locked access as a race.
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    /// Allocated, not stored inline: a pthread mutex must not move while in use.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock. Not reentrant.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
