#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookSystem

/// Z4's last step: the `escalation.on_escalate` command, run with the activity in its
/// environment — `NOOK_ACTIVITY_ID`, `NOOK_ACTIVITY_TITLE`, `NOOK_ACTIVITY_SUBTITLE`,
/// `NOOK_ACTIVITY_PRIORITY`, `NOOK_ESCALATION_STEP` — and never in its command line: the command
/// is an argument vector started with posix_spawn, no shell, so a title such as `$(reboot)`
/// is only ever text. Its output goes to nookd's stderr (the journal); nookd does not wait.
enum EscalationHook {
    /// Starts `command` for `activity`; returns the child's pid, or the failed call.
    static func run(_ command: [String], activity: NookActivity, step: Int) -> Result<pid_t, SystemCallError> {
        precondition(!command.isEmpty, "the config check refuses an empty on_escalate")
        let variables = [
            "NOOK_ACTIVITY_ID=\(activity.id)",
            "NOOK_ACTIVITY_TITLE=\(activity.title)",
            "NOOK_ACTIVITY_SUBTITLE=\(activity.subtitle ?? "")",
            "NOOK_ACTIVITY_PRIORITY=\(activity.priority)",
            "NOOK_ESCALATION_STEP=\(step)",
            "PATH=/usr/local/bin:/usr/bin:/bin",
        ]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // A clean signal mask, and never while a client's connection is still inheritable (ChildSpawns).
        let pid: pid_t
        switch ChildSpawns.spawn(command, environment: variables, searchingPath: true, fileActions: &actions) {
        case .success(let child): pid = child
        case .failure(let error): return .failure(error)
        }
        // Reaped by polling (WNOHANG) so no zombie is left and no thread ever blocks on a hook.
        let child = pid
        Task.detached { @Sendable in
            var status: Int32 = 0
            while (try? System.wait(for: child, status: &status, options: WNOHANG)) == 0 {
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        return .success(pid)
    }
}
