import NookActivities
import NookTestSupport
import Testing

@Suite("U1 update in place")
struct UpdateTests {
    @Test func u1_updateWhilePendingKeepsItsFIFOPlace() async throws {
        let harness = await QueueHarness()
        let shown = activity("shown"), first = activity("first"), second = activity("second"), third = activity("third")
        try await harness.enqueueAndPresentFirst(shown, first, second, third)
        let update = try await harness.queue.update(second.id) { var changed = $0; changed.title = "second, changed"; return changed }
        #expect(!update.wasOnScreen)
        #expect(await harness.queue.pending.map(\.title) == ["first", "second, changed", "third"])
        let event = try await harness.recorder.next(.updated(previous: second), of: second.id)
        #expect(event.activity.title == "second, changed")
    }

    @Test func u1_aNewPriorityWhilePendingJoinsThatClassInEnqueueOrder() async throws {
        let harness = await QueueHarness()
        let shown = activity("shown"), early = activity("early", .high), normal = activity("normal"), late = activity("late", .high)
        try await harness.enqueueAndPresentFirst(shown, early, normal, late)
        try await harness.queue.update(normal.id) { var changed = $0; changed.priority = .high; return changed }
        #expect(await harness.queue.pending.map(\.title) == ["early", "normal", "late"])
        try await harness.queue.update(normal.id) { var changed = $0; changed.priority = .low; return changed }
        #expect(await harness.queue.pending.map(\.title) == ["early", "late", "normal"])
    }

    @Test func u1_anActivitySlidingOutToEndIsNotUpdatedButReportedEnded() async throws {
        let harness = await QueueHarness()
        var card = activity("Download", dwell: .seconds(3))
        card.coalescingKey = "download"
        try await harness.enqueueAndPresentFirst(card)
        #expect(await harness.queue.live(withKey: "download") == [card.id])
        harness.clock.advance(by: .seconds(3))
        try await harness.recorder.next(.animateOut, of: card.id)
        await #expect(throws: NookUpdateError.notFound(card.id)) {
            try await harness.queue.update(card.id, restartDwell: true) { var changed = $0; changed.title = "Download, changed"; return changed }
        }
        #expect(await harness.queue.live(withKey: "download").isEmpty, "nothing left to update by key")
        harness.clock.advance(by: card.transition)
        let hidden = try await harness.recorder.next(.hidden(.completed), of: card.id)
        #expect(hidden.activity.title == "Download")
        #expect(!harness.recorder.kinds(of: card.id).contains(.updated(previous: card)))
    }

    @Test func u1_updateOnScreenEmitsUpdatedWithoutReanimationAndTheDwellKeepsRunning() async throws {
        let harness = await QueueHarness()
        let card = activity("Download", dwell: .seconds(3))
        let presented = try await harness.enqueueAndPresentFirst(card)
        harness.clock.advance(by: .seconds(1))
        var progress = card
        progress.progress = 0.4
        let updated = progress
        let update = try await harness.queue.update(card.id) { _ in updated }
        #expect(update.wasOnScreen)
        try await harness.recorder.next(.updated(previous: card), of: card.id)
        #expect(await harness.queue.current?.progress == 0.4)
        harness.clock.advance(by: .seconds(2))
        let out = try await harness.recorder.next(.animateOut, of: card.id)
        #expect(out.at == presented.at + .seconds(3), "the dwell was not restarted")
        #expect(out.activity.progress == 0.4)
        harness.clock.advance(by: card.transition)
        let hidden = try await harness.recorder.next(.hidden(.completed), of: card.id)
        #expect(hidden.activity.progress == 0.4)
        #expect(harness.recorder.kinds(of: card.id) == [.enqueued, .animateIn, .presented, .updated(previous: card), .animateOut, .hidden(.completed)],
                "no second animate-in or out")
    }

    @Test func u1_restartDwellCountsTheDwellFromTheUpdate() async throws {
        let harness = await QueueHarness()
        let card = activity("Build", dwell: .seconds(3))
        try await harness.enqueueAndPresentFirst(card)
        harness.clock.advance(by: .seconds(2))
        let restartedAt = harness.clock.now
        try await harness.queue.update(card.id, restartDwell: true) { var changed = $0; changed.subtitle = "stage 2"; return changed }
        try await harness.recorder.waitFor("updated") { $0.kind.name == "updated" }
        harness.clock.advance(by: .seconds(2))
        await harness.clock.waitForSleepers()
        #expect(await harness.queue.snapshot().currentPhase == .presented, "3 s from the update have not passed")
        harness.clock.advance(by: .seconds(1))
        let out = try await harness.recorder.next(.animateOut, of: card.id)
        #expect(out.at == restartedAt + .seconds(3))
    }

    @Test func u1_aChangedDwellCountsFromWhenTheCardWasPresented() async throws {
        let harness = await QueueHarness()
        let card = activity("Build", dwell: .seconds(10))
        let presented = try await harness.enqueueAndPresentFirst(card)
        harness.clock.advance(by: .seconds(1))
        try await harness.queue.update(card.id) { var changed = $0; changed.dwell = .seconds(4); return changed }
        harness.clock.advance(by: .seconds(3))
        let out = try await harness.recorder.next(.animateOut, of: card.id)
        #expect(out.at == presented.at + .seconds(4))
    }

    @Test func u1_aBlockerBecomesTimedAndEndsOnItsOwnAfterItsDwellFromNow() async throws {
        let harness = await QueueHarness()
        let blocker = activity("Downloading", presentation: .blocker(timeout: nil))
        try await harness.enqueueAndPresentFirst(blocker)
        harness.clock.advance(by: .seconds(60))
        let turnedAt = harness.clock.now
        try await harness.queue.update(blocker.id) { current in
            var result = current
            result.title = "Download complete"
            result.presentation = .timed
            result.dwell = .seconds(3)
            return result
        }
        harness.clock.advance(by: .seconds(3))
        let out = try await harness.recorder.next(.animateOut, of: blocker.id)
        #expect(out.at == turnedAt + .seconds(3))
        harness.clock.advance(by: blocker.transition)
        let hidden = try await harness.recorder.next(.hidden(.completed), of: blocker.id)
        #expect(hidden.activity.title == "Download complete")
    }

    @Test func u1_updatingAnEndedUnknownOrInvalidActivityIsAnErrorAndChangesNothing() async throws {
        let harness = await QueueHarness()
        let card = activity("card", dwell: .seconds(1)), waiting = activity("waiting")
        await harness.queue.enqueue(card)
        await harness.queue.enqueue(waiting)
        try await harness.runToEnd(card.id, dwell: .seconds(1))
        await #expect(throws: NookUpdateError.notFound(card.id)) {
            try await harness.queue.update(card.id) { $0 }
        }
        let unknown = NookActivityID()
        await #expect(throws: NookUpdateError.notFound(unknown)) {
            try await harness.queue.update(unknown) { $0 }
        }
        await #expect(throws: NookUpdateError.invalid(NookActivityValidationError(field: "title", problem: "must not be empty"))) {
            try await harness.queue.update(waiting.id) { var changed = $0; changed.title = ""; return changed }
        }
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await harness.queue.update(waiting.id) { _ in throw Refused() }
        }
        #expect(await harness.queue.activity(waiting.id) == waiting)
        #expect(!harness.recorder.kinds(of: waiting.id).contains { $0.name == "updated" })
    }

    @Test func u1_anUpdateCannotChangeTheIdOrTheSender() async throws {
        let harness = await QueueHarness(bind: false)
        var sent = activity("sent")
        sent.sender = NookSender(uid: 1000, pid: 42, name: "build")
        await harness.queue.enqueue(sent)
        let update = try await harness.queue.update(sent.id) { current in
            var changed = current
            changed.id = NookActivityID()
            changed.sender = NookSender(uid: 0, pid: 1)
            changed.title = "changed"
            return changed
        }
        #expect(update.activity.id == sent.id)
        #expect(update.activity.sender == sent.sender)
    }

    @Test func q4_u1_coalescingStillLeavesAnUpdatedCardOnScreenAlone() async throws {
        let harness = await QueueHarness()
        let shown = activity("40 %", key: "dl", dwell: .seconds(5))
        try await harness.enqueueAndPresentFirst(shown)
        try await harness.queue.update(shown.id) { var changed = $0; changed.title = "70 %"; return changed }
        let next = activity("next", key: "dl")
        await harness.queue.enqueue(next)
        #expect(await harness.queue.current?.title == "70 %")
        #expect(await harness.queue.pending.map(\.id) == [next.id])
        #expect(await harness.queue.live(withKey: "dl") == [shown.id, next.id])
    }

    @Test func u1_aPendingActivityTakingAnotherPendingOnesKeyCoalescesIt() async throws {
        let harness = await QueueHarness()
        let shown = activity("shown"), keyed = activity("keyed", key: "k"), other = activity("other")
        try await harness.enqueueAndPresentFirst(shown, keyed, other)
        try await harness.queue.update(other.id) { var changed = $0; changed.coalescingKey = "k"; return changed }
        try await harness.recorder.next(.rejected(.coalesced), of: keyed.id)
        #expect(await harness.queue.pending.map(\.id) == [other.id])
        #expect(await harness.queue.live(withKey: "k") == [other.id])
    }

    @Test func q17_u1_aShorterExpiryWhilePendingCountsFromTheEnqueue() async throws {
        let harness = await QueueHarness()
        let shown = activity("shown", dwell: .seconds(30)), waiting = activity("waiting", expiresAfter: .seconds(60))
        try await harness.enqueueAndPresentFirst(shown, waiting)
        harness.clock.advance(by: .seconds(10))
        try await harness.queue.update(waiting.id) { var changed = $0; changed.expiresAfter = .seconds(5); return changed }
        try await harness.recorder.next(.rejected(.expired), of: waiting.id)
        #expect(await harness.queue.pending.isEmpty)
    }
}
