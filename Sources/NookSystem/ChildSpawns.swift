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

extension ChildSpawns {
    /// Starts `arguments[0]` (searched in `PATH` when `searchingPath`) with `environment`
    /// (nil: this process's), an empty signal mask and every signal at its default action,
    /// under ``exclusively(_:)``. Without that, `posix_spawn` passes on the spawning thread's
    /// mask (threads of the Swift runtime and of libdispatch block SIGTERM, SIGINT, SIGHUP and
    /// more) and the signals this process ignores (SIGPIPE): a child with SIGTERM blocked
    /// cannot be stopped politely, and `exec` keeps the mask for its whole life.
    /// `fileActions` are applied in the child as `posix_spawn` does.
    public static func spawn(_ arguments: [String], environment: [String]? = nil, searchingPath: Bool = false,
                             fileActions: UnsafePointer<posix_spawn_file_actions_t>? = nil) -> Result<pid_t, SystemCallError> {
        precondition(!arguments.isEmpty, "a child needs a program")
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        // Every signal that can be caught or ignored back to its default; a caught one is reset
        // by exec anyway, an ignored one would not be.
        var all = sigset_t()
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup($0) } + [nil] }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }
        var pid: pid_t = 0
        let call = searchingPath ? "posix_spawnp" : "posix_spawn"
        let spawn = { () -> Int32 in exclusively { () -> Int32 in
            func start(_ environment: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
                searchingPath
                    ? posix_spawnp(&pid, arguments[0], fileActions, &attributes, argv, environment)
                    : posix_spawn(&pid, arguments[0], fileActions, &attributes, argv, environment)
            }
            guard let envp else { return start(environ) }
            return envp.withUnsafeBufferPointer { start($0.baseAddress!) }
        } }
        do { _ = try errnoReturningCall(call, subject: arguments[0], spawn) } catch { return .failure(error) }
        return .success(pid)
    }
}
