import NookTestSupport
import NookTestTraits
@testable import NookActivities
import Testing

@Suite("Q16 Q17 Q18 limits, expiry, clock")
struct LimitsTests {
    @Test func q16_aFullQueueRejectsAnArrivalThatDoesNotOutrankAnything() async throws {
        let harness = await QueueHarness(capacity: 3, bind: false)
        let held = [activity("a"), activity("b"), activity("c")]
        for item in held { await harness.queue.enqueue(item) }
        let late = activity("late")
        #expect(await harness.queue.enqueue(late) == .rejected(late.id, .queueFull))
        let lowLate = activity("low", .low)
        #expect(await harness.queue.enqueue(lowLate) == .rejected(lowLate.id, .queueFull))
        #expect(await harness.queue.pending.map(\.id) == held.map(\.id), "nothing already queued is lost")
    }

    @Test func q16_aFullQueueEvictsTheOldestLowestPriorityForAHigherArrival() async throws {
        let harness = await QueueHarness(capacity: 3, bind: false)
        let low1 = activity("low1", .low), normal = activity("normal"), low2 = activity("low2", .low)
        for item in [low1, normal, low2] { await harness.queue.enqueue(item) }
        let high = activity("high", .high)
        #expect(await harness.queue.enqueue(high) == .accepted(high.id))
        #expect(await harness.queue.pending.map(\.title) == ["high", "normal", "low2"])
        try await harness.recorder.waitForKinds(of: low1.id, [.enqueued, .rejected(.queueFull)])

        let normal2 = activity("normal2")
        #expect(await harness.queue.enqueue(normal2).isAccepted, "outranks low2")
        #expect(await harness.queue.pending.map(\.title) == ["high", "normal", "normal2"])
    }

    /// What nookd's `queue.per_sender` builds on: a share of the capacity named by the
    /// activity (here its title's first letter stands for its sender).
    func sharedQueue(capacity: Int) async -> QueueHarness {
        await QueueHarness(capacity: capacity, bind: false, shareOf: { String($0.title.prefix(1)) })
    }

    @Test func q16_aFullShareRefusesItsOwnArrivalWhileOthersStillGetIn() async throws {
        let harness = await sharedQueue(capacity: 10)
        let flood = (1...3).map { activity("a\($0)") }
        for item in flood { #expect(await harness.queue.enqueue(item, shareLimit: 3).isAccepted) }
        let fourth = activity("a4")
        #expect(await harness.queue.enqueue(fourth, shareLimit: 3) == .rejected(fourth.id, .queueFull))
        #expect(await harness.queue.enqueue(activity("b1"), shareLimit: 3).isAccepted, "another sender's share is empty")
        #expect(await harness.queue.pending.map(\.title) == ["a1", "a2", "a3", "b1"], "nothing already queued is lost")
        #expect(await harness.queue.pendingCount(inShare: "a") == 3)
    }

    @Test func q16_aFullShareEvictsItsOwnOldestLowestPriorityForAHigherArrival() async throws {
        let harness = await sharedQueue(capacity: 10)
        let others = activity("b-low", .low)
        await harness.queue.enqueue(others)
        let low1 = activity("a-low1", .low), normal = activity("a-normal"), low2 = activity("a-low2", .low)
        for item in [low1, normal, low2] { await harness.queue.enqueue(item, shareLimit: 3) }
        let high = activity("a-high", .high)
        #expect(await harness.queue.enqueue(high, shareLimit: 3) == .accepted(high.id))
        try await harness.recorder.waitForKinds(of: low1.id, [.enqueued, .rejected(.queueFull)])
        #expect(await harness.queue.pending.map(\.title) == ["a-high", "a-normal", "b-low", "a-low2"], "another sender's lower card stays")
    }

    /// A queue fuller than its capacity (a card set aside, or put back by `quiesce`): the
    /// share's eviction is the arrival's room, so it ends that one card and no other sender's,
    /// and is never followed by a refusal that would have lost the card for nothing.
    @Test(arguments: [NookActivityPriority.normal, .low])
    func q16_anArrivalThatEvictsFromItsShareEndsThatCardAloneInAnOverfullQueue(otherSendersPriority: NookActivityPriority) async throws {
        let harness = await sharedQueue(capacity: 3)
        let other = activity("b1", otherSendersPriority), low = activity("a-low", .low), normal = activity("a-normal")
        for item in [other, low, normal] { await harness.queue.enqueue(item, shareLimit: 2) }
        await harness.queue.keepSetAside()
        let arrival = activity("a-new")
        #expect(await harness.queue.enqueue(arrival, shareLimit: 2) == .accepted(arrival.id))
        try await harness.recorder.waitForKinds(of: low.id, [.enqueued, .rejected(.queueFull)])
        #expect(Set(await harness.queue.pending.map(\.title)) == ["b1", "a-normal", "a-new"], "only the share's own lowest ended")
    }

    @Test func q16_aShareRefusalSaysHowManyItsShareHolds() async throws {
        let harness = await sharedQueue(capacity: 10)
        for index in 1...3 { await harness.queue.enqueue(activity("a\(index)")) }
        let answers = await harness.queue.enqueue(contentsOf: [activity("a4"), activity("b1"), activity("a5")], shareLimit: 2)
        #expect(answers.map(\.shareHeld) == [3, nil, 3], "the limit was lowered below what the share holds")
        #expect(answers.map(\.result.isAccepted) == [false, true, false])
    }

    @Test func q4_q16_aCardReplacedByItsKeyLeavesTheShareAsItsSuccessorComes() async throws {
        let harness = await sharedQueue(capacity: 10)
        await harness.queue.enqueue(activity("a1", key: "k"), shareLimit: 2)
        await harness.queue.enqueue(activity("a2"), shareLimit: 2)
        #expect(await harness.queue.enqueue(activity("a3", key: "k"), shareLimit: 2).isAccepted)
        #expect(await harness.queue.pending.map(\.title) == ["a2", "a3"])
    }

    @Test func q16_theCapacityStillBoundsEveryShareTogether() async throws {
        let harness = await sharedQueue(capacity: 3)
        for letter in ["a", "b", "c"] { await harness.queue.enqueue(activity("\(letter)1"), shareLimit: 2) }
        let late = activity("d1")
        #expect(await harness.queue.enqueue(late, shareLimit: 2) == .rejected(late.id, .queueFull))
    }

    /// Random enqueues (some keyed), updates that move cards between priority classes, and
    /// cancels: every share's count stays what its pending cards are, and within its limit.
    @Test func q16_u1_sharesStayCountedThroughRandomEnqueuesUpdatesAndCancels() async throws {
        var generator = SystemRandomNumberGenerator()
        let harness = await sharedQueue(capacity: 12)
        var ids: [NookActivityID] = []
        for step in 0..<2_000 {
            let sender = ["a", "b", "c", "d"].randomElement(using: &generator)!
            let priority = NookActivityPriority.allCases.randomElement(using: &generator)!
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<6:
                let key = Bool.random(using: &generator) ? "\(sender)-k\(Int.random(in: 0..<2, using: &generator))" : nil
                let item = activity("\(sender)\(step)", priority, key: key)
                if await harness.queue.enqueue(item, shareLimit: 3).isAccepted { ids.append(item.id) }
            case 6..<8:
                if let id = ids.randomElement(using: &generator) {
                    _ = try? await harness.queue.update(id) { var changed = $0; changed.priority = priority; return changed }
                }
            default:
                if let id = ids.randomElement(using: &generator) { await harness.queue.cancel(id) }
            }
            let pending = await harness.queue.pending
            #expect(pending.count <= 12)
            for share in ["a", "b", "c", "d"] {
                let held = pending.filter { $0.title.hasPrefix(share) }.count
                let counted = await harness.queue.pendingCount(inShare: share)
                #expect(counted == held && held <= 3, "step \(step): share \(share) counts \(counted), holds \(held)")
                if counted != held || held > 3 { return }
            }
        }
    }

    @Test func q4_q16_aBatchOfEnqueuesInOneCallActsAsTheSameEnqueuesOneByOne() async throws {
        // nookd hands a pipelining client's consecutive enqueues to the queue in one call:
        // coalescing, the capacity, eviction and duplicate ids inside one batch
        // must come out exactly as they would one by one.
        let batched = await QueueHarness(capacity: 3, bind: false)
        let single = await QueueHarness(capacity: 3, bind: false)
        let low = activity("low", .low)
        let items = [activity("a", key: "k"), low, activity("b"), activity("a2", key: "k"), activity("c"),
                     activity("high", .high), low, NookActivity(title: "")]
        let results = await batched.queue.enqueue(contentsOf: items)
        var oneByOne: [NookEnqueueResult] = []
        for item in items { oneByOne.append(await single.queue.enqueue(item)) }
        #expect(results == oneByOne)
        #expect(await batched.queue.pending.map(\.title) == single.queue.pending.map(\.title))
        #expect(await batched.queue.pending.map(\.title) == ["high", "a2", "c"])
        #expect(await batched.queue.held(among: items.map(\.id)) == [items[3].id, items[4].id, items[5].id])
    }

    @Test func q16_coalescingIntoAFullQueueNeedsNoRoom() async throws {
        let harness = await QueueHarness(capacity: 2, bind: false)
        await harness.queue.enqueue(activity("a", key: "k"))
        await harness.queue.enqueue(activity("b"))
        #expect(await harness.queue.enqueue(activity("a2", key: "k")).isAccepted)
        #expect(await harness.queue.pending.map(\.title) == ["b", "a2"])
    }

    @Test(.cpuBound, .notUnderQEMUUser("the queue's bookkeeping of 100,000 emulated took over two minutes of CI's run; no CPU changes it"))
    func q16_aBurstOf100kOver1000KeysStaysBoundedAndKeepsExactlyTheLatestPerKey() async throws {
        let clock = InstantClock()
        let queue = NookActivityQueue(clock: clock, configuration: .init(capacity: 1000))
        var latest: [Int: NookActivityID] = [:]
        // Counted, not expected one by one: a hundred thousand expectations cost more than the
        // queue itself, on the cooperative pool every other test shares.
        var refused = 0, largestStorage = 0
        for index in 0..<100_000 {
            let key = (index * 7919) % 1000
            let item = NookActivity(coalescingKey: "key-\(key)", title: "update \(index)")
            latest[key] = item.id
            if !(await queue.enqueue(item).isAccepted) { refused += 1 }
            if index % 10_000 == 0 { largestStorage = max(largestStorage, await queue.storageSlots) }
        }
        #expect(refused == 0)
        #expect(largestStorage <= 4 * 1000 + 256, "memory stays bounded mid-burst")
        let survivors = await queue.pending
        #expect(survivors.count == 1000)
        #expect(Set(survivors.map(\.id)) == Set(latest.values))
        let lastIndexOf = survivors.map { Int($0.title.split(separator: " ")[1])! }
        #expect(lastIndexOf == lastIndexOf.sorted(), "survivors keep the order of their last enqueue")
        #expect(await queue.storageSlots <= 4 * 1000 + 256)

        // Drain them all (on a clock where every wait is instant) and check what was shown.
        // A generous watchdog: under AddressSanitizer this drain takes over 20 s.
        let recorder = EventRecorder(queue.events(), watchdog: .seconds(180))
        await queue.bind(to: NookSurfaceArbiter(foreground: "main", clock: clock))
        // The last survivor's end, not a count of every end: a condition is asked at each of
        // the drain's thousands of events, and a scan of all of them each time held a pool
        // thread for tens of seconds that the in-process nookd tests were waiting for.
        let last = try #require(survivors.last).id
        try await recorder.waitUntil("the last of the 1000 hidden") { events, _ in
            events.suffix(4).contains { $0.id == last && $0.kind == .hidden(.completed) }
        }
        #expect(recorder.events.filter { $0.kind == .hidden(.completed) }.count == 1000)
        #expect(recorder.events.filter { $0.kind == .animateIn }.map(\.id) == survivors.map(\.id))
        #expect(await queue.pendingCount == 0)
    }

    @Test func q16_withTheDefaultCapacityTheBurstKeeps256AndReportsTheRestAsQueueFull() async throws {
        let queue = NookActivityQueue(clock: InstantClock())
        var rejected = 0
        for index in 0..<20_000 {
            let result = await queue.enqueue(NookActivity(coalescingKey: "k\(index % 1000)", title: "u\(index)"))
            if case .rejected(_, .queueFull) = result { rejected += 1 }
        }
        let survivors = await queue.pending
        #expect(survivors.count == 256)
        #expect(survivors.map(\.title) == (0..<256).map { "u\(19_000 + $0)" })
        #expect(rejected == 20 * (1000 - 256))
    }

    @Test func q17_aPendingActivityPastItsExpiryIsDroppedNotShownLate() async throws {
        let engagement = ScriptedEngagement(engaged: true)
        let harness = await QueueHarness(engagement: engagement)
        let stale = activity("stale", expiresAfter: .seconds(1))
        let fresh = activity("fresh")
        await harness.queue.enqueue(stale)
        await harness.queue.enqueue(fresh)
        for _ in 0..<5 {
            await harness.clock.waitForSleepers()
            harness.clock.advance(by: .milliseconds(200))
        }
        await harness.clock.waitForSleepers()
        try await harness.recorder.waitForKinds(of: stale.id, [.enqueued, .rejected(.expired)])
        #expect(await harness.queue.pending.map(\.id) == [fresh.id])
        engagement.set(engaged: false)
        try await harness.runToEnd(fresh.id)
        #expect(!harness.recorder.kinds(of: stale.id).contains(.animateIn))
    }

    @Test func q17_expiryIsCheckedEvenWhileSuspended() async throws {
        let harness = await QueueHarness(bind: false)
        let stale = activity("stale", expiresAfter: .seconds(10))
        await harness.queue.enqueue(stale)
        harness.clock.advance(by: .seconds(9))
        #expect(await harness.queue.pendingCount == 1)
        harness.clock.advance(by: .seconds(1))
        #expect(await harness.queue.pendingCount == 0)
        try await harness.recorder.waitForKinds(of: stale.id, [.enqueued, .rejected(.expired)])
    }

    @Test func q18_allTimingRunsOnTheInjectedClock() async throws {
        // An hour-long dwell passes in no wall time: the queue only ever asks the clock.
        let harness = await QueueHarness()
        let long = activity("long", dwell: .seconds(3600))
        await harness.queue.enqueue(long)
        let hiddenAt = try await harness.runToEnd(long.id, dwell: .seconds(3600))
        #expect(hiddenAt.sinceOrigin == .seconds(3600) + .milliseconds(500))
    }

    @Test func q18_systemClockMovesForwardAndSleeps() async throws {
        let clock = NookSystemClock()
        let before = clock.now
        try await clock.sleep(until: before + .milliseconds(5))
        #expect(clock.now - before >= .milliseconds(5))
    }
}
