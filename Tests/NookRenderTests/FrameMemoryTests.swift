import Foundation
@testable import NookRender
import NookActivities
import Testing

/// An idle screen returns its spare frames and, at most once a minute, the code
/// pages the cards faulted back in (`daemon_idle_rss_mib` in nook-bench shows the effect).
@Suite("N3 idle memory: the screen's page drop")
struct FrameMemoryTests {
    @Test func n3_codePagesAreDroppedAtTheFirstReleaseThenAtMostOnceAMinute() {
        var last: Double?
        #expect(FrameMemory.takePageDrop(now: 100, last: &last), "the first release drops")
        #expect(last == 100)
        #expect(!FrameMemory.takePageDrop(now: 111, last: &last), "a card 11 s later, idle again: not yet")
        #expect(!FrameMemory.takePageDrop(now: 159.9, last: &last))
        #expect(last == 100, "a skipped drop does not move the minute")
        #expect(FrameMemory.takePageDrop(now: 160, last: &last), "a minute after the last drop")
        #expect(last == 160)
    }

    @Test func n3_theTrimRunsOnItsOwnThreadAndTheCallerGoesOnAtOnce() {
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        let callers = Locked<(caller: pthread_t?, worker: pthread_t?)>((nil, nil))
        callers.withLock { $0.caller = pthread_self() }
        FrameMemory.inBackground {
            callers.withLock { $0.worker = pthread_self() }
            started.signal()
            // Held until the caller has gone on: run in the caller's stead, this would wait
            // out its bound and the caller would find it finished.
            _ = release.wait(timeout: .now() + 30)
            finished.signal()
        }
        #expect(finished.wait(timeout: .now()) == .timedOut, "the work ran before inBackground returned")
        #expect(started.wait(timeout: .now() + 60) == .success, "the work never ran")
        release.signal()
        #expect(finished.wait(timeout: .now() + 60) == .success)
        let threads = callers.withLock { $0 }
        #expect(threads.worker.map { pthread_equal($0, threads.caller!) == 0 } == true, "the work ran on the caller's thread")
    }
}
