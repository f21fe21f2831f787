import Dispatch
import NookActivities
import NookTestSupport
import Testing

/// Duplicate ids, expiry with nobody looking, switch-away and a suspended queue,
/// a background `.high` behind back-to-back foreground cards, and requests from one thread.
@Suite("Q9 Q10 Q13 Q14 Q17: the queue when nobody is looking")
struct QueueWithNobodyLookingTests {
    // MARK: Duplicate ids (item 3)

    @Test func q13_aDuplicateIdIsRefusedWithNoEventForTheLiveActivity() async throws {
        let harness = await QueueHarness(bind: false)
        let original = activity("original")
        await harness.queue.enqueue(original)
        let duplicate = NookActivity(id: original.id, title: "duplicate")
        guard case .rejected(original.id, .invalid(let error)) = await harness.queue.enqueue(duplicate) else {
            Issue.record("a duplicate id must be refused")
            return
        }
        #expect(error.field == "id")
        // Invalid and a duplicate: still only the request is refused.
        let badDuplicate = NookActivity(id: original.id, title: "")
        #expect(!(await harness.queue.enqueue(badDuplicate)).isAccepted)
        // Events leave in order: once the marker's arrived, any event for the original has too.
        let marker = activity("marker")
        await harness.queue.enqueue(marker)
        try await harness.recorder.waitForKinds(of: marker.id, [.enqueued])
        #expect(harness.recorder.kinds(of: original.id) == [.enqueued], "the live activity's events are untouched")
        #expect(await harness.queue.pending.map(\.title) == ["original", "marker"])
    }

    @Test func q13_aDuplicateOfTheActivityOnScreenLeavesItsLifecycleAlone() async throws {
        let harness = await QueueHarness()
        let shown = activity("shown")
        try await harness.enqueueAndPresentFirst(shown)
        #expect(!(await harness.queue.enqueue(NookActivity(id: shown.id, title: "again"))).isAccepted)
        #expect(await harness.queue.current?.id == shown.id)
        harness.clock.advance(by: NookActivity.defaultDwell)
        try await harness.recorder.next(.animateOut, of: shown.id)
        harness.clock.advance(by: NookActivity.defaultTransition)
        try await harness.recorder.next(.hidden(.completed), of: shown.id)
        #expect(harness.recorder.kinds(of: shown.id) == [.enqueued, .animateIn, .presented, .animateOut, .hidden(.completed)])
    }

    // MARK: Expiry on a deadline (item 4)

    @Test func q17_expiresAtItsDeadlineWhileSuspended() async throws {
        let harness = await QueueHarness()
        await harness.queue.suspend()
        let stale = activity("stale", expiresAfter: .seconds(1))
        await harness.queue.enqueue(stale)
        harness.clock.advance(by: .seconds(1))
        // Nobody reads the queue: only the deadline can drop it.
        let expired = try await harness.recorder.next(.rejected(.expired), of: stale.id)
        #expect(expired.at == .origin + .seconds(1))
    }

    @Test func q17_expiresAtItsDeadlineWhileParkedOnEngagement() async throws {
        let harness = await QueueHarness(engagement: ScriptedEngagement(engaged: true))
        let stale = activity("stale", expiresAfter: .milliseconds(1100))
        await harness.queue.enqueue(stale)
        for _ in 0..<5 {
            await harness.clock.waitForSleepers()
            harness.clock.advance(by: .milliseconds(200))
        }
        // Between two polls (1.0 s and 1.2 s), once the drain has parked again.
        await harness.clock.waitForSleepers()
        harness.clock.advance(by: .milliseconds(100))
        let expired = try await harness.recorder.next(.rejected(.expired), of: stale.id)
        #expect(expired.at == .origin + .milliseconds(1100))
    }

    @Test func q17_expiresAtItsDeadlineWhileParkedOnADenial() async throws {
        let clock = ManualClock()
        let arbiter = NookSurfaceArbiter(foreground: "music", clock: clock)
        let queue = NookActivityQueue(clock: clock)
        let recorder = EventRecorder(queue.events())
        await queue.bind(to: arbiter, moduleID: "mail")
        let stale = activity("stale", expiresAfter: .milliseconds(300))
        await queue.enqueue(stale)
        await clock.waitForSleepers()
        clock.advance(by: .milliseconds(200))
        await clock.waitForSleepers()
        clock.advance(by: .milliseconds(100))
        let expired = try await recorder.next(.rejected(.expired), of: stale.id)
        #expect(expired.at == .origin + .milliseconds(300))
    }

    @Test func q17_expiresAtItsDeadlineWhileABlockerHoldsTheGlass() async throws {
        let harness = await QueueHarness()
        let blocker = activity("Door open", presentation: .blocker(timeout: nil))
        let stale = activity("stale", expiresAfter: .seconds(5))
        try await harness.enqueueAndPresentFirst(blocker, stale)
        harness.clock.advance(by: .seconds(5) - NookActivity.defaultTransition)
        let expired = try await harness.recorder.next(.rejected(.expired), of: stale.id)
        #expect(expired.at == .origin + .seconds(5))
        #expect(await harness.queue.current?.id == blocker.id, "the blocker is untouched")
    }

    @Test func q17_aCancelledActivityDoesNotExpireLaterAndTheNextDeadlineStillFires() async throws {
        let harness = await QueueHarness()
        await harness.queue.suspend()
        let first = activity("first", expiresAfter: .seconds(1))
        let second = activity("second", expiresAfter: .seconds(2))
        await harness.queue.enqueue(first)
        await harness.queue.enqueue(second)
        #expect(await harness.queue.cancel(first.id))
        harness.clock.advance(by: .seconds(2))
        let expired = try await harness.recorder.next(.rejected(.expired), of: second.id)
        #expect(expired.at == .origin + .seconds(2))
        #expect(harness.recorder.kinds(of: first.id) == [.enqueued, .rejected(.cancelled)])
    }

    // MARK: Ending a card that is already ending says so

    @Test func q14_dismissingACardAlreadySlidingOutSaysHowItEndsInstead() async throws {
        let harness = await QueueHarness()
        let card = activity("Build finished")
        let presented = try await harness.enqueueAndPresentFirst(card)
        harness.clock.advance(by: card.dwell)
        _ = try await harness.recorder.next(.animateOut, of: card.id)
        #expect(await harness.queue.dismissing(card.id) == .alreadyEnding(.completed))
        #expect(await harness.queue.cancelling(card.id) == .alreadyEnding(.completed))
        #expect(await harness.queue.dismissingCurrent()?.outcome == .alreadyEnding(.completed))
        harness.clock.advance(by: card.transition)
        let hidden = try await harness.recorder.next(.hidden(.completed), of: card.id)
        #expect(hidden.at == presented.at + card.dwell + card.transition)
        #expect(await harness.queue.dismissing(card.id) == .notFound)
    }

    @Test func q14_aSecondDismissOfTheCardOnScreenSaysTheFirstEndedIt() async throws {
        let harness = await QueueHarness()
        let card = activity("Doorbell", presentation: .blocker(timeout: nil))
        try await harness.enqueueAndPresentFirst(card)
        #expect(await harness.queue.dismissing(card.id) == .ends)
        #expect(await harness.queue.cancelling(card.id) == .alreadyEnding(.dismissed))
        _ = try await harness.recorder.next(.animateOut, of: card.id)
        harness.clock.advance(by: card.transition)
        _ = try await harness.recorder.next(.hidden(.dismissed), of: card.id)
    }

    /// U3: the owner check happens inside the queue's step that ends the activity; refused,
    /// nothing changes (a check before a separate end call could be raced by a re-enqueue).
    @Test func u3_anEndTheCheckRefusesChangesNothing() async throws {
        let harness = await QueueHarness()
        let shown = activity("Door open", presentation: .blocker(timeout: nil))
        let waiting = activity("Backup complete")
        try await harness.enqueueAndPresentFirst(shown, waiting)
        #expect(await harness.queue.cancelling(waiting.id, permits: { _ in false }) == .refused(waiting))
        #expect(await harness.queue.dismissing(shown.id, permits: { _ in false }) == .refused(shown))
        #expect(await harness.queue.dismissingCurrent(permits: { _ in false })?.outcome == .refused(shown))
        #expect(await harness.queue.holds(waiting.id))
        #expect(await harness.queue.holds(shown.id))
        #expect(await harness.queue.cancelling(waiting.id, permits: { $0.id == waiting.id }) == .ends)
        #expect(await harness.queue.dismissingCurrent(permits: { _ in true })?.outcome == .ends)
    }

    // MARK: Switch-away keeps a user's suspension (reading-only item)

    @Test func q10_switchingAwayFromASuspendedModuleLeavesItSuspended() async throws {
        let clock = ManualClock()
        let arbiter = NookSurfaceArbiter(foreground: "a", clock: clock)
        let queueA = NookActivityQueue(clock: clock), queueB = NookActivityQueue(clock: clock)
        arbiter.register(NookQueueModule(id: "a", queue: queueA))
        arbiter.register(NookQueueModule(id: "b", queue: queueB))
        await queueA.bind(to: arbiter, moduleID: "a")
        await queueB.bind(to: arbiter, moduleID: "b")
        await queueA.suspend()
        try await arbiter.switchForeground(to: "b")
        #expect(await queueA.isSuspended, "the user suspended it; a focus change must not resume it")
        try await arbiter.switchForeground(to: "a")
        #expect(await queueA.isSuspended)
        #expect(await !queueB.isSuspended, "a queue the user left running drains again in the background")
    }

    // MARK: A background high goes next (reading-only item)

    @Test func q9_aBackgroundHighGoesNextEvenWhenForegroundCardsHaveNoEndDelay() async throws {
        let clock = ManualClock()
        let arbiter = NookSurfaceArbiter(foreground: "fg", clock: clock)
        let foreground = NookActivityQueue(clock: clock), background = NookActivityQueue(clock: clock)
        let recorder = EventRecorder(merged(foreground.events(), background.events()))
        await foreground.bind(to: arbiter, moduleID: "fg")
        await background.bind(to: arbiter, moduleID: "bg")
        let normals = (1...3).map { NookActivity(title: "n\($0)", dwell: .seconds(1), endDelay: .zero) }
        for normal in normals { await foreground.enqueue(normal) }
        try await recorder.next(.animateIn, of: normals[0].id)
        let urgent = NookActivity(priority: .high, title: "urgent", dwell: .seconds(1))
        await background.enqueue(urgent)
        try await recorder.waitUntil("the background queue to park on the busy surface") { events, _ in
            events.contains { $0.id == urgent.id && $0.kind == .enqueued }
        }
        await clock.waitForSleepers(atLeast: 2)
        clock.advance(by: .milliseconds(250))
        try await recorder.next(.presented, of: normals[0].id)
        clock.advance(by: .seconds(1))
        try await recorder.next(.animateOut, of: normals[0].id)
        clock.advance(by: .milliseconds(250))
        try await recorder.next(.hidden(.completed), of: normals[0].id)
        // No time passes: whoever takes the glass next does so at once.
        try await recorder.waitUntil("the next card to animate in") { events, _ in
            events.contains { $0.kind == .animateIn && ($0.id == urgent.id || $0.id == normals[1].id) }
        }
        let next = recorder.events.first { $0.kind == .animateIn && ($0.id == urgent.id || $0.id == normals[1].id) }
        #expect(next?.activity.title == "urgent", "Q9: the background high goes next, not after every foreground normal")
    }

    @Test func q9_aClaimDeniedWhileTheGlassWasHeldGoesNextAndIsWokenOnRelease() throws {
        let arbiter = NookSurfaceArbiter(foreground: "fg", clock: ManualClock())
        guard case .granted(let first) = arbiter.claim(module: "fg", priority: .normal) else { throw Failure("fg normal") }
        let woken = Locked(0)
        #expect(arbiter.claim(module: "bg", priority: .high, whenFree: { woken.withLock { $0 += 1 } }) == .denied(.busy(holder: "fg")))
        arbiter.release(first)
        #expect(woken.withLock { $0 } == 1, "the waiting claim hears the glass is free")
        #expect(arbiter.claim(module: "fg", priority: .normal) == .denied(.promised(to: "bg")), "a fresh lower claim waits its turn")
        #expect(arbiter.claim(module: "fg", priority: .high) == .denied(.promised(to: "bg")), "an equal one that waited less, too")
        guard case .granted(let urgent) = arbiter.claim(module: "bg", priority: .high) else { throw Failure("bg high") }
        arbiter.release(urgent)
        guard case .granted = arbiter.claim(module: "fg", priority: .high) else { throw Failure("fg's turn after bg") }
    }

    @Test func q9_aWaitingClaimThatIsWithdrawnNoLongerHoldsOthersBack() throws {
        let arbiter = NookSurfaceArbiter(foreground: "fg", clock: ManualClock())
        guard case .granted(let first) = arbiter.claim(module: "fg", priority: .normal) else { throw Failure("fg normal") }
        #expect(arbiter.claim(module: "bg", priority: .high) == .denied(.busy(holder: "fg")))
        arbiter.release(first)
        let woken = Locked(0)
        #expect(arbiter.claim(module: "fg", priority: .normal, whenFree: { woken.withLock { $0 += 1 } }) == .denied(.promised(to: "bg")))
        arbiter.withdraw(module: "bg")
        #expect(woken.withLock { $0 } == 1, "whoever it held back may try again at once")
        guard case .granted = arbiter.claim(module: "fg", priority: .normal) else { throw Failure("fg after the withdrawal") }
    }

    @Test func q10_aSwitchForgetsWaitingClaims() async throws {
        let arbiter = NookSurfaceArbiter(foreground: "fg", clock: ManualClock())
        for module in ["fg", "bg", "next"] { arbiter.register(ScriptedModule(NookModuleID(module))) }
        guard case .granted = arbiter.claim(module: "fg", priority: .normal) else { throw Failure("fg normal") }
        #expect(arbiter.claim(module: "bg", priority: .high) == .denied(.busy(holder: "fg")))
        try await arbiter.switchForeground(to: "next")
        // bg's queue will claim again on its poll; until then its old wait holds nobody back.
        guard case .granted = arbiter.claim(module: "next", priority: .low) else { throw Failure("the new foreground claims the glass") }
    }

    // MARK: Requests from one thread apply in order (reading-only item)

    @Test func q14_requestsFromOneThreadApplyInTheOrderTheyWereMade() async throws {
        // Unstructured tasks reach the actor in whatever order the executor runs them, so a
        // misordering shows up only now and then: several rounds make it show.
        for round in 0..<40 {
            let harness = await QueueHarness(capacity: 1000, bind: false)
            let items = (0..<200).map { activity("r\(round) a\($0)") }
            for item in items { await harness.queue.enqueue(item) }
            let queue = harness.queue
            DispatchQueue.global().async {
                for (index, item) in items.enumerated() {
                    if index.isMultiple(of: 2) { queue.requestCancel(item.id) } else { queue.requestDismiss(item.id) }
                }
            }
            // One enqueued and one rejected event each.
            try await harness.recorder.waitUntil("every request to apply") { events, _ in events.count == 2 * items.count }
            let order = harness.recorder.events.filter { $0.kind != .enqueued }.map(\.activity.title)
            #expect(order == items.map(\.title), "round \(round): applied in the order the thread asked")
            if order != items.map(\.title) { return }
        }
    }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One stream of two queues' events (each queue's in its order).
func merged(_ first: AsyncStream<NookActivityEvent>, _ second: AsyncStream<NookActivityEvent>) -> AsyncStream<NookActivityEvent> {
    let (stream, continuation) = AsyncStream<NookActivityEvent>.makeStream()
    Task { for await event in first { continuation.yield(event) } }
    Task { for await event in second { continuation.yield(event) } }
    return stream
}
