#if canImport(Glibc)
import Glibc
#endif

/// How long a test waits before it calls something that has not happened a failure.
///
/// A bound only matters when the behaviour is broken, so it may be generous; but under a
/// sanitizer the machine runs every nookd, bridge and broker several times slower, and dozens
/// of end-to-end tests start at once on two cores: a bound that is ample for the plain suite
/// fails a correct build there. `Hardware/dev/test` sets `NOOK_TEST_BOUND_SCALE` for its
/// sanitizer passes; every wall-clock bound of the end-to-end tests and the event recorders' watchdogs goes
/// through here.
public enum TestBounds {
    /// `NOOK_TEST_BOUND_SCALE` (a number ≥ 1), else 1.
    public static let scale: Double = {
        guard let text = getenv("NOOK_TEST_BOUND_SCALE"), let value = Double(String(cString: text)), value >= 1 else { return 1 }
        return value
    }()

    /// `seconds` scaled for this run.
    public static func seconds(_ seconds: Double) -> Double { seconds * scale }

    /// `duration` scaled for this run.
    public static func duration(_ duration: Duration) -> Duration { duration * scale }
}
