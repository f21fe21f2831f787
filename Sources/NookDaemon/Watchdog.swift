#if canImport(Glibc)
import Glibc
#endif
import NookActivities

/// systemd's watchdog (W1): when the unit has `WatchdogSec=`, systemd passes `WATCHDOG_USEC`
/// (and `WATCHDOG_PID`) and restarts nookd if `WATCHDOG=1` does not arrive within it. The ping
/// is sent from the display loops' heartbeat, so it stops when a loop hangs.
enum Watchdog {
    /// The heartbeat that pings systemd, or nil when no watchdog is asked for (no
    /// `WATCHDOG_USEC`, or one meant for another process).
    static func heartbeat(clock: any NookClock, environment: (String) -> String? = Watchdog.environment) -> NookLoopHeartbeat? {
        guard let interval = interval(usec: environment("WATCHDOG_USEC"), pid: environment("WATCHDOG_PID"), ownPID: Int(getpid())) else { return nil }
        return NookLoopHeartbeat(interval: interval, clock: clock, onAlive: { SystemdNotifier.notify("WATCHDOG=1") })
    }

    /// Half the watchdog timeout, as sd_watchdog_enabled(3) advises, so one late ping is not a
    /// restart. Nil when the variables do not ask this process for pings.
    static func interval(usec: String?, pid: String?, ownPID: Int) -> Duration? {
        guard let usec, let microseconds = Int64(usec), microseconds > 0 else { return nil }
        if let pid, Int(pid) != ownPID { return nil }
        return .microseconds(microseconds / 2)
    }

    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
