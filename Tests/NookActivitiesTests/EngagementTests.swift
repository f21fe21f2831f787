import NookActivities
import NookTestSupport
import Testing

@Suite("Q6 yield to the user")
struct EngagementTests {
    @Test func q6_parksWhileEngagedPollingEvery200msAndShowsWithinOnePollAfter() async throws {
        // An input that does not notify: only the 200 ms poll can notice the change.
        let engagement = ScriptedEngagement(engaged: true, notifiesChanges: false)
        let harness = await QueueHarness(engagement: engagement)
        let waiting = activity("waiting")
        await harness.queue.enqueue(waiting)

        for tick in 1...5 {
            await harness.clock.waitForSleepers()
            let readsBefore = engagement.reads
            harness.clock.advance(by: .milliseconds(200))
            await harness.clock.waitForSleepers()
            #expect(engagement.reads > readsBefore, "engagement re-checked at poll tick \(tick)")
        }
        #expect(harness.arbiter.currentGrant == nil, "no claim is made while engaged")
        #expect(await harness.queue.snapshot().parkReason == .engaged)
        try await harness.recorder.waitForKinds(of: waiting.id, [.enqueued])

        await harness.clock.waitForSleepers()
        let disengagedAt = harness.clock.now + .milliseconds(70)
        harness.clock.advance(by: .milliseconds(70))
        engagement.set(engaged: false)
        harness.clock.advance(by: .milliseconds(130))
        let shown = try await harness.recorder.next(.animateIn, of: waiting.id)
        #expect(shown.at - disengagedAt <= .milliseconds(200), "within one poll interval")
    }

    @Test func q6_anEngagementChangeWakesTheQueueAtOnce() async throws {
        let engagement = NookEngagement()
        engagement.set(.open, active: true, input: "button")
        let clock = ManualClock()
        let arbiter = NookSurfaceArbiter(foreground: "main", clock: clock)
        let queue = NookActivityQueue(clock: clock, engagement: engagement)
        let recorder = EventRecorder(queue.events())
        await queue.bind(to: arbiter)
        let item = activity("item")
        await queue.enqueue(item)
        await clock.waitForSleepers()
        try await recorder.waitForKinds(of: item.id, [.enqueued])

        engagement.set(.open, active: false, input: "button")
        let shown = try await recorder.next(.animateIn, of: item.id)
        #expect(shown.at == .origin, "shown without waiting for the poll")
    }

    @Test func q6_engagementStartingMidDwellDoesNotInterruptButHoldsTheNext() async throws {
        let engagement = ScriptedEngagement()
        let harness = await QueueHarness(engagement: engagement)
        let first = activity("first"), second = activity("second")
        let presented = try await harness.enqueueAndPresentFirst(first, second)
        harness.clock.advance(by: .milliseconds(1000))
        engagement.set(engaged: true)

        harness.clock.advance(by: .milliseconds(1400))
        let out = try await harness.recorder.next(.animateOut, of: first.id)
        #expect(out.at == presented.at + .milliseconds(2400), "first finishes its full dwell")
        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.hidden(.completed), of: first.id)
        harness.passEndDelay()

        for _ in 0..<10 {
            await harness.clock.waitForSleepers()
            harness.clock.advance(by: .milliseconds(200))
        }
        #expect(await harness.queue.current == nil)
        try await harness.recorder.waitForKinds(of: second.id, [.enqueued])

        await harness.clock.waitForSleepers()
        let disengagedAt = harness.clock.now
        engagement.set(engaged: false)
        let shown = try await harness.recorder.next(.animateIn, of: second.id)
        #expect(shown.at - disengagedAt <= .milliseconds(200))
    }

    @Test func q6_hoverOrOpenFromAnyInputEngages() {
        let engagement = NookEngagement()
        #expect(!engagement.isEngaged)
        engagement.set(.hover, active: true, input: "prox")
        #expect(engagement.isEngaged && engagement.isHovering && !engagement.isOpen)
        engagement.set(.open, active: true, input: "button")
        engagement.set(.hover, active: false, input: "prox")
        #expect(engagement.isEngaged && engagement.isOpen)
        engagement.set(.open, active: false, input: "button")
        #expect(!engagement.isEngaged)
        #expect(engagement.inputs.map(\.input) == ["prox", "button"])
    }

    /// Z3: a PIR or a proximity sensor's farther threshold says someone is in the room; that
    /// must not make the queue yield (only hover and open do), but any input counts as presence.
    @Test func z3_aPresenceInputIsPresenceNotEngagement() {
        let engagement = NookEngagement()
        let presence = Locked<[Bool]>([])
        let engaged = Locked<[Bool]>([])
        let observations = [engagement.observePresence { value in presence.withLock { $0.append(value) } },
                            engagement.observe { value in engaged.withLock { $0.append(value) } }]
        #expect(!engagement.hasPresenceInput)
        engagement.set(.presence, active: true, input: "gpio:pir")
        #expect(engagement.hasPresenceInput && engagement.isPresent && !engagement.isEngaged)
        engagement.set(.hover, active: true, input: "proximity:x")
        engagement.set(.presence, active: false, input: "gpio:pir")
        #expect(engagement.isPresent && engagement.isEngaged, "a hand at the nook is someone in the room")
        engagement.set(.hover, active: false, input: "proximity:x")
        engagement.set(.presence, active: true, input: "gpio:pir", problem: "line gone")
        #expect(!engagement.isPresent, "an input with a problem reports nobody")
        #expect(presence.withLock { $0 } == [true, false])
        #expect(engaged.withLock { $0 } == [true, false])
        observations.forEach { $0.cancel() }
    }
}
