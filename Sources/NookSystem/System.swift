import Glibc

// One named wrapper per system call the other modules make (swift-nio's `System.swift`):
// callers write `try System.read(fd, buffer, count, subject: name)`, and every failure is a
// ``SystemCallError`` naming the call, what it was made on, and errno. EINTR is retried by
// ``systemCall(_:subject:_:)``; the `…IfReady` variants return nil on EAGAIN, for
// non-blocking descriptors. Only NookSystem calls Glibc's system calls (RawSystemCallTests).

/// Nook's system calls, by name.
public enum System {
    // MARK: Reading and writing

    /// `read(2)`: the byte count, 0 at end of file.
    public static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, subject: String? = nil) throws(SystemCallError) -> Int {
        try systemCall("read", subject: subject) { Glibc.read(fd, buffer, count) }
    }

    /// `read(2)` on a non-blocking descriptor: nil when nothing is there yet.
    public static func readIfReady(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, subject: String? = nil) throws(SystemCallError) -> Int? {
        try nonBlockingSystemCall("read", subject: subject) { Glibc.read(fd, buffer, count) }
    }

    /// `pread(2)` at `offset`: the byte count, 0 at end of file.
    public static func pread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, offset: off_t, subject: String? = nil) throws(SystemCallError) -> Int {
        try systemCall("pread", subject: subject) { Glibc.pread(fd, buffer, count, offset) }
    }

    /// `write(2)`: the count of bytes written, which may be fewer than `count`.
    public static func write(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, subject: String? = nil) throws(SystemCallError) -> Int {
        try systemCall("write", subject: subject) { Glibc.write(fd, bytes, count) }
    }

    /// `write(2)` on a non-blocking descriptor: nil when it would block.
    public static func writeIfReady(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, subject: String? = nil) throws(SystemCallError) -> Int? {
        try nonBlockingSystemCall("write", subject: subject) { Glibc.write(fd, bytes, count) }
    }

    /// `lseek(2)`: the new offset.
    @discardableResult
    public static func seek(_ fd: Int32, to offset: off_t, from whence: Int32 = SEEK_SET, subject: String? = nil) throws(SystemCallError) -> off_t {
        try systemCall("lseek", subject: subject) { Glibc.lseek(fd, offset, whence) }
    }

    /// `ftruncate(2)`.
    public static func truncate(_ fd: Int32, to size: off_t, subject: String? = nil) throws(SystemCallError) {
        _ = try systemCall("ftruncate", subject: subject) { Glibc.ftruncate(fd, size) }
    }

    /// `fsync(2)`, or `fdatasync(2)` when `metadata` is false: the errno of a failure, or nil.
    /// A value rather than a throw: the caller decides what a failed flush means.
    public static func flush(_ fd: Int32, metadata: Bool) -> Errno? {
        switch systemCallResult({ metadata ? Glibc.fsync(fd) : Glibc.fdatasync(fd) }) {
        case .success: nil
        case .failure(let code): code
        }
    }

    /// `futimens(2)`: both times of the open file.
    public static func setTimes(_ fd: Int32, _ times: UnsafePointer<timespec>, subject: String? = nil) throws(SystemCallError) {
        _ = try systemCall("futimens", subject: subject) { Glibc.futimens(fd, times) }
    }

    // MARK: Descriptors

    /// `fcntl(F_SETFD, FD_CLOEXEC)`.
    public static func setCloseOnExec(_ fd: Int32, subject: String? = nil) throws(SystemCallError) {
        _ = try systemCall("fcntl F_SETFD", subject: subject) { Glibc.fcntl(fd, F_SETFD, FD_CLOEXEC) }
    }

    /// `fcntl(F_GETFL)`, then `fcntl(F_SETFL)` with `O_NONBLOCK` added.
    public static func setNonBlocking(_ fd: Int32, subject: String? = nil) throws(SystemCallError) {
        let flags = try systemCall("fcntl F_GETFL", subject: subject) { Glibc.fcntl(fd, F_GETFL) }
        _ = try systemCall("fcntl F_SETFL", subject: subject) { Glibc.fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// `pipe(2)`: the read end, then the write end (neither close-on-exec nor non-blocking).
    public static func pipe(subject: String? = nil) throws(SystemCallError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        _ = try systemCall("pipe", subject: subject) { Glibc.pipe(&ends) }
        return (ends[0], ends[1])
    }

    /// `ioctl(2)` with a pointer argument.
    /// - Parameter name: the request as a reader greps for it: `FBIOBLANK`.
    @discardableResult
    public static func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer, name: String, subject: String? = nil) throws(SystemCallError) -> Int32 {
        try systemCall("ioctl \(name)", subject: subject) { Glibc.ioctl(fd, request, argument) }
    }

    /// `ioctl(2)` with an integer argument.
    @discardableResult
    public static func ioctl(_ fd: Int32, _ request: UInt, value: Int32, name: String, subject: String? = nil) throws(SystemCallError) -> Int32 {
        try systemCall("ioctl \(name)", subject: subject) { Glibc.ioctl(fd, request, value) }
    }

    /// `poll(2)`: the number of entries with events; -1 as timeout waits until one.
    public static func poll(_ entries: inout [pollfd], timeoutMilliseconds: Int32) throws(SystemCallError) -> Int {
        try pollDescriptors(&entries, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// `poll(2)` on one descriptor.
    public static func poll(_ entry: inout pollfd, timeoutMilliseconds: Int32) throws(SystemCallError) -> Int {
        Int(try systemCall("poll") { Glibc.poll(&entry, 1, timeoutMilliseconds) })
    }

    // MARK: Sockets

    /// `socket(2)`: a new socket of `type` (`SOCK_STREAM`), with `flags` (`SOCK_CLOEXEC`) or'ed in.
    public static func socket(_ domain: Int32, _ type: __socket_type, flags: UInt32 = 0, subject: String? = nil) throws(SystemCallError) -> Int32 {
        try systemCall("socket", subject: subject) { Glibc.socket(domain, Int32(bitPattern: type.rawValue | flags), 0) }
    }

    /// `setsockopt(2)` with an integer value.
    /// - Parameter name: the option as a reader greps for it: `SO_SNDBUF`.
    public static func setSocketOption(_ fd: Int32, _ level: Int32, _ option: Int32, _ value: Int32, name: String, subject: String? = nil) throws(SystemCallError) {
        var value = value
        _ = try systemCall("setsockopt \(name)", subject: subject) { Glibc.setsockopt(fd, level, option, &value, socklen_t(MemoryLayout<Int32>.size)) }
    }

    /// `setsockopt(2)` with a value of the option's own type (a `timeval` for `SO_RCVTIMEO`).
    public static func setSocketOption<Value>(_ fd: Int32, _ level: Int32, _ option: Int32, to value: Value, name: String, subject: String? = nil) throws(SystemCallError) {
        var value = value
        try withUnsafeBytes(of: &value) { raw in
            Result { () throws(SystemCallError) in
                _ = try systemCall("setsockopt \(name)", subject: subject) { Glibc.setsockopt(fd, level, option, raw.baseAddress, socklen_t(raw.count)) }
            }
        }.get()
    }

    /// `getsockopt(2)` into `value`, whose size is the option's.
    public static func socketOption<Value>(_ fd: Int32, _ level: Int32, _ option: Int32, into value: inout Value, name: String, subject: String? = nil) throws(SystemCallError) {
        var length = socklen_t(MemoryLayout<Value>.size)
        try withUnsafeMutableBytes(of: &value) { raw in
            Result { () throws(SystemCallError) in
                _ = try systemCall("getsockopt \(name)", subject: subject) { Glibc.getsockopt(fd, level, option, raw.baseAddress, &length) }
            }
        }.get()
    }

    /// `bind(2)`.
    public static func bind(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t, subject: String? = nil) throws(SystemCallError) {
        _ = try systemCall("bind", subject: subject) { Glibc.bind(fd, address, length) }
    }

    /// `listen(2)`.
    public static func listen(_ fd: Int32, backlog: Int32, subject: String? = nil) throws(SystemCallError) {
        _ = try systemCall("listen", subject: subject) { Glibc.listen(fd, backlog) }
    }

    /// `connect(2)`.
    public static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t, subject: String? = nil) throws(SystemCallError) {
        _ = try systemCall("connect", subject: subject) { Glibc.connect(fd, address, length) }
    }

    /// `getsockname(2)`.
    public static func socketName(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t, subject: String? = nil) throws(SystemCallError) {
        _ = try systemCall("getsockname", subject: subject) { Glibc.getsockname(fd, address, &length) }
    }

    /// `accept(2)` on a non-blocking listener: the new descriptor, nil when none waits.
    public static func acceptIfReady(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?, subject: String? = nil) throws(SystemCallError) -> Int32? {
        try nonBlockingSystemCall("accept", subject: subject) { Glibc.accept(fd, address, length) }
    }

    /// `send(2)`: the count of bytes sent. Add `MSG_NOSIGNAL` to `flags` where the peer may be gone.
    public static func send(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, flags: Int32, subject: String? = nil) throws(SystemCallError) -> Int {
        try systemCall("send", subject: subject) { Glibc.send(fd, bytes, count, flags) }
    }

    /// `send(2)` that returns nil when it would block (a non-blocking socket, or `MSG_DONTWAIT`).
    public static func sendIfReady(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, flags: Int32, subject: String? = nil) throws(SystemCallError) -> Int? {
        try nonBlockingSystemCall("send", subject: subject) { Glibc.send(fd, bytes, count, flags) }
    }

    /// `sendto(2)` that returns nil when it would block.
    public static func sendIfReady(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, flags: Int32, to address: UnsafePointer<sockaddr>, _ length: socklen_t, subject: String? = nil) throws(SystemCallError) -> Int? {
        try nonBlockingSystemCall("sendto", subject: subject) { Glibc.sendto(fd, bytes, count, flags, address, length) }
    }

    /// `recv(2)`: the byte count, 0 when the peer closed.
    public static func receive(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, flags: Int32 = 0, subject: String? = nil) throws(SystemCallError) -> Int {
        try systemCall("recv", subject: subject) { Glibc.recv(fd, buffer, count, flags) }
    }

    /// `recv(2)` that returns nil when nothing is there yet.
    public static func receiveIfReady(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, flags: Int32 = 0, subject: String? = nil) throws(SystemCallError) -> Int? {
        try nonBlockingSystemCall("recv", subject: subject) { Glibc.recv(fd, buffer, count, flags) }
    }

    /// `shutdown(2)`: `SHUT_WR`, `SHUT_RDWR`.
    public static func shutdown(_ fd: Int32, _ how: Int, subject: String? = nil) throws(SystemCallError) {
        _ = try systemCall("shutdown", subject: subject) { Glibc.shutdown(fd, Int32(how)) }
    }

    // MARK: Files and directories

    /// `mkdir(2)`.
    public static func makeDirectory(_ path: String, mode: mode_t) throws(SystemCallError) {
        _ = try systemCall("mkdir", subject: path) { Glibc.mkdir(path, mode) }
    }

    /// `mkfifo(3)`: a named pipe at `path` (nook-bench's stand-in for a beeper).
    public static func makeFIFO(_ path: String, mode: mode_t) throws(SystemCallError) {
        _ = try systemCall("mkfifo", subject: path) { Glibc.mkfifo(path, mode) }
    }

    /// `unlink(2)`.
    public static func unlink(_ path: String) throws(SystemCallError) {
        _ = try systemCall("unlink", subject: path) { Glibc.unlink(path) }
    }

    /// `chmod(2)`.
    public static func changeMode(_ path: String, _ mode: mode_t) throws(SystemCallError) {
        _ = try systemCall("chmod", subject: path) { Glibc.chmod(path, mode) }
    }

    /// `fchmod(2)`: the mode of an open file, whatever the umask made it.
    public static func changeMode(_ fd: Int32, _ mode: mode_t, subject: String? = nil) throws(SystemCallError) {
        _ = try systemCall("fchmod", subject: subject) { Glibc.fchmod(fd, mode) }
    }

    /// `chown(2)` of the group only (the owner is left as it is).
    public static func changeGroup(_ path: String, _ group: gid_t) throws(SystemCallError) {
        _ = try systemCall("chown", subject: path) { Glibc.chown(path, uid_t.max, group) }
    }

    /// `realpath(3)`: the absolute path with no symbolic link, `.` or `..` left.
    public static func resolvedPath(_ path: String, subject: String? = nil) throws(SystemCallError) -> String {
        let resolved = try systemCall("realpath", subject: subject, returning: { Glibc.realpath(path, nil) })
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `readlink(2)`: the link's target.
    public static func linkTarget(_ path: String) throws(SystemCallError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = try systemCall("readlink", subject: path) { Glibc.readlink(path, &buffer, buffer.count - 1) }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `inotify_init1(2)`.
    public static func inotifyInstance(flags: Int32) throws(SystemCallError) -> Int32 {
        try systemCall("inotify_init1") { Glibc.inotify_init1(flags) }
    }

    /// `inotify_add_watch(2)`: the watch's number.
    @discardableResult
    public static func inotifyWatch(_ fd: Int32, _ path: String, mask: UInt32) throws(SystemCallError) -> Int32 {
        try systemCall("inotify_add_watch", subject: path) { Glibc.inotify_add_watch(fd, path, mask) }
    }

    // MARK: Processes and signals

    /// `waitpid(2)`: the child's pid, or 0 under `WNOHANG` while it runs.
    @discardableResult
    public static func wait(for pid: pid_t, status: inout Int32, options: Int32 = 0) throws(SystemCallError) -> pid_t {
        try systemCall("waitpid") { Glibc.waitpid(pid, &status, options) }
    }

    /// `waitpid(2)` as a result: the pid (0 while it runs), or errno (`ECHILD` once reaped).
    public static func waitResult(for pid: pid_t, status: inout Int32, options: Int32 = 0) -> Result<pid_t, Errno> {
        systemCallResult({ Glibc.waitpid(pid, &status, options) })
    }

    /// `kill(2)`.
    public static func kill(_ pid: pid_t, _ signal: Int32) throws(SystemCallError) {
        _ = try systemCall("kill") { Glibc.kill(pid, signal) }
    }

    /// `sigaction(2)`: installs `action` for `signal`.
    public static func setSignalAction(_ signal: Int32, _ action: UnsafePointer<sigaction>, subject: String? = nil) throws(SystemCallError) {
        _ = try systemCall("sigaction", subject: subject) { sigaction(signal, action, nil) }
    }

    /// `pthread_sigmask(3)`: unblocks `signals` on the calling thread.
    public static func unblockSignalsOnThisThread(_ signals: [Int32]) throws(SystemCallError) {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        _ = try errnoReturningCall("pthread_sigmask") { pthread_sigmask(SIG_UNBLOCK, &set, nil) }
    }

    /// `gethostname(2)`.
    public static func hostName() throws(SystemCallError) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = try systemCall("gethostname") { Glibc.gethostname(&buffer, buffer.count - 1) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
