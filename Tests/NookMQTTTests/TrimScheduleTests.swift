@testable import NookMQTT
import Testing

/// Issue 16's page trimming runs a second after a burst; a message every ~1.01 s made every
/// message a burst, so smaps was parsed and pages dropped (and faulted back) each time.
@Suite("N3 idle memory: the bridge's page trimming is rate-limited")
struct TrimScheduleTests {
    @Test func n3_theFirstTrimComesASecondAfterTheBurst() {
        #expect(MQTTBridge.trimTime(afterMessageAt: 100, lastTrim: nil) == 101)
    }

    @Test func n3_aMessageSoonAfterATrimWaitsAMinuteFromIt() {
        // Trimmed at 100, a second after a message; messages every 1.01 s from then on.
        #expect(MQTTBridge.trimTime(afterMessageAt: 101.01, lastTrim: 100) == 160)
        #expect(MQTTBridge.trimTime(afterMessageAt: 159.5, lastTrim: 100) == 160.5)
    }

    @Test func n3_aBurstLongAfterTheLastTrimIsTrimmedASecondAfterIt() {
        #expect(MQTTBridge.trimTime(afterMessageAt: 1000, lastTrim: 100) == 1001)
    }
}
