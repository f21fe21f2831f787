import Foundation
import Testing

extension Process {
    /// Waits until the process has exited and returns true, or, still running after `seconds`,
    /// kills it (SIGKILL), records an issue naming it and returns false once it is gone or after
    /// ten more seconds.
    ///
    /// Not `waitUntilExit()`: that spins the calling thread's RunLoop, whose timeout is a
    /// libdispatch timer and whose early wake-up depends on which thread's run loop `Process`
    /// noted. In the ThreadSanitizer pass a test's thread sat in that run loop's `ppoll` for
    /// 20 minutes after its child (lcdexec, SIGKILLed) had been reaped, and CI ran out of time.
    /// Foundation clears `isRunning` from its own monitoring thread; polling it needs neither.
    @discardableResult
    public func waitForExit(seconds: Double = 120, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        if exited(within: seconds) { return true }
        let name = executableURL?.lastPathComponent ?? "a child process"
        Issue.record("\(name) (pid \(processIdentifier)) still running after \(seconds) s: killed\(unseenExit)", sourceLocation: sourceLocation)
        kill(processIdentifier, SIGKILL)
        _ = exited(within: 10)
        return false
    }

    /// For the failure's message: a child that did exit (a zombie) but whose exit Foundation
    /// never saw, because another process holds the socket end only this child should (a start
    /// that skipped ``runAlone(sourceLocation:)``'s lock).
    private var unseenExit: String {
        guard ProcessStop.state(inStatFile: "/proc/\(processIdentifier)/stat") == "Z" else { return "" }
        return " (it had exited, a zombie, unseen: another child holds its exit-watching socket)"
    }

    /// Waits up to `seconds` for the process to exit: true if it did, false if it still runs
    /// (for a child that may rightly keep running; ``waitForExit(seconds:sourceLocation:)``
    /// calls a child still running a failure).
    public func exited(within seconds: Double) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let deadline = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + seconds
        while isRunning {
            clock_gettime(CLOCK_MONOTONIC, &now)
            if Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 >= deadline { return false }
            usleep(2_000)
        }
        return true
    }
}
