import NookActivities
import NookTestSupport
import Testing

@Suite("Q7, Q8, Q15 suspend, quiesce, display gone")
struct SuspendQuiesceTests {
    @Test func q7_suspendMidDwellLetsItFinishKeepsPendingAndResumeDrains() async throws {
        let harness = await QueueHarness()
        let shown = activity("shown"), waiting = activity("waiting")
        let presented = try await harness.enqueueAndPresentFirst(shown, waiting)
        harness.clock.advance(by: .milliseconds(800))

        await harness.queue.suspend()
        #expect(await harness.queue.isSuspended)
        harness.clock.advance(by: .milliseconds(1600))
        let out = try await harness.recorder.next(.animateOut, of: shown.id)
        #expect(out.at == presented.at + .milliseconds(2400), "the dwell is not cut short")
        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.hidden(.completed), of: shown.id)
        #expect(harness.arbiter.currentGrant == nil, "claim released normally")

        harness.clock.advance(by: .seconds(60))
        #expect(await harness.queue.current == nil)
        try await harness.recorder.waitForKinds(of: waiting.id, [.enqueued])
        #expect(await harness.queue.pending.map(\.id) == [waiting.id])

        await harness.queue.resume()
        #expect(await !harness.queue.isSuspended)
        try await harness.runToEnd(waiting.id)
    }

    @Test func q7_suspendWhileParkedStopsThePoll() async throws {
        let engagement = ScriptedEngagement(engaged: true)
        let harness = await QueueHarness(engagement: engagement)
        await harness.queue.enqueue(activity("parked"))
        await harness.clock.waitForSleepers()
        await harness.queue.suspend()
        await harness.queue.quiesce()
        #expect(harness.clock.sleeperCount == 0, "the parked poll exited")
        #expect(await harness.queue.pendingCount == 1)
    }

    @Test func q8_quiesceEndsThePresentationReleasesTheClaimAndRequeues() async throws {
        let harness = await QueueHarness()
        let shown = activity("shown")
        await harness.queue.enqueue(shown)
        try await harness.recorder.next(.animateIn, of: shown.id)
        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.presented, of: shown.id)

        async let quiesced: Void = harness.queue.quiesce()
        try await harness.recorder.next(.animateOut, of: shown.id)
        harness.clock.advance(by: .milliseconds(250))
        await quiesced
        #expect(harness.arbiter.currentGrant == nil)
        #expect(await harness.queue.current == nil)
        #expect(await harness.queue.isSuspended)
        #expect(await harness.queue.pending.map(\.id) == [shown.id], "interrupted, not lost")
        try await harness.recorder.waitFor("requeued") { $0.id == shown.id && $0.kind == .requeued }

        harness.clock.advance(by: .seconds(30))
        #expect(harness.arbiter.currentGrant == nil, "touches the surface no more until resume")
        #expect(harness.recorder.kinds(of: shown.id).last == .requeued)

        await harness.queue.resume()
        try await harness.runToEnd(shown.id)
    }

    /// A card sliding out to be put back (quiesce) and dismissed meanwhile: the dismiss was
    /// answered "dismissed", so it must end, not come back as `requeued` (found in review).
    @Test func q8_q14_aDismissDuringAnInterruptedSlideOutEndsTheCardInsteadOfRequeueingIt() async throws {
        let harness = await QueueHarness()
        let shown = activity("shown")
        await harness.queue.enqueue(shown)
        try await harness.recorder.next(.animateIn, of: shown.id)
        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.presented, of: shown.id)

        async let quiesced: Void = harness.queue.quiesce()
        try await harness.recorder.next(.animateOut, of: shown.id)
        #expect(await harness.queue.dismissing(shown.id) != .notFound)
        harness.clock.advance(by: .milliseconds(250))
        await quiesced
        try await harness.recorder.next(.hidden(.dismissed), of: shown.id)
        #expect(await harness.queue.pendingCount == 0, "not put back")
        #expect(!harness.recorder.kinds(of: shown.id).contains(.requeued))
    }

    @Test func q8_twoConcurrentQuiesceCallsBothReturnAfterTheUnwindAndItIsIdempotent() async throws {
        let harness = await QueueHarness()
        let shown = activity("shown")
        await harness.queue.enqueue(shown)
        try await harness.recorder.next(.animateIn, of: shown.id)

        let queue = harness.queue, arbiter = harness.arbiter
        async let first: Bool = { await queue.quiesce(); return arbiter.currentGrant == nil }()
        async let second: Bool = { await queue.quiesce(); return arbiter.currentGrant == nil }()
        try await harness.recorder.next(.animateOut, of: shown.id)
        harness.clock.advance(by: .milliseconds(250))
        let (firstSawRelease, secondSawRelease) = await (first, second)
        #expect(firstSawRelease && secondSawRelease)
        await queue.quiesce()
        await queue.quiesce()
        #expect(await queue.pending.map(\.id) == [shown.id])
    }

    @Test func q8_quiesceOnAnIdleQueueReturnsAtOnce() async {
        let harness = await QueueHarness()
        await harness.queue.quiesce()
        #expect(await harness.queue.isSuspended)
    }

    @Test func q15_displayGoneSuspendsAndItsReturnResumes() async throws {
        let harness = await QueueHarness()
        let shown = activity("shown"), waiting = activity("waiting")
        try await harness.enqueueAndPresentFirst(shown, waiting)

        await harness.queue.setDisplayAvailable(false)
        try await harness.recorder.next(.animateOut, of: shown.id)
        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.requeued, of: shown.id)
        harness.clock.advance(by: .seconds(30))
        #expect(harness.arbiter.currentGrant == nil, "nothing is shown to nobody")
        #expect(await harness.queue.pending.map(\.id) == [shown.id, waiting.id])
        #expect(await !harness.queue.isSuspended, "a display outage is not a user suspend")
        #expect(await !harness.queue.snapshot().isDisplayAvailable)

        await harness.queue.setDisplayAvailable(true)
        try await harness.runToEnd(shown.id)
        harness.passEndDelay()
        try await harness.runToEnd(waiting.id)
    }

    @Test func q15_displayReturningDoesNotOverrideAUserSuspend() async throws {
        let harness = await QueueHarness()
        await harness.queue.suspend()
        await harness.queue.setDisplayAvailable(false)
        await harness.queue.setDisplayAvailable(true)
        let item = activity("item")
        await harness.queue.enqueue(item)
        harness.clock.advance(by: .seconds(5))
        #expect(await harness.queue.current == nil)
        try await harness.recorder.waitForKinds(of: item.id, [.enqueued])
    }
}
