import Foundation
import NookSystem
import Testing

// Children of a test process start one at a time, and the pipes given to them are made
// close-on-exec while none is starting, under the one lock every spawn of this process takes
// (NookSystem's `ChildSpawns`, which nookd's code run in-process spawns its hooks under).
//
// Why: Foundation's `Process.run()` learns that its child exited from end-of-file on a socket
// pair whose write end only that child should hold, and it closes in the new child only the
// descriptors up to the highest one it found in `/proc/self/fd` a moment before it spawns. A
// pair (or a test's pipe) that another thread made in that moment, numbered above it, went to
// that other child as well, so the first child's exit went unseen, unreaped and `isRunning`,
// for as long as the other child lived. In a rehearsal's AddressSanitizer pass, run beside a build, three nookds
// that had logged "nookd stopped" sat as zombies through their tests' whole exit bound. A
// lock of the harness's own was not enough: an escalation hook spawned through `ChildSpawns`
// (which closes nothing) took such a pair as well, and a `run()` that skipped the lock could.

extension Process {
    /// `run()`, with no other child of this process starting at the same moment, and with an
    /// empty signal mask: the child keeps the mask of the thread that spawns it, and the test
    /// runner's threads block SIGTERM and others (a broker started so never stopped on SIGTERM).
    /// `Process` sets no mask of its own, so the calling thread's is emptied while it spawns.
    ///
    /// Once the child runs, this `Process` lets go of its standard input, output and error: the
    /// child has its own copies, and Foundation keeps a started `Process` (and so every pipe end
    /// and log file it was given) alive until the starting thread runs its run loop, which a
    /// test's thread never does. The caller's own references still close them when released.
    public func runAlone(sourceLocation: SourceLocation = #_sourceLocation) throws {
        OpenDescriptors.expectWithinBound(starting: executableURL?.lastPathComponent, sourceLocation: sourceLocation)
        try ChildSpawns.exclusively { try runWithEmptySignalMask() }
        standardInput = nil
        standardOutput = nil
        standardError = nil
    }

    private func runWithEmptySignalMask() throws {
        var empty = sigset_t(), saved = sigset_t()
        sigemptyset(&empty)
        pthread_sigmask(SIG_SETMASK, &empty, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        try run()
    }
}

extension Pipe {
    /// What a child wrote before its first line break (the bridges' first line says where they
    /// listen), or all it wrote if it closed the pipe first; read until `deadline`, if given.
    public func firstLine(until deadline: Date? = nil) -> String {
        var text = ""
        while !text.contains("\n"), deadline.map({ Date() < $0 }) ?? true {
            let data = fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        return text
    }

    /// A pipe that reaches a child only as that child's standard input, output or error
    /// (`Process` duplicates it there, which clears close-on-exec), never as a stray descriptor
    /// of some other child started at the same time.
    public static func closedOnExec() -> Pipe {
        ChildSpawns.exclusively {
            let pipe = Pipe()
            for descriptor in [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor] {
                _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
            }
            return pipe
        }
    }
}
