#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC: the clock of deadlines, back-offs and the kernel's event timestamps. It
/// does not jump when the wall clock is set (an RTC-less board sets its clock from the network
/// minutes after boot).
public enum MonotonicClock {
    public static var now: Duration {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// ``now`` in seconds, for loops that compute poll timeouts in floating point.
    public static var seconds: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
