#if canImport(Glibc)
import Glibc
#endif

/// One lock for "a child is being spawned" and "a descriptor is being made that no child may
/// get and cannot be made close-on-exec at once". Swift's Glibc module has no `accept4`, so an
/// accepted connection is marked close-on-exec a moment after `accept`; a child spawned by
/// another thread in that moment (nookd's escalation hooks) would hold the connection open for
/// as long as it runs, and the client would see no end when nookd closes its side. Taking this
/// lock around both the accept-and-mark and the spawn leaves no such moment.
public enum ChildSpawns {
    // Made once and never freed; used only through pthread_mutex_lock and _unlock.
    nonisolated(unsafe) private static let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        return mutex
    }()

    /// Runs `body` while no child is spawned through this lock (and spawns while nothing runs under it).
    public static func exclusively<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
