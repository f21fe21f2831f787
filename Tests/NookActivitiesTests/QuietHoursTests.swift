import NookActivities
import NookTestSupport
import Testing

/// Monday 2026-11-23 is day 20416 after 1970-01-01.
private let monday: Int64 = 20_416

private func at(_ dayOffset: Int64, _ hour: Int, _ minute: Int) -> NookLocalTime {
    NookLocalTime(day: monday + dayOffset, hour: hour, minute: minute)
}

/// Local time that moves with a manual clock, from `start`.
private func localTime(of clock: ManualClock, from start: NookLocalTime) -> @Sendable () -> NookLocalTime {
    let origin = clock.now
    return { start + Int64((clock.now - origin).components.seconds) }
}

@Suite("Z1 quiet hours", .timeLimit(.minutes(5)))
struct QuietHoursTests {
    @Test func z1_weekdaysAreCountedFromTheEpoch() {
        #expect(at(0, 12, 0).weekday == 1, "2026-11-23 is a Monday")
        #expect(at(-1, 23, 59).weekday == 0)
        #expect(at(0, 7, 5).description == "mon 07:05")
    }

    @Test func z1_aRangeAcrossMidnightBelongsToTheDayItStarts() throws {
        let schedule = NookQuietSchedule([try .init(parsing: "mon-fri 22:00-07:00")])
        #expect(schedule.period(containing: at(0, 21, 59)) == nil)
        let night = try #require(schedule.period(containing: at(0, 22, 0)))
        #expect(night.start == at(0, 22, 0) && night.end == at(1, 7, 0))
        #expect(schedule.period(containing: at(1, 6, 59)) != nil, "Tuesday morning is Monday night's")
        #expect(schedule.period(containing: at(1, 7, 0)) == nil, "the end is not quiet")
        // Friday night runs into Saturday morning; Saturday night is not in the range.
        #expect(schedule.period(containing: at(5, 3, 0)) != nil)
        #expect(schedule.period(containing: at(5, 23, 0)) == nil)
        // Sunday 23:00 is not quiet (Sunday is not listed), Monday 00:30 neither.
        #expect(schedule.period(containing: at(-1, 23, 0)) == nil)
        #expect(schedule.period(containing: at(0, 0, 30)) == nil)
        #expect(schedule.nextStart(after: at(5, 8, 0)) == at(7, 22, 0), "after Saturday's morning, next Monday night")
    }

    @Test func z1_severalRangesAndTouchingRangesMakeOnePeriod() throws {
        let schedule = NookQuietSchedule([try .init(parsing: "daily 22:00-07:00"), try .init(parsing: "sat,sun 07:00-09:30"),
                                          try .init(parsing: "mon,wed-fri 13:00-14:00")])
        #expect(schedule.period(containing: at(5, 6, 0))?.end == at(5, 9, 30), "Saturday: the night and the lie-in join")
        #expect(schedule.period(containing: at(1, 6, 0))?.end == at(1, 7, 0), "Tuesday: only the night")
        #expect(schedule.period(containing: at(0, 13, 30)) != nil)
        #expect(schedule.period(containing: at(1, 13, 30)) == nil, "Tuesday is not in mon,wed-fri")
        #expect(schedule.period(containing: at(2, 13, 30)) != nil)
        let whole = NookQuietSchedule([try .init(parsing: "sun 00:00-24:00")])
        #expect(whole.period(containing: at(-1, 12, 0))?.end == at(0, 0, 0))
    }

    @Test func z1_badRangesSayWhatIsWrong() {
        for (text, problem) in [("22:00-07:00", "DAYS FROM-TO"), ("mon-fry 22:00-07:00", "unknown days \"mon-fry\""),
                                ("daily 22:00-7:00", "HH:MM-HH:MM"), ("daily 25:00-07:00", "HH:MM-HH:MM"),
                                ("daily 07:00-07:00", "same time"), ("daily 24:00-01:00", "cannot start at 24:00"),
                                // A sign is not a digit, though Int(_:) reads "+7" as 7.
                                ("daily +7:00-09:00", "HH:MM-HH:MM"), ("daily 07:00-+9:00", "HH:MM-HH:MM")] {
            #expect(throws: NookQuietScheduleError.self, "\(text)") { try NookQuietSchedule.Range(parsing: text) }
            do { _ = try NookQuietSchedule.Range(parsing: text) } catch { #expect(error.description.contains(problem), "\(text): \(error)") }
        }
    }

    @Test func z1_onOffAndUntilOverTheSchedule() throws {
        let clock = ManualClock()
        let quiet = NookQuietHours(schedule: NookQuietSchedule([try .init(parsing: "daily 22:00-07:00")]),
                                   localTime: localTime(of: clock, from: at(0, 21, 0)))
        #expect(quiet.status() == .init(quiet: false, source: nil, until: at(0, 22, 0), minimum: .high))
        quiet.set(.until(at(0, 21, 30)))
        #expect(quiet.status() == .init(quiet: true, source: .manual, until: at(0, 21, 30), minimum: .high))
        clock.advance(by: .seconds(30 * 60))
        #expect(!quiet.isQuiet, "the manual period ran out")
        clock.advance(by: .seconds(30 * 60))
        #expect(quiet.status() == .init(quiet: true, source: .schedule, until: at(1, 7, 0), minimum: .high))
        quiet.turnOff()
        #expect(quiet.status() == .init(quiet: false, source: .manual, until: at(1, 7, 0), minimum: .high), "off for the rest of tonight")
        clock.advance(by: .seconds(24 * 3600))
        #expect(quiet.status().source == .schedule, "the next night is quiet again")
        quiet.set(.on)
        clock.advance(by: .seconds(12 * 3600))
        #expect(quiet.status() == .init(quiet: true, source: .manual, until: nil, minimum: .high), "on holds past the schedule")
        quiet.set(nil)
        #expect(!quiet.isQuiet)
    }

    @Test func z1_whileQuietOnlyHighTakesTheGlassAndTheRestWaitUntilTheEnd() async throws {
        let harness = await QueueHarness()
        let quiet = NookQuietHours(schedule: NookQuietSchedule([try .init(parsing: "daily 22:00-07:00")]),
                                   localTime: localTime(of: harness.clock, from: at(1, 6, 59)))
        harness.arbiter.setGate { quiet.admits($0) }
        let normal = activity("Backup complete")
        let doorbell = activity("Doorbell", .high)
        await harness.queue.enqueue(normal)
        await harness.clock.waitForSleepers()
        #expect(await harness.queue.snapshot().parkReason == .denied(.quiet))
        #expect(harness.recorder.kinds(of: normal.id) == [.enqueued])
        await harness.queue.enqueue(doorbell)
        // The parked drain sees the high on its next poll.
        harness.clock.advance(by: .milliseconds(200))
        try await harness.runToEnd(doorbell.id)
        #expect(harness.recorder.kinds(of: normal.id) == [.enqueued], "normal still waits")
        // 07:00: quiet ends, the normal shows within a poll.
        await harness.clock.waitForSleepers()
        harness.clock.advance(by: .seconds(60))
        try await harness.runToEnd(normal.id)
    }

    @Test func z1_aBlockerAlreadyShowingIsKeptWhenQuietBegins() async throws {
        let harness = await QueueHarness()
        let quiet = NookQuietHours(localTime: localTime(of: harness.clock, from: at(0, 12, 0)))
        harness.arbiter.setGate { quiet.admits($0) }
        let alarm = activity("Alarm", presentation: .blocker(timeout: nil))
        try await harness.enqueueAndPresentFirst(alarm)
        quiet.set(.on)
        let later = activity("Later")
        await harness.queue.enqueue(later)
        harness.clock.advance(by: .seconds(600))
        #expect(await harness.queue.current?.id == alarm.id, "the blocker stays on the glass")
        #expect(harness.recorder.kinds(of: alarm.id) == [.enqueued, .animateIn, .presented])
        await harness.queue.dismissing(alarm.id)
        try await harness.recorder.next(.animateOut, of: alarm.id)
        harness.clock.advance(by: alarm.transition)
        try await harness.recorder.next(.hidden(.dismissed), of: alarm.id)
        harness.clock.advance(by: .seconds(1))
        await harness.clock.waitForSleepers()
        #expect(harness.recorder.kinds(of: later.id) == [.enqueued], "what came after waits")
    }

    @Test func z1_prioritiesConfiguredToBeSuppressedEndAsSuppressed() async throws {
        let harness = await QueueHarness()
        let quiet = NookQuietHours(policy: .init(minimum: .high, suppressed: [.low]), localTime: localTime(of: harness.clock, from: at(0, 12, 0)))
        harness.arbiter.setGate { quiet.admits($0) }
        quiet.set(.on)
        let low = activity("Weather", .low)
        let normal = activity("Mail")
        await harness.queue.enqueue(low)
        await harness.queue.enqueue(normal)
        let ended = await harness.queue.suppressPending { quiet.suppresses($0.priority) }
        #expect(ended == [low.id])
        try await harness.recorder.waitForKinds(of: low.id, [.enqueued, .rejected(.suppressed)])
        #expect(await harness.queue.pending.map(\.id) == [normal.id], "normal waits (its policy)")
        quiet.set(nil)
        #expect(!quiet.suppresses(.low), "nothing is suppressed when not quiet")
    }
}
