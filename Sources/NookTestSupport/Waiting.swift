#if canImport(Glibc)
import Glibc
#endif

/// Waiting on wall time for something a real process does, judged by what was seen.
///
/// A loop of `while now < deadline { if condition { return } ; sleep }` fails a wait whose
/// condition came true while the test process was held up (two cores, a sanitizer, every
/// end-to-end test starting at once): it wakes past the deadline and gives up without looking.
/// Here the last look always starts after the deadline, so a wait fails only when its
/// condition was seen false the whole bound long.
public enum Waiting {
    /// Whether `condition` holds within `seconds` (scaled by ``TestBounds``), looking every
    /// `interval`.
    public static func until(seconds: Double, every interval: Duration = .milliseconds(20),
                             _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + TestBounds.duration(.seconds(seconds))
        while true {
            let looked = ContinuousClock.now
            if try condition() { return true }
            if looked >= deadline { return false }
            let (whole, attoseconds) = interval.components
            usleep(useconds_t(whole * 1_000_000 + attoseconds / 1_000_000_000_000))
        }
    }

    /// ``until(seconds:every:_:)`` for a condition that awaits: the sleeps give the pool back.
    public static func until(seconds: Double, every interval: Duration = .milliseconds(20),
                             _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + TestBounds.duration(.seconds(seconds))
        while true {
            let looked = ContinuousClock.now
            if try await condition() { return true }
            if looked >= deadline { return false }
            try await Task.sleep(for: interval)
        }
    }
}
