import NookActivities
import NookTestSupport
import Testing

@Suite("Q2 Q3 Q4 Q5 order, no preemption, coalescing, cancel")
struct OrderingTests {
    @Test func q2_highestPriorityFirstThenFIFOWithinAClass() async throws {
        let harness = await QueueHarness(bind: false)
        let n1 = activity("n1"), l1 = activity("l1", .low), h1 = activity("h1", .high)
        let n2 = activity("n2"), h2 = activity("h2", .high), l2 = activity("l2", .low)
        for item in [n1, l1, h1, n2, h2, l2] { await harness.queue.enqueue(item) }
        #expect(await harness.queue.pending.map(\.title) == ["h1", "h2", "n1", "n2", "l1", "l2"])

        await harness.queue.bind(to: harness.arbiter, moduleID: "main")
        for item in [h1, h2, n1, n2, l1, l2] {
            try await harness.runToEnd(item.id)
            harness.passEndDelay()
        }
        let shownOrder = harness.recorder.events.filter { $0.kind == .animateIn }.map(\.id)
        #expect(shownOrder == [h1, h2, n1, n2, l1, l2].map(\.id))
    }

    @Test func q2_normalEnqueuedFirstShowsFirstEvenIfAnotherArrivesDuringItsDwell() async throws {
        let harness = await QueueHarness()
        let first = activity("first"), second = activity("second"), third = activity("third")
        await harness.queue.enqueue(first)
        try await harness.recorder.next(.animateIn, of: first.id)
        await harness.queue.enqueue(second)
        await harness.queue.enqueue(third)
        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.presented, of: first.id)
        harness.clock.advance(by: .milliseconds(2400))
        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.hidden(.completed), of: first.id)
        harness.passEndDelay()
        try await harness.runToEnd(second.id)
        harness.passEndDelay()
        try await harness.runToEnd(third.id)
    }

    @Test func q3_highArrivingDuringDwellWaitsForTheActivityOnScreen() async throws {
        let harness = await QueueHarness()
        let normal = activity("normal")
        await harness.queue.enqueue(normal)
        let shown = try await harness.recorder.next(.animateIn, of: normal.id)
        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.presented, of: normal.id)
        harness.clock.advance(by: .milliseconds(1000))
        let urgent = activity("urgent", .high)
        await harness.queue.enqueue(urgent)
        #expect(await harness.queue.current?.id == normal.id)
        harness.clock.advance(by: .milliseconds(1400))
        let out = try await harness.recorder.next(.animateOut, of: normal.id)
        #expect(out.at == shown.at + .milliseconds(250 + 2400), "the normal activity kept its full dwell")
        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.hidden(.completed), of: normal.id)
        harness.passEndDelay()
        try await harness.runToEnd(urgent.id)
    }

    @Test func q4_enqueueWithAKeyReplacesThePendingPeer() async throws {
        let harness = await QueueHarness(bind: false)
        let old = activity("Build 1", key: "build")
        let other = activity("Backup")
        let new = activity("Build 2", key: "build")
        await harness.queue.enqueue(old)
        await harness.queue.enqueue(other)
        await harness.queue.enqueue(new)
        #expect(await harness.queue.pending.map(\.title) == ["Backup", "Build 2"])
        try await harness.recorder.waitForKinds(of: old.id, [.enqueued, .rejected(.coalesced)])
    }

    @Test func q4_nilKeyNeverCoalesces() async throws {
        let harness = await QueueHarness(bind: false)
        for title in ["a", "b", "c"] { await harness.queue.enqueue(activity(title)) }
        #expect(await harness.queue.pendingCount == 3)
    }

    @Test func q4_coalescingWhileAPeerIsOnScreenLeavesItAloneAndTheNewestFollows() async throws {
        let harness = await QueueHarness()
        let onScreen = activity("Build 1", key: "build")
        await harness.queue.enqueue(onScreen)
        try await harness.recorder.next(.animateIn, of: onScreen.id)
        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.presented, of: onScreen.id)

        let second = activity("Build 2", key: "build")
        let third = activity("Build 3", key: "build")
        await harness.queue.enqueue(second)
        await harness.queue.enqueue(third)
        #expect(await harness.queue.current?.id == onScreen.id)
        #expect(await harness.queue.pending.map(\.id) == [third.id])
        try await harness.recorder.waitForKinds(of: second.id, [.enqueued, .rejected(.coalesced)])

        harness.clock.advance(by: .milliseconds(2400))
        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.hidden(.completed), of: onScreen.id)
        harness.passEndDelay()
        try await harness.runToEnd(third.id)
        #expect(harness.recorder.kinds(of: onScreen.id).last == .hidden(.completed))
    }

    @Test func q4_cancelAllByKeyRemovesPendingWithoutReplacement() async throws {
        let harness = await QueueHarness(bind: false)
        let build = activity("Build", key: "build")
        let backup = activity("Backup", key: "backup")
        await harness.queue.enqueue(build)
        await harness.queue.enqueue(backup)
        #expect(await harness.queue.cancelAll(coalescingKey: "build") == 1)
        #expect(await harness.queue.cancelAll(coalescingKey: "nothing") == 0)
        #expect(await harness.queue.pending.map(\.id) == [backup.id])
        try await harness.recorder.waitForKinds(of: build.id, [.enqueued, .rejected(.cancelled)])
    }

    @Test func q5_cancelRemovesAPendingActivityAndReportsWhetherItFoundIt() async throws {
        let harness = await QueueHarness(bind: false)
        let a = activity("a"), b = activity("b")
        await harness.queue.enqueue(a)
        await harness.queue.enqueue(b)
        #expect(await harness.queue.cancel(a.id))
        #expect(await !harness.queue.cancel(a.id), "already gone")
        #expect(await !harness.queue.cancel(NookActivityID()))
        #expect(await harness.queue.pending.map(\.id) == [b.id])
        try await harness.recorder.waitForKinds(of: a.id, [.enqueued, .rejected(.cancelled)])
    }

    @Test func q5_cancelOnScreenEndsThroughTheNormalPathAndReleasesTheClaim() async throws {
        let harness = await QueueHarness()
        let shown = activity("shown"), next = activity("next")
        let presented = try await harness.enqueueAndPresentFirst(shown, next)
        harness.clock.advance(by: .milliseconds(500))
        #expect(harness.arbiter.currentGrant != nil)

        #expect(await harness.queue.cancel(shown.id))
        let out = try await harness.recorder.next(.animateOut, of: shown.id)
        #expect(out.at == presented.at + .milliseconds(500), "ends at once, not after the dwell")
        #expect(harness.arbiter.currentGrant != nil, "claim held through animate-out")
        harness.clock.advance(by: .milliseconds(250))
        try await harness.recorder.next(.hidden(.cancelled), of: shown.id)
        try await harness.recorder.waitForKinds(of: shown.id, [.enqueued, .animateIn, .presented, .animateOut, .hidden(.cancelled)])
        harness.passEndDelay()
        try await harness.runToEnd(next.id)
        #expect(harness.arbiter.currentGrant == nil, "every claim released")
    }
}
