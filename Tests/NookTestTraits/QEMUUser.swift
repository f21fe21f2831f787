import Foundation
import Testing

/// Whether this test process is emulated by qemu-user: `Hardware/dev/cross arm64 test` runs the
/// aarch64 suite so and says it in `NOOK_UNDER_QEMU_USER`. A few behaviours are qemu-user's,
/// not the kernel's; the tests of those are skipped there by ``Trait/notUnderQEMUUser(_:)``,
/// each with its reason, and run on a kernel of that CPU (an aarch64 guest, a board). So is the
/// scan of the source text for raw system calls, whose result no CPU changes.
public enum QEMUUser {
    public static var running: Bool { getenv("NOOK_UNDER_QEMU_USER") != nil }

    /// All of `cases` natively; emulated, `count` of them spread evenly from the first to the
    /// last. Emulated, drawing costs 40 to 90 times its native time (a card of hostile text at
    /// three panel sizes took six minutes of CI's run): a sample still draws every path with this
    /// CPU's pixel code, and the amd64 passes draw every case.
    public static func sample<Case>(_ cases: [Case], count: Int) -> [Case] {
        guard running, count >= 1, cases.count > count else { return cases }
        guard count > 1 else { return [cases[0]] }
        return (0..<count).map { cases[$0 * (cases.count - 1) / (count - 1)] }
    }
}

extension Trait where Self == ConditionTrait {
    /// Skips the test under qemu-user; `reason` says what qemu-user does differently.
    public static func notUnderQEMUUser(_ reason: Comment) -> Self {
        .disabled(if: QEMUUser.running, reason)
    }
}
