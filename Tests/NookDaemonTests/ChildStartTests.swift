import Foundation
import NookActivities
@testable import NookDaemon
import NookSystem
import NookTestSupport
import NookTestTraits
import Testing

/// The harness's own rule (NookTestTraits/ChildStarts.swift): a test's pipe reaches only the
/// child it is given to, so another test's child cannot hold it open and hide an exit. (The
/// race itself, another thread's `run()` between its listing and its spawn, is not reproduced
/// here: the close-on-exec flag is what closes it, and that is checked.)
@Suite("Test harness: children and their pipes", .ownThreads)
struct ChildStartTests {
    @Test func aPipeGivenToNoChildIsNotInheritedByOne() throws {
        let stray = Pipe.closedOnExec()
        for descriptor in [stray.fileHandleForReading.fileDescriptor, stray.fileHandleForWriting.fileDescriptor] {
            #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)
        }
        let output = Pipe.closedOnExec()
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The child lists where its descriptors lead: pipes by inode.
        child.arguments = ["-c", "for fd in /proc/self/fd/*; do readlink \"$fd\"; done"]
        child.standardOutput = output
        try child.runAlone()
        let listing = String(decoding: output.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        child.waitForExit(seconds: 30)
        var status = stat()
        fstat(stray.fileHandleForWriting.fileDescriptor, &status)
        #expect(listing.contains("pipe:["), "the child's own standard output is a pipe: \(listing)")
        #expect(!listing.contains("pipe:[\(status.st_ino)]"), "the stray pipe reached the child: \(listing)")
    }

    /// A started child's pipes and log file stay open in the test process only while the test
    /// holds them: the whole suite starts children by the thousand, and descriptors kept past
    /// their test piled up into the count at which `Process.run()` crashes.
    @Test func aChildsPipeAndLogFileCloseOnceTheTestLetsGoOfThem() throws {
        let logPath = FileManager.default.temporaryDirectory.appendingPathComponent("nook-child-log-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: logPath) }
        let (child, pipes) = try Self.echo(logPath: logPath)
        #expect(child.terminationStatus == 0)
        let open = OpenDescriptors.targets
        for pipe in pipes { #expect(!open.contains(pipe), "\(pipe) still open in the test process") }
        #expect(!open.contains(logPath), "the child's log file still open in the test process")
    }

    /// A pipe read to its end keeps reading when a signal whose handler lacks SA_RESTART
    /// interrupts it, as the runtime's crash handler interrupts every thread: one test's crash
    /// must not end the run as another test's "Interrupted system call".
    @Test func aPipeReadToItsEndKeepsReadingThroughAnInterruption() throws {
        // SIGUSR2: SystemCallWrapperTests installs and restores a SIGUSR1 handler of its own.
        var action = sigaction(), previous = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        #expect(sigaction(SIGUSR2, &action, &previous) == 0)
        defer { sigaction(SIGUSR2, &previous, nil) }
        var usr2 = sigset_t(), mask = sigset_t()
        sigemptyset(&usr2)
        sigaddset(&usr2, SIGUSR2)
        pthread_sigmask(SIG_UNBLOCK, &usr2, &mask)
        defer { pthread_sigmask(SIG_SETMASK, &mask, nil) }
        let pipe = Pipe.closedOnExec()
        let reader = pthread_self(), writer = pipe.fileHandleForWriting
        Thread.detachNewThread {
            usleep(100_000)
            pthread_kill(reader, SIGUSR2)
            usleep(100_000)
            writer.write(Data("after".utf8))
            try? writer.close()
        }
        #expect(String(decoding: pipe.fileHandleForReading.readToEndOfFile(), as: UTF8.self) == "after")
    }

    /// A test child starts under the same lock as nookd's own spawns (an escalation hook run
    /// in-process): a hook spawned while a test child's exit-watching socket pair is open would
    /// hold that pair, and the child's exit would go unseen for as long as the hook lives.
    @Test func aTestChildDoesNotStartWhileNookdsCodeSpawnsOrMakesADescriptor() throws {
        let started = Locked(false)
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            ChildSpawns.exclusively {
                holding.signal()
                release.wait()
            }
        }
        holding.wait()
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        let starting = UncheckedProcess(child)
        Thread.detachNewThread {
            try? starting.process.runAlone()
            started.withLock { $0 = true }
        }
        usleep(300_000)
        #expect(!started.withLock { $0 }, "a child started while the spawn lock was held")
        release.signal()
        let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
        while !started.withLock({ $0 }), Date() < deadline { usleep(10_000) }
        #expect(started.withLock { $0 })
        #expect(child.waitForExit(seconds: 30))
    }

    /// Every child a test starts goes through ``Process/runAlone(sourceLocation:)``: a plain
    /// `run()` or the C library's `system` skips the lock, and one such start beside another
    /// test's hid that test's child's exit (a killed nookd "still running" for minutes).
    @Test func everyTestStartsItsChildrenThroughRunAlone() throws {
        let root = String(#filePath[..<#filePath.range(of: "/Tests/")!.lowerBound])
        let files = FileManager.default.enumerator(atPath: root + "/Tests")!.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        let starts = try Regex(#"[A-Za-z_)\]]\.run\(\)|\bsystem\(|waitUntilExit\(\)"#)
        var found: [String] = []
        for file in files {
            let text = try String(contentsOfFile: root + "/Tests/" + file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//"), code.contains(starts), !code.contains("await") else { continue }
                found.append("Tests/\(file):\(number + 1): \(code)")
            }
        }
        #expect(found.isEmpty, "start children with runAlone() and wait with waitForExit():\n\(found.joined(separator: "\n"))")
    }

    /// Runs `echo` with its output to a pipe and its error to `logPath`, reads the output, waits
    /// for the exit; returns the finished `Process` (still referenced, as a test keeps it) and the
    /// pipes it was given, as `/proc/self/fd` names them.
    private static func echo(logPath: String) throws -> (Process, [String]) {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/echo")
        child.arguments = ["hello"]
        let output = Pipe.closedOnExec()
        child.standardOutput = output
        child.standardError = FileHandle(forWritingAtPath: logPath)
        var status = stat()
        fstat(output.fileHandleForReading.fileDescriptor, &status)
        try child.runAlone()
        #expect(String(decoding: output.fileHandleForReading.readToEndOfFile(), as: UTF8.self) == "hello\n")
        #expect(child.waitForExit(seconds: 30))
        return (child, ["pipe:[\(status.st_ino)]"])
    }
}

/// Children keep the signal mask of the thread that spawns them; the test runner's threads
/// block SIGTERM (a broker started so never stopped on SIGTERM), so test children and nookd's
/// escalation hooks start with an empty mask.
@Suite("Children start with an empty signal mask", .serialized, .ownThreads)
struct ChildSignalMaskTests {
    /// `body` on a thread of its own that blocks SIGTERM.
    static func onBlockingThread(_ body: @escaping @Sendable () throws -> pid_t) throws -> pid_t {
        let box = PidBox()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGTERM)
            pthread_sigmask(SIG_BLOCK, &set, nil)
            do { box.value = try body() } catch { box.error = error }
            done.signal()
        }
        thread.start()
        done.wait()
        if let error = box.error { throw error }
        return box.value
    }

    static func blockedMask(_ pid: pid_t) -> String? {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }.map { $0.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces) }
    }

    @Test func aTestChildStartedFromAThreadWithSIGTERMBlockedHasAnEmptyBlockedMask() throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["30"]
        let started = UncheckedProcess(child)
        _ = try Self.onBlockingThread {
            try started.process.runAlone()
            return started.process.processIdentifier
        }
        #expect(Self.blockedMask(child.processIdentifier) == "0000000000000000")
        kill(child.processIdentifier, SIGTERM)
        #expect(child.waitForExit(seconds: 10))
        #expect(child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGTERM)
    }

    @Test func z4_anEscalationHookStartedFromAThreadWithSIGTERMBlockedHasAnEmptyBlockedMask() throws {
        let pid = try Self.onBlockingThread { try EscalationHook.run(["sleep", "30"], activity: NookActivity(title: "x"), step: 1).get() }
        #expect(Self.blockedMask(pid) == "0000000000000000")
        kill(pid, SIGKILL)
    }
}

private final class PidBox: @unchecked Sendable {
    var value: pid_t = 0
    var error: (any Error)?
}

private struct UncheckedProcess: @unchecked Sendable {
    let process: Process
    init(_ process: Process) { self.process = process }
}
