@testable import NookRender
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
}
