import Dispatch
import NookActivities
import NookTestSupport
import Synchronization
import Testing

@Suite("Q12 Q13 Q14 observable state, lifecycle events, blockers")
struct LifecycleTests {
    @Test func q12_snapshotShowsCurrentPendingSuspensionAndModule() async throws {
        let harness = await QueueHarness()
        let shown = activity("shown"), high = activity("high", .high), low = activity("low", .low)
        await harness.queue.enqueue(shown)
        try await harness.recorder.next(.animateIn, of: shown.id)
        await harness.queue.enqueue(low)
        await harness.queue.enqueue(high)
        var snapshot = await harness.queue.snapshot()
        #expect(snapshot.current?.id == shown.id)
        #expect(snapshot.currentPhase == .animateIn)
        #expect(snapshot.pending.map(\.id) == [high.id, low.id])
        #expect(snapshot.module == "main")
        #expect(!snapshot.isSuspended)
        #expect(snapshot.capacity == 256)
        #expect(harness.arbiter.foregroundModule == "main")

        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.presented, of: shown.id)
        await harness.queue.suspend()
        snapshot = await harness.queue.snapshot()
        #expect(snapshot.currentPhase == .presented)
        #expect(snapshot.isSuspended)
        #expect(await harness.queue.current?.id == shown.id)
    }

    @Test func q13_eventsArriveInOrderWithTheirTimesToEverySubscriber() async throws {
        let harness = await QueueHarness()
        let second = EventRecorder(harness.queue.events())
        let item = activity("item", dwell: .seconds(3))
        await harness.queue.enqueue(item)
        try await harness.runToEnd(item.id, dwell: .seconds(3))
        try await second.waitFor("hidden on the second subscriber") { $0.kind == .hidden(.completed) }

        let expected: [NookActivityEvent.Kind] = [.enqueued, .animateIn, .presented, .animateOut, .hidden(.completed)]
        #expect(harness.recorder.kinds(of: item.id) == expected)
        #expect(second.kinds(of: item.id) == expected)
        #expect(second.events.map(\.at.sinceOrigin) == [.zero, .zero, .milliseconds(250), .milliseconds(3250), .milliseconds(3500)])
    }

    @Test func q13_aSubscriberCanAskForSomeEventsOnlyAndGetsThoseInOrder() async throws {
        let harness = await QueueHarness()
        let drawn = EventRecorder(harness.queue.events(where: { event in
            switch event.kind {
            case .enqueued, .rejected: false
            default: true
            }
        }))
        let item = activity("item", dwell: .seconds(1)), replaced = activity("old", key: "k"), newer = activity("new", key: "k")
        await harness.queue.enqueue(item)
        await harness.queue.enqueue(replaced)
        await harness.queue.enqueue(newer)
        try await harness.runToEnd(item.id, dwell: .seconds(1))
        try await drawn.waitFor("hidden of the first") { $0.kind == .hidden(.completed) }
        try await harness.recorder.waitForKinds(of: replaced.id, [.enqueued, .rejected(.coalesced)])
        #expect(drawn.kinds(of: item.id) == [.animateIn, .presented, .animateOut, .hidden(.completed)])
        #expect(drawn.kinds(of: replaced.id).isEmpty, "enqueued and rejected were not asked for")
        #expect(harness.recorder.kinds(of: item.id).first == .enqueued, "other subscribers still get every event")
    }

    @Test func q13_transitionAndEndDelayArePerActivity() async throws {
        let harness = await QueueHarness()
        var quick = activity("quick", dwell: .seconds(1))
        quick.transition = .milliseconds(100)
        quick.endDelay = .milliseconds(500)
        let next = activity("next")
        await harness.queue.enqueue(quick)
        await harness.queue.enqueue(next)
        let hiddenAt = try await harness.runToEnd(quick.id, dwell: .seconds(1), transition: .milliseconds(100))
        #expect(hiddenAt.sinceOrigin == .milliseconds(1200))
        harness.clock.advance(by: .milliseconds(499))
        await harness.clock.waitForSleepers()
        try await harness.recorder.waitForKinds(of: next.id, [.enqueued])
        harness.clock.advance(by: .milliseconds(1))
        let shown = try await harness.recorder.next(.animateIn, of: next.id)
        #expect(shown.at.sinceOrigin == .milliseconds(1700))
    }

    @Test func q13_aSubscriberThatStopsListeningDoesNotDisturbOthers() async throws {
        let harness = await QueueHarness(bind: false)
        do {
            var iterator = harness.queue.events().makeAsyncIterator()
            await harness.queue.enqueue(activity("one"))
            _ = await iterator.next()
        }
        await harness.queue.enqueue(activity("two"))
        try await harness.recorder.waitUntil("two enqueued events") { events, _ in events.count == 2 }
    }

    @Test func q14_aBlockerStaysUntilDismissedAndStatusShowsIt() async throws {
        let harness = await QueueHarness()
        let blocker = activity("Door open", presentation: .blocker(timeout: nil))
        let next = activity("next")
        try await harness.enqueueAndPresentFirst(blocker, next)
        harness.clock.advance(by: .seconds(3600))
        #expect(await harness.queue.snapshot().blockingActivity?.id == blocker.id)
        try await harness.recorder.waitForKinds(of: next.id, [.enqueued])

        #expect(await harness.queue.dismissing(blocker.id) != .notFound)
        try await harness.recorder.next(.animateOut, of: blocker.id)
        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.hidden(.dismissed), of: blocker.id)
        harness.passEndDelay()
        try await harness.runToEnd(next.id)
    }

    @Test func q14_aBlockerWithATimeoutEndsWhenItRunsOut() async throws {
        let harness = await QueueHarness()
        let blocker = activity("Leak?", presentation: .blocker(timeout: .seconds(30)))
        await harness.queue.enqueue(blocker)
        try await harness.recorder.next(.animateIn, of: blocker.id)
        harness.clock.advance(by: .milliseconds(250))
        let presented = try await harness.recorder.next(.presented, of: blocker.id)
        harness.clock.advance(by: .seconds(30))
        let out = try await harness.recorder.next(.animateOut, of: blocker.id)
        #expect(out.at == presented.at + .seconds(30))
        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.hidden(.timedOut), of: blocker.id)
    }

    @Test func q14_aBlockerDismissedWhilePendingIsSkipped() async throws {
        let harness = await QueueHarness(bind: false)
        let blocker = activity("not needed", presentation: .blocker(timeout: nil))
        let after = activity("after")
        await harness.queue.enqueue(blocker)
        await harness.queue.enqueue(after)
        #expect(await harness.queue.dismissing(blocker.id) != .notFound)
        try await harness.recorder.waitForKinds(of: blocker.id, [.enqueued, .rejected(.dismissed)])
        await harness.queue.bind(to: harness.arbiter, moduleID: "main")
        try await harness.runToEnd(after.id)
        #expect(!harness.recorder.kinds(of: blocker.id).contains(.animateIn))
    }

    @Test func q14_dismissFromAnotherThreadEndsTheBlocker() async throws {
        let harness = await QueueHarness()
        let blocker = activity("Doorbell", presentation: .blocker(timeout: nil))
        await harness.queue.enqueue(blocker)
        try await harness.recorder.next(.animateIn, of: blocker.id)
        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.presented, of: blocker.id)

        let queue = harness.queue
        DispatchQueue.global().async { queue.requestDismissCurrent() }
        try await harness.recorder.next(.animateOut, of: blocker.id)
        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.hidden(.dismissed), of: blocker.id)
    }
}
