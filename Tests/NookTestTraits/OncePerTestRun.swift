import Foundation
import Testing

/// A test whose cost is its scale or a large peer's start (a queue of 100,000 cards, a Home
/// Assistant), not what a sanitizer finds, runs once in a run of `Hardware/dev/test`: in its
/// ThreadSanitizer pass where it has one (`--all`, `--under-load`), whose end-to-end tests start
/// the release programs as a user runs them, and the AddressSanitizer pass after it says so in
/// `NOOK_TEST_ONCE=ran` and skips them, saying where they ran; in CI's run, which has no
/// ThreadSanitizer pass, the AddressSanitizer pass runs them. (A plain `swift test` runs them,
/// as does every pass run by hand.)
public enum OncePerTestRun {
    public static var alreadyRan: Bool { ProcessInfo.processInfo.environment["NOOK_TEST_ONCE"] == "ran" }
}

extension Trait where Self == ConditionTrait {
    /// Skips the test in a pass after the one that ran it; `what` says what makes it costly.
    public static func oncePerTestRun(_ what: String) -> Self {
        .disabled(if: OncePerTestRun.alreadyRan,
                  Comment(rawValue: "\(what): it ran in an earlier pass of this run (NOOK_TEST_ONCE=ran)"))
    }
}
