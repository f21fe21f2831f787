import NookActivities
import NookTestSupport
import Testing

/// Q4 and U1 with senders (U3): a key reaches only the pending activities the caller may end,
/// and an update of several activities is all or nothing.
@Suite("Q4 U1 U3 keys per sender, updates all or nothing")
struct SenderScopeTests {
    static let alice = NookSender(uid: 1000, pid: 1), bob = NookSender(uid: 1001, pid: 2)

    func card(_ title: String, key: String?, from sender: NookSender, presentation: NookActivity.Presentation = .timed) -> NookActivity {
        var card = activity(title, key: key, presentation: presentation)
        card.sender = sender
        return card
    }

    /// What nookd passes for a caller who is not an admin: its own and owner-less cards.
    static func own(_ sender: NookSender) -> @Sendable (NookActivity) -> Bool {
        { $0.sender == nil || $0.sender?.uid == sender.uid }
    }

    @Test func q4_aKeyCoalescesOnlyThePendingCardsItsPermitAcceptsAndAnAdminsAll() async throws {
        let harness = await QueueHarness()
        await harness.queue.suspend()
        let alices = card("alice's", key: "k", from: Self.alice), bobs = card("bob's", key: "k", from: Self.bob)
        await harness.queue.enqueue(alices, coalescing: Self.own(Self.alice))
        await harness.queue.enqueue(bobs, coalescing: Self.own(Self.bob))
        #expect(await harness.queue.pending.map(\.title) == ["alice's", "bob's"], "bob's key left alice's card alone")
        let bobsAgain = card("bob's again", key: "k", from: Self.bob)
        await harness.queue.enqueue(bobsAgain, coalescing: Self.own(Self.bob))
        #expect(await harness.queue.pending.map(\.title) == ["alice's", "bob's again"], "bob's own card coalesced")
        try await harness.recorder.next(.rejected(.coalesced), of: bobs.id)

        #expect(await harness.queue.cancelAll(coalescingKey: "k", permits: Self.own(Self.alice)) == 1)
        #expect(await harness.queue.pending.map(\.title) == ["bob's again"])

        // An admin's key (a permit that accepts all) coalesces everyone's.
        await harness.queue.enqueue(card("alice's", key: "k2", from: Self.alice))
        await harness.queue.enqueue(card("root's", key: "k", from: NookSender(uid: 0, pid: 3)))
        #expect(await harness.queue.pending.map(\.title) == ["alice's", "root's"])
    }

    @Test func q4_aNewKeyByUpdateCoalescesOnlyWhatThePermitAccepts() async throws {
        let harness = await QueueHarness()
        await harness.queue.suspend()
        let alices = card("alice's k2", key: "k2", from: Self.alice), bobs = card("bob's", key: "x", from: Self.bob)
        await harness.queue.enqueue(alices)
        await harness.queue.enqueue(bobs)
        try await harness.queue.update(bobs.id, coalescing: Self.own(Self.bob)) { var changed = $0; changed.coalescingKey = "k2"; return changed }
        #expect(await harness.queue.pending.map(\.title) == ["alice's k2", "bob's"], "bob's new key left alice's card alone")
        #expect(await harness.queue.live(withKey: "k2").count == 2)
    }

    @Test func u1_anUpdateOfSeveralCardsIsAllOrNothing() async throws {
        let harness = await QueueHarness()
        let blocker = card("blocker", key: "k", from: Self.alice, presentation: .blocker(timeout: nil))
        let timed = card("timed", key: "k", from: Self.alice)
        try await harness.enqueueAndPresentFirst(blocker, timed)
        let ids = await harness.queue.live(withKey: "k")
        #expect(ids == [blocker.id, timed.id])
        struct OnlyBlockers: Error {}
        await #expect(throws: OnlyBlockers.self) {
            try await harness.queue.update(ids) { current in
                guard current.isBlocker else { throw OnlyBlockers() }
                var changed = current
                changed.title = "CHANGED"
                return changed
            }
        }
        #expect(await harness.queue.current?.title == "blocker", "the blocker was left as it was")
        #expect(await harness.queue.pending.map(\.title) == ["timed"])
        #expect(!harness.recorder.kinds(of: blocker.id).contains(.updated(previous: blocker)))

        let updates = try await harness.queue.update(ids) { var changed = $0; changed.title = "CHANGED"; return changed }
        #expect(updates.map(\.activity.title) == ["CHANGED", "CHANGED"])
        #expect(await harness.queue.current?.title == "CHANGED")
        #expect(await harness.queue.pending.map(\.title) == ["CHANGED"])
    }

    @Test func u1_anUpdateOfSeveralCardsLeavesOutOneThatEndedSinceItWasLookedUp() async throws {
        let harness = await QueueHarness()
        await harness.queue.suspend()
        let first = card("first", key: "k", from: Self.alice), second = card("second", key: "k", from: Self.alice)
        await harness.queue.enqueue(first)
        // Two cards with one key, as two senders' keys leave each other's.
        await harness.queue.enqueue(second, coalescing: { _ in false })
        let ids = await harness.queue.live(withKey: "k")
        #expect(await harness.queue.cancel(first.id))
        let updates = try await harness.queue.update(ids) { var changed = $0; changed.title = "CHANGED"; return changed }
        #expect(ids == [first.id, second.id])
        #expect(updates.map(\.activity.id) == [second.id])
        #expect(await harness.queue.pending.map(\.title) == ["CHANGED"], "the card still there was updated")
        await #expect(throws: NookUpdateError.self) {
            try await harness.queue.update(first.id) { $0 }
        }
    }
}
