import NookTestSupport
@testable import NookActivities
import Testing

/// C1's `list` cursor at the queue: pages read after a place give the presentation order, and
/// cards that end between pages (the one the cursor names among them) hide none of the others,
/// however often updates have moved cards into the middle of a priority class.
@Suite("C1 a queue's listing by place")
struct ListingTests {
    /// Every pending card, `limit` at a time, each part read after the last place of the one
    /// before; `between` runs between parts with what is listed so far.
    func paged(_ queue: NookActivityQueue, limit: Int, between: ([NookActivityID]) async -> Void = { _ in }) async -> [NookActivityID] {
        var listed: [NookActivityID] = []
        var position: NookListingPosition?
        while true {
            let chunk = await queue.listing(after: position, limit: limit)
            listed += chunk.pending.map(\.activity.id)
            guard chunk.more, let last = chunk.pending.last else { return listed }
            position = NookListingPosition(shown: chunk.shown, pending: last.place)
            await between(listed)
        }
    }

    func move(_ queue: NookActivityQueue, _ id: NookActivityID, to priority: NookActivityPriority) async throws {
        try await queue.update(id) { card in
            var card = card
            card.priority = priority
            return card
        }
    }

    @Test func c1_pagesByPlaceFollowThePresentationOrderThroughManyMovesIntoTheMiddle() async throws {
        let harness = await QueueHarness(capacity: 500, bind: false)
        let queue = harness.queue
        var cards: [NookActivity] = []
        for index in 0..<60 { cards.append(activity("card \(index)", index % 3 == 0 ? .low : .normal)) }
        for card in cards { await queue.enqueue(card) }
        // Back and forth between classes: each move lands among the others by enqueue order,
        // between two places, until there is no room left between them and the class is renumbered.
        for round in 0..<40 {
            let card = cards[(round * 3) % 60]
            try await move(queue, card.id, to: .normal)
            #expect(await paged(queue, limit: 7) == (await queue.pending.map(\.id)), "after move \(round) up")
            try await move(queue, card.id, to: .low)
            #expect(await paged(queue, limit: 7) == (await queue.pending.map(\.id)), "after move \(round) down")
        }
        for index in stride(from: 0, to: 60, by: 3) { try await move(queue, cards[index].id, to: .normal) }
        #expect(await paged(queue, limit: 5) == (await queue.pending.map(\.id)))
        #expect(await queue.pending.map(\.id) == cards.map(\.id), "every card back in its enqueue order")
    }

    @Test func c1_movesIntoOneGapUntilItIsFullRenumberTheClassAndKeepTheOrder() async throws {
        let harness = await QueueHarness(capacity: 500, bind: false)
        let queue = harness.queue
        let first = activity("first")
        let lows = (0..<40).map { activity("low \($0)", .low) }
        let last = activity("last")
        for card in [first] + lows + [last] { await queue.enqueue(card) }
        // Each low card moves up between the one moved before it and `last`: the gap there
        // halves each time, 2^24 runs out after 24, and the class is renumbered.
        for (index, card) in lows.enumerated() {
            try await move(queue, card.id, to: .normal)
            #expect(await paged(queue, limit: 3) == (await queue.pending.map(\.id)), "after move \(index)")
        }
        #expect(await queue.pending.map(\.id) == ([first] + lows + [last]).map(\.id))
    }

    @Test func c1_cardsThatEndBetweenPagesHideNoOtherAndACardPutBackIsNotListedAgain() async throws {
        let harness = await QueueHarness(capacity: 500, bind: false)
        let queue = harness.queue
        var cards: [NookActivity] = []
        for index in 0..<50 { cards.append(activity("card \(index)", [.low, .normal, .high][index % 3])) }
        for card in cards { await queue.enqueue(card) }
        var ended: Set<NookActivityID> = []
        let listed = await paged(queue, limit: 4) { listed in
            // The card the cursor names, the first listed and one not listed yet end.
            for id in [listed.last, listed.first, cards.map(\.id).first { !listed.contains($0) && !ended.contains($0) }].compactMap({ $0 }) {
                if await queue.cancel(id) { ended.insert(id) }
            }
        }
        #expect(Set(listed).count == listed.count, "listed twice")
        #expect(Set(cards.map(\.id)).subtracting(ended).subtracting(listed).isEmpty, "held throughout, on no page")

        // A card the cursor saw on the glass, put back at the front of its class since: it
        // was listed then, so no later page lists it again.
        let shownThen = try #require(cards.first { !ended.contains($0.id) && $0.priority == .low })
        let position = NookListingPosition(shown: shownThen.id, pending: NookListingPlace(rank: NookActivityPriority.high.rawValue, place: .min))
        let later = await queue.listing(after: position, limit: 1000)
        #expect(!later.pending.contains { $0.activity.id == shownThen.id })
    }
}
