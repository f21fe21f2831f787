import Glibc
import NookSystem
import Synchronization
import Testing

/// Signals the interrupting test's handler saw (a handler cannot capture context).
private let interruptions = Atomic<Int>(0)

@Suite struct ErrnoTests {
    @Test func namedValuesAreTheKernelsNumbersAndEWouldBlockIsEAgain() {
        #expect(Errno(rawValue: EACCES) == .permissionDenied)
        #expect(Errno(rawValue: ENOENT) == .noSuchFileOrDirectory)
        #expect(Errno(rawValue: EWOULDBLOCK) == .wouldBlock && Errno(rawValue: EAGAIN) == .wouldBlock)
        #expect(Errno.interrupted.rawValue == EINTR)
    }

    @Test func anErrnoReadsAsItsNumberAndStrerrorText() {
        #expect(Errno.permissionDenied.description == "(13) Permission denied")
        #expect(Errno.permissionDenied.text == "Permission denied")
        #expect(SystemCallError("drmModeAddFB2", errno: .permissionDenied).description == "'drmModeAddFB2' failed: (13) Permission denied")
        #expect(SystemCallError.describe(errno: .noSpace) == "(28) No space left on device")
    }

    @Test func currentReadsTheCallingThreadsErrno() {
        errno = ENOTDIR
        #expect(Errno.current == .notDirectory)
    }
}

@Suite(.serialized) struct SystemCallWrapperTests {
    /// A call that fails with EINTR a few times before it succeeds.
    @Test func anInterruptedCallIsCalledAgainUntilItReturns() throws {
        var calls = 0
        let result = try systemCall("read") { () -> Int in
            calls += 1
            if calls < 3 { errno = EINTR; return -1 }
            return 7
        }
        #expect(result == 7 && calls == 3)
    }

    @Test func anotherFailureIsThrownAtOnceNamingTheCallAndSubject() {
        var calls = 0
        #expect(throws: SystemCallError("write", errno: .brokenPipe, subject: "a pipe")) {
            _ = try systemCall("write", subject: "a pipe") { () -> Int in
                calls += 1
                errno = EPIPE
                return -1
            }
        }
        #expect(calls == 1)
    }

    /// A real `read(2)` on an empty pipe, interrupted by signals whose handler is installed
    /// without SA_RESTART: the kernel returns EINTR from the read, and the wrapper reads again
    /// until the byte written after the signals arrives.
    @Test func aReadInterruptedByASignalWithoutRestartIsRetried() throws {
        let restore = try installCountingHandler(SIGUSR1)
        defer { restore() }
        // The test runner's threads may block signals: this one takes SIGUSR1 while it reads.
        var usr1 = sigset_t()
        var mask = sigset_t()
        sigemptyset(&usr1)
        sigaddset(&usr1, SIGUSR1)
        _ = try errnoReturningCall("pthread_sigmask") { pthread_sigmask(SIG_UNBLOCK, &usr1, &mask) }
        defer { _ = try? errnoReturningCall("pthread_sigmask") { pthread_sigmask(SIG_SETMASK, &mask, nil) } }
        let reader = pthread_self()
        var byte: UInt8 = 0

        // Without the wrapper the same read fails with EINTR: the signal does interrupt it.
        let control = try testPipe()
        interruptSoon(reader, times: 1, thenWriteTo: control, after: 1_000_000)
        let raw = read(control.0.rawValue, &byte, 1)
        #expect(raw == -1 && Errno.current == .interrupted, "the raw read is interrupted")

        let pipe = try testPipe()
        let readEnd = pipe.0
        interruptions.store(0, ordering: .relaxed)
        interruptSoon(reader, times: 3, thenWriteTo: pipe, after: 50_000)
        let count = try systemCall("read", subject: readEnd.name) { read(readEnd.rawValue, &byte, 1) }
        #expect(count == 1 && byte == 42)
        #expect(interruptions.load(ordering: .relaxed) == 3, "every signal arrived during the read")
    }

    @Test func closeIsCalledOnceEvenWhenInterrupted() {
        var calls = 0
        let failure = closeDescriptor(99) { _ in
            calls += 1
            errno = EINTR
            return -1
        }
        #expect(calls == 1, "never retried: the descriptor is gone even when close says EINTR")
        #expect(failure == nil, "EINTR from close is not a failure")
        let bad = closeDescriptor(-1)
        #expect(bad == .badFileDescriptor)
    }

    @Test func wouldBlockIsAValueNotAnError() throws {
        var ends: [Int32] = [-1, -1]
        _ = try systemCall("pipe") { pipe(&ends) }
        let readEnd = FileDescriptor(owning: ends[0], name: "test pipe")
        let writeEnd = FileDescriptor(owning: ends[1], name: "test pipe")
        try readEnd.setNonBlocking()
        var byte: UInt8 = 0
        let empty = try nonBlockingSystemCall("read") { read(readEnd.rawValue, &byte, 1) }
        #expect(empty == nil, "an empty non-blocking pipe would block")
        #expect(try withUnsafeMutableBytes(of: &byte) { try readEnd.readIfReady(into: $0) } == nil)
        // On a call that is not expected to block, EAGAIN is still an error.
        #expect(throws: SystemCallError("read", errno: .wouldBlock)) {
            _ = try systemCall("read") { read(readEnd.rawValue, &byte, 1) }
        }
        var one: UInt8 = 5
        _ = try systemCall("write") { write(writeEnd.rawValue, &one, 1) }
        let got = try nonBlockingSystemCall("read") { read(readEnd.rawValue, &byte, 1) }
        #expect(got == 1 && byte == 5)
    }

    @Test func callsThatReturnTheirErrorAreNamedTheSameWay() {
        #expect(throws: SystemCallError("sd_bus_call", errno: .connectionRefused)) {
            _ = try errnoReturningCall("sd_bus_call", negative: true) { -ECONNREFUSED }
        }
        #expect(throws: SystemCallError("posix_spawn", errno: .noSuchFileOrDirectory, subject: "x")) {
            _ = try errnoReturningCall("posix_spawn", subject: "x") { ENOENT }
        }
        #expect(throws: SystemCallError("realpath", errno: .noSuchFileOrDirectory)) {
            _ = try systemCall("realpath", returning: { realpath("/nonexistent/nook", nil) })
        }
    }

    @Test func aPointerCallFailingWithoutSettingErrnoIsNotRetriedForAStaleEINTR() {
        var calls = 0
        errno = EINTR
        #expect(throws: SystemCallError("lookup", errno: Errno(rawValue: 0))) {
            _ = try systemCall("lookup", returning: { () -> UnsafeMutableRawPointer? in calls += 1; return nil })
        }
        #expect(calls == 1)
    }

    @Test func pathHelpersAnswerNothingThereWithoutAnError() throws {
        #expect(try fileStatus("/nonexistent/nook") == nil)
        #expect(try removeFile("/nonexistent/nook") == false)
        #expect(!fileExists("/nonexistent/nook"))
        #expect(fileExists("/dev/null"))
        #expect(throws: SystemCallError("stat", errno: .notDirectory, subject: "/dev/null/x")) { _ = try fileStatus("/dev/null/x") }
    }
}

/// Installs a handler for `signal` that counts, without SA_RESTART; returns what puts the old one back.
private func installCountingHandler(_ signal: Int32) throws -> () -> Void {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in interruptions.add(1, ordering: .relaxed) }
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    var previous = sigaction()
    _ = try systemCall("sigaction") { sigaction(signal, &action, &previous) }
    return { _ = try? systemCall("sigaction") { sigaction(signal, &previous, nil) } }
}

/// A pipe's read and write ends.
private func testPipe() throws -> (FileDescriptor, FileDescriptor) {
    var ends: [Int32] = [-1, -1]
    _ = try systemCall("pipe") { pipe(&ends) }
    return (FileDescriptor(owning: ends[0], name: "test pipe"), FileDescriptor(owning: ends[1], name: "test pipe"))
}

/// From another thread: sends SIGUSR1 to `thread` `times` times, 50 ms apart (the first after
/// 50 ms, so the read has begun), then after `microseconds` writes 42 to `file` (which also
/// ends a read that no signal interrupted). Holds both ends: a write with no reader left
/// would raise SIGPIPE.
private func interruptSoon(_ thread: pthread_t, times: Int, thenWriteTo pipe: (FileDescriptor, FileDescriptor), after microseconds: UInt32) {
    startThread(named: "test.interrupt") {
        for _ in 0..<times {
            usleep(50_000)
            _ = pthread_kill(thread, SIGUSR1)
        }
        usleep(microseconds)
        var byte: UInt8 = 42
        _ = try? systemCall("write") { write(pipe.1.rawValue, &byte, 1) }
        withExtendedLifetime(pipe.0) {}
    }
}
