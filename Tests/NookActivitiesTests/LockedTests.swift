import Foundation
import NookActivities
import Testing

/// `Locked` is the one lock of every module. Its point is that ThreadSanitizer sees it: under
/// the suite's TSan pass, a lock whose hand-over TSan cannot see (a bare `Synchronization.Mutex`
/// on Linux, a futex) makes this test report a data race and fail the pass, as it made CI fail
/// on `NookSurfaceArbiter`.
@Suite("Locked: mutual exclusion that ThreadSanitizer can see")
struct LockedTests {
    private struct Tally {
        var count = 0
        var marks: [Int] = []
    }

    @Test func contendedHandOversLoseNoUpdateAndAreOrderedForThreadSanitizer() async {
        let tally = Locked(Tally())
        let threads = 4, rounds = 50_000
        // Threads of their own, not the cooperative pool's two: they spin on the lock for
        // a while, and contention is what makes the futex hand the lock over in the kernel.
        let finished = Locked(0)
        for thread in 0..<threads {
            Thread {
                for round in 0..<rounds {
                    tally.withLock { tally in
                        tally.count += 1
                        if round % 64 == 0 { tally.marks.append(thread) }
                    }
                }
                finished.withLock { $0 += 1 }
            }.start()
        }
        while finished.withLock({ $0 }) < threads { try? await Task.sleep(for: .milliseconds(5)) }
        let (count, marks) = tally.withLock { ($0.count, $0.marks) }
        #expect(count == threads * rounds)
        #expect(marks.count == threads * ((rounds + 63) / 64))
    }
}
