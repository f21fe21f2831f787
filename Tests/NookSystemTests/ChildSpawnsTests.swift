import Glibc
import NookSystem
import NookTestTraits
import Testing

/// A child's signal mask survives `exec`: one spawned from a thread that blocks SIGTERM (as
/// threads of the Swift runtime and of libdispatch do) could never be stopped with SIGTERM.
/// Every child Nook starts goes through ``ChildSpawns/spawn(_:environment:searchingPath:fileActions:)``.
@Suite("Children start with a clean signal mask", .serialized)
struct ChildSpawnsTests {
    /// `body` on a thread of its own that blocks SIGTERM and SIGHUP, as the spawning thread.
    static func onBlockingThread(_ body: @escaping @Sendable () -> Result<pid_t, SystemCallError>) -> Result<pid_t, SystemCallError> {
        let box = SpawnBox(body)
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<SpawnBox>.fromOpaque(raw!).takeUnretainedValue()
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGTERM)
            sigaddset(&set, SIGHUP)
            pthread_sigmask(SIG_BLOCK, &set, nil)
            box.value = box.body()
            return nil
        }, Unmanaged.passUnretained(box).toOpaque())
        precondition(started == 0, "pthread_create failed")
        pthread_join(thread, nil)
        return box.value!
    }

    /// A field of `/proc/PID/status` (`SigBlk`, `SigIgn`) as a number.
    static func statusMask(_ pid: pid_t, _ field: String) -> UInt64? {
        guard let file = fopen("/proc/\(pid)/status", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix(field + ":") {
                return UInt64(text.dropFirst(field.count + 1).trimmingPrefix(while: { $0 == "\t" || $0 == " " }).prefix { $0.isHexDigit }, radix: 16)
            }
        }
        return nil
    }

    /// Whether the child `pid` runs a program named `name` (`/proc/PID/exe`), waiting up to 60 s
    /// for it: under qemu-user `posix_spawn` returns before the child's `execve`, and until then
    /// the child is qemu, with all but a few signals blocked by qemu itself.
    static func waitUntilRunning(_ pid: pid_t, _ name: String) -> Bool {
        var buffer = [CChar](repeating: 0, count: 4096)
        for _ in 0..<6_000 {
            let length = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
            if length > 0, String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self).hasSuffix("/" + name) { return true }
            usleep(10_000)
        }
        return false
    }

    @Test func aChildSpawnedFromAThreadWithSIGTERMBlockedHasAnEmptyBlockedMaskAndDefaultActions() throws {
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        let result = Self.onBlockingThread { ChildSpawns.spawn(["/bin/sleep", "30"]) }
        let pid = try result.get()
        #expect(Self.waitUntilRunning(pid, "sleep"), "the child never ran sleep")
        #expect(Self.statusMask(pid, "SigBlk") == 0)
        #expect(Self.statusMask(pid, "SigIgn").map { $0 & (1 << (SIGPIPE - 1)) } == 0, "SIGPIPE is back at its default action")
        // And so SIGTERM ends it (SIGKILL after a generous bound, so a failure cannot hang).
        kill(pid, SIGTERM)
        var status: Int32 = 0
        var waited = 0
        while waitpid(pid, &status, WNOHANG) == 0, waited < 1000 {
            usleep(10_000)
            waited += 1
        }
        if waited == 1000 {
            Issue.record("the child ignored SIGTERM")
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        #expect(status & 0x7F == SIGTERM)
    }

    /// qemu-user runs a child's `execve` after `posix_spawn` has told the parent it started, so
    /// there a program that cannot run "starts" and exits 127.
    @Test(.notUnderQEMUUser("qemu-user reports a posix_spawn of a missing program as started"))
    func aProgramThatCannotBeStartedIsAnErrorNamingTheCall() {
        guard case .failure(let error) = ChildSpawns.spawn(["/nonexistent/program"]) else { Issue.record("started"); return }
        #expect(error.call == "posix_spawn" && error.errno == .noSuchFileOrDirectory && error.subject == "/nonexistent/program")
    }
}

private final class SpawnBox: @unchecked Sendable {
    var value: Result<pid_t, SystemCallError>?
    let body: @Sendable () -> Result<pid_t, SystemCallError>
    init(_ body: @escaping @Sendable () -> Result<pid_t, SystemCallError>) { self.body = body }
}
