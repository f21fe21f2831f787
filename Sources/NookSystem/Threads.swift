#if canImport(Glibc)
import Glibc
#endif

// Plain threads for work that blocks (poll loops, device reads, fsync) or must run in order.
// nookd uses these instead of Dispatch queues: the first worker thread libdispatch starts on
// Linux arms a once-a-second timer on its manager thread that is never cancelled, and an idle
// nookd must not wake once a second (docs/benchmarks.md, "Idle wake-ups").

/// Runs `body` on a new thread of its own (not the Swift concurrency pool: it may block).
/// `name` (its first 15 bytes, the kernel's limit) is what `/proc/PID/task/*/comm`, `top -H`
/// and gdb show.
public func startThread(named name: String? = nil, _ body: @escaping @Sendable () -> Void) {
    final class Start: @unchecked Sendable {
        let name: String?
        let body: @Sendable () -> Void
        init(_ name: String?, _ body: @escaping @Sendable () -> Void) { (self.name, self.body) = (name, body) }
    }
    var thread = pthread_t()
    let start = Unmanaged.passRetained(Start(name, body)).toOpaque()
    let created = pthread_create(&thread, nil, { raw in
        let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
        if let name = start.name { nameThisThread(name) }
        start.body()
        return nil
    }, start)
    // Out of threads (EAGAIN) is not something a daemon can carry on without.
    precondition(created == 0, "pthread_create(\(name ?? "thread")): \(Errno(rawValue: created))")
    pthread_detach(thread)
}

/// Writes `/proc/thread-self/comm` (`pthread_setname_np` and `prctl` are out of Swift's reach:
/// one needs `_GNU_SOURCE`, the other is variadic). Best effort: a thread without a name works.
private func nameThisThread(_ name: String) {
    guard let file = try? FileDescriptor.open("/proc/thread-self/comm", O_WRONLY) else { return }
    let bytes = Array(name.utf8.prefix(15))
    bytes.withUnsafeBytes { buffer in _ = try? file.writeAll(buffer) }
}

/// A pthread mutex with a condition variable on CLOCK_MONOTONIC: ThreadSanitizer sees both,
/// and a timed wait does not move when the wall clock is set.
public final class ThreadCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex; `wait` and `wait(untilNanoseconds:)` may be called in it.
    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// With the mutex held: releases it until signalled (or spuriously), then takes it again.
    public func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// With the mutex held: as `wait()`, but returns at CLOCK_MONOTONIC `deadline` (nanoseconds)
    /// at the latest.
    public func wait(untilNanoseconds deadline: UInt64) {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        pthread_cond_timedwait(condition, mutex, &time)
    }

    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }

    /// CLOCK_MONOTONIC now, in nanoseconds: the clock of `wait(untilNanoseconds:)`.
    public static var nowNanoseconds: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

/// One thread that runs closures one after another, in the order given: what a serial
/// `DispatchQueue` did for a device's calls, without libdispatch. The thread ends when the
/// worker is released (after the closures already given).
public final class SerialWorker: Sendable {
    private final class Jobs: @unchecked Sendable {
        let condition = ThreadCondition()
        /// Guarded by `condition`.
        var pending: [() -> Void] = []
        var released = false

        func run() {
            while true {
                let batch: [() -> Void] = condition.withLock {
                    while pending.isEmpty && !released { condition.wait() }
                    defer { pending.removeAll(keepingCapacity: true) }
                    return pending
                }
                if batch.isEmpty { return }
                for job in batch { job() }
            }
        }
    }

    private let jobs = Jobs()

    public init(name: String) {
        startThread(named: name) { [jobs] in jobs.run() }
    }

    deinit {
        jobs.condition.withLock {
            jobs.released = true
            jobs.condition.signal()
        }
    }

    /// Runs `work` on the worker's thread, after everything given before; returns at once.
    public func async(_ work: @escaping @Sendable () -> Void) {
        jobs.condition.withLock {
            jobs.pending.append(work)
            jobs.condition.signal()
        }
    }

    /// Runs `work` on the worker's thread, after everything given before, and waits for it.
    /// Never call it from that thread (it would wait for itself).
    public func sync<Result>(_ work: () -> Result) -> Result {
        let answer = SyncAnswer<Result>()
        withoutActuallyEscaping(work) { work in
            // The job holds only the closure's address: the worker keeps its finished jobs a
            // moment longer, and `withoutActuallyEscaping` traps if `work` outlives this call.
            withUnsafePointer(to: work) { pointer in
                let address = UnsafeRawPointer(pointer)
                let job: () -> Void = {
                    let value = address.assumingMemoryBound(to: (() -> Result).self).pointee()
                    answer.condition.withLock {
                        answer.value = value
                        answer.done = true
                        answer.condition.signal()
                    }
                }
                jobs.condition.withLock {
                    jobs.pending.append(job)
                    jobs.condition.signal()
                }
                answer.condition.withLock {
                    while !answer.done { answer.condition.wait() }
                }
            }
        }
        return answer.condition.withLock { answer.value! }
    }
}

/// What `SerialWorker.sync` waits for.
private final class SyncAnswer<Value>: @unchecked Sendable {
    let condition = ThreadCondition()
    /// Guarded by `condition`.
    var value: Value?
    var done = false
}
