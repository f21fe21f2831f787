import Foundation
import Testing

/// SIGSTOP as a test means it: the process does nothing more once this returns.
///
/// `kill` only starts a stop. The kernel hands SIGSTOP to one thread, and that thread, when it
/// next runs, tells the others to stop; on a loaded machine it may wait for a core while another
/// thread of the same process goes on working, so nookd answered a request sent after `kill`
/// had returned (a 200 where a stalled nookd's 503 was the point).
public enum ProcessStop {
    /// Sends SIGSTOP to `pid` and waits until every thread of it is stopped (state `T` in
    /// `/proc/PID/task/*/stat`). Records an issue and returns false if they are not within
    /// `seconds`, or if the process is gone.
    @discardableResult
    public static func stop(_ pid: pid_t, seconds: Double = 60, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard kill(pid, SIGSTOP) == 0 else {
            Issue.record("kill(\(pid), SIGSTOP) failed: errno \(errno)", sourceLocation: sourceLocation)
            return false
        }
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let states = threadStates(of: pid)
            if !states.isEmpty, states.allSatisfy({ $0 != "R" && $0 != "S" && $0 != "D" }) { return true }
            guard Date() < deadline, !states.isEmpty else {
                Issue.record("pid \(pid) not stopped \(seconds) s after SIGSTOP (its threads' states: \(states.isEmpty ? "none, it is gone" : String(states)))",
                             sourceLocation: sourceLocation)
                return false
            }
            usleep(1_000)
        }
    }

    /// Each thread's state letter.
    private static func threadStates(of pid: pid_t) -> [Character] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { state(inStatFile: "/proc/\(pid)/task/\($0)/stat") }
    }

    /// The state letter of a `/proc/…/stat` file (the field after the command name, which may
    /// hold spaces and parentheses itself), or nil if it cannot be read.
    static func state(inStatFile path: String) -> Character? {
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8), let end = stat.lastIndex(of: ")") else { return nil }
        return stat[end...].dropFirst().first { $0 != " " }
    }
}
