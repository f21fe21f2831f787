import Synchronization

/// Where fresh activity ids get their randomness.
///
/// By default each id costs two 8-byte draws from `SystemRandomNumberGenerator`, which on Linux
/// is a `getrandom(2)` call each: nothing is kept, which suits a client making one id. nookd
/// makes an id for every enqueue that brings none, where a system call per id shows under a
/// flood of enqueues; it installs a bulk source (`NookSystem.SystemRandom.fill`, one call per
/// 4 KiB), and ids are then handed out of a ``RandomWordPool`` under a lock. The bytes come from
/// the kernel's generator either way; only how many are fetched per call changes.
///
/// The pool is memory of the process: a child made by `fork()` without `exec` would hand out
/// the parent's next ids (nookd starts hooks with `posix_spawn`, which execs at once). The fill
/// runs under the pool's lock, so it must not make ids itself.
public enum IDRandomness {
    private static let pool = Locked<RandomWordPool?>(nil)
    /// Whether a fill is installed, read without taking `pool`'s lock: a process that installed
    /// none (a client, the test process) draws from the system with no lock at all. Many
    /// threads making ids under one lock (a priority-inheriting futex, which hands the lock to a
    /// waiter rather than letting a running thread take it) queue every other id-making thread
    /// of the process behind them.
    private static let installed = Atomic<Bool>(false)

    /// From now on, ids draw from a pool refilled by `fill`. Words already drawn are dropped, so
    /// none is handed out twice across the change.
    public static func install(fill: @escaping RandomWordPool.Fill) {
        pool.withLock { $0 = RandomWordPool(fill: fill) }
        installed.store(true, ordering: .releasing)
    }

    /// Back to drawing straight from the system (a test that installed a fill, when it is done).
    static func uninstall() {
        installed.store(false, ordering: .releasing)
        pool.withLock { $0 = nil }
    }

    /// An id's two random words: from the pool if a fill is installed, under one taking of its
    /// lock; else straight from the system.
    static func nextPair() -> (UInt64, UInt64) {
        guard installed.load(ordering: .acquiring) else { return systemPair() }
        return pool.withLock { pool -> (UInt64, UInt64) in
            guard pool != nil else { return systemPair() }
            let first = pool!.next()
            return (first, pool!.next())
        }
    }

    private static func systemPair() -> (UInt64, UInt64) {
        var system = SystemRandomNumberGenerator()
        let first = system.next()
        return (first, system.next())
    }
}

/// Random words fetched `capacity` at a time from a bulk source and handed out one by one; a
/// word handed out is zeroed in the pool, so it is not left in memory after use.
public struct RandomWordPool: RandomNumberGenerator {
    /// Fills the buffer with random bytes from the system, entirely.
    public typealias Fill = @Sendable (UnsafeMutableRawBufferPointer) -> Void

    private let fill: Fill
    private var words: [UInt64]
    /// The next unused word; `words.count` when the pool is spent.
    private var index: Int

    /// 512 words (4 KiB): 256 ids a refill.
    public init(capacity: Int = 512, fill: @escaping Fill) {
        precondition(capacity > 0, "a pool holds at least one word")
        (self.fill, words, index) = (fill, Array(repeating: 0, count: capacity), capacity)
    }

    public mutating func next() -> UInt64 {
        if index == words.count {
            words.withUnsafeMutableBytes { fill($0) }
            index = 0
        }
        let word = words[index]
        words[index] = 0
        index += 1
        return word
    }
}
