import NookSystem
import Testing

/// The bridges' page trimming runs a second after a burst; a message every
/// ~1.01 s made every message a burst, so smaps was parsed and pages dropped (and faulted back)
/// each time. nook-mqtt and nook-notify both schedule it with `IdleTrim`.
@Suite("N3 idle memory: the bridges' page trimming is rate-limited")
struct IdleTrimTests {
    @Test func n3_theFirstTrimComesASecondAfterTheBurst() {
        #expect(IdleTrim.time(afterActivityAt: 100, lastTrim: nil) == 101)
    }

    @Test func n3_aMessageSoonAfterATrimWaitsAMinuteFromIt() {
        // Trimmed at 100, a second after a message; messages every 1.01 s from then on.
        #expect(IdleTrim.time(afterActivityAt: 101.01, lastTrim: 100) == 160)
        #expect(IdleTrim.time(afterActivityAt: 159.5, lastTrim: 100) == 160.5)
    }

    @Test func n3_aBurstLongAfterTheLastTrimIsTrimmedASecondAfterIt() {
        #expect(IdleTrim.time(afterActivityAt: 1000, lastTrim: 100) == 1001)
    }

    @Test func n3_theScheduleIsDueOnceAndCountsFromWhenItRan() {
        var trim = IdleTrim()
        var taken = trim.takeDue(now: 50)
        #expect(trim.due == nil && !taken)
        trim.activity(at: 100)
        #expect(trim.due == 101)
        taken = trim.takeDue(now: 100.5)
        #expect(!taken)
        taken = trim.takeDue(now: 101.2)
        #expect(taken && trim.due == nil)
        taken = trim.takeDue(now: 102)
        #expect(!taken)
        // The drop ran at 101.2: the next burst waits a minute from then.
        trim.activity(at: 102)
        #expect(trim.due == 161.2)
    }
}
