import NookActivities
import NookTestSupport
import Testing

/// A module whose switch-away preparation the test controls.
final class ScriptedModule: NookModule {
    let id: NookModuleID
    private let hangs: Bool
    private let calls = Locked<[String]>([])
    /// Kept, never resumed: a continuation dropped unresumed makes the runtime print a misuse
    /// warning into the test log, which reads like a failure.
    private let parked = Locked<[CheckedContinuation<Void, Never>]>([])

    init(_ id: NookModuleID, hangs: Bool = false) {
        self.id = id
        self.hangs = hangs
    }

    var log: [String] { calls.withLock { $0 } }

    func prepareForSwitchAway() async {
        calls.withLock { $0.append("prepare") }
        if hangs {
            // Never returns on its own, and ignores cancellation: the worst case of Q10.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in parked.withLock { $0.append(continuation) } }
        }
    }

    func didDeactivate() { calls.withLock { $0.append("deactivate") } }
    func didActivate() { calls.withLock { $0.append("activate") } }
}

@Suite("Q9 Q10 Q11 surface arbiter, module switch, binding")
struct ArbiterTests {
    @Test func q9_foregroundClaimsAreGrantedAndBackgroundOnlyForHigh() {
        let arbiter = NookSurfaceArbiter(foreground: "music", clock: ManualClock())
        #expect(arbiter.claim(module: "mail", priority: .normal) == .denied(.notForeground(foreground: "music")))
        #expect(arbiter.claim(module: "mail", priority: .low) == .denied(.notForeground(foreground: "music")))
        guard case .granted(let high) = arbiter.claim(module: "mail", priority: .high) else {
            Issue.record("a background high claim must be granted")
            return
        }
        #expect(high.module == "mail" && high.priority == .high)
        #expect(arbiter.claim(module: "music", priority: .normal) == .denied(.busy(holder: "mail")), "one surface")
        #expect(arbiter.release(high))
        guard case .granted(let normal) = arbiter.claim(module: "music", priority: .normal) else {
            Issue.record("a foreground normal claim must be granted")
            return
        }
        #expect(normal.token != high.token)
    }

    @Test func q9_releasingAStaleTokenIsAHarmlessNoOp() {
        let arbiter = NookSurfaceArbiter(foreground: "main", clock: ManualClock())
        guard case .granted(let first) = arbiter.claim(module: "main", priority: .normal) else { return }
        #expect(arbiter.release(first))
        guard case .granted(let second) = arbiter.claim(module: "main", priority: .normal) else { return }
        #expect(!arbiter.release(first), "stale")
        #expect(arbiter.isCurrent(second), "the stale release did not end the newer claim")
        #expect(!arbiter.isCurrent(first))
    }

    @Test func q9_backgroundQueueParksOnDenialAndItsHighIsPickedBeforeEarlierNormals() async throws {
        let clock = ManualClock()
        let arbiter = NookSurfaceArbiter(foreground: "music", clock: clock)
        let queue = NookActivityQueue(clock: clock)
        let recorder = EventRecorder(queue.events())
        await queue.bind(to: arbiter, moduleID: "mail")
        let n1 = activity("n1"), n2 = activity("n2")
        await queue.enqueue(n1)
        await queue.enqueue(n2)
        await clock.waitForSleepers()
        #expect(await queue.snapshot().parkReason == .denied(.notForeground(foreground: "music")))
        clock.advance(by: .milliseconds(200))
        await clock.waitForSleepers()
        #expect(arbiter.currentGrant == nil)

        let urgent = activity("urgent", .high)
        await queue.enqueue(urgent)
        let parkedAt = clock.now
        clock.advance(by: .milliseconds(200))
        let shown = try await recorder.next(.animateIn, of: urgent.id)
        #expect(shown.at - parkedAt <= .milliseconds(200), "picked on the next pass")
        #expect(arbiter.currentGrant?.module == "mail")
        try await recorder.waitForKinds(of: n1.id, [.enqueued])
        try await recorder.waitForKinds(of: n2.id, [.enqueued])
    }

    @Test func q10_switchQuiescesTheOutgoingQueueAndMakesTheTargetForeground() async throws {
        let clock = ManualClock()
        let arbiter = NookSurfaceArbiter(foreground: "a", clock: clock)
        let queueA = NookActivityQueue(clock: clock)
        let recorder = EventRecorder(queueA.events())
        let moduleA = NookQueueModule(id: "a", queue: queueA)
        let moduleB = ScriptedModule("b")
        arbiter.register(moduleA)
        arbiter.register(moduleB)
        await queueA.bind(to: arbiter, moduleID: "a")
        let shown = activity("shown")
        let laterNormal = activity("later")
        await queueA.enqueue(shown)
        await queueA.enqueue(laterNormal)
        try await recorder.next(.animateIn, of: shown.id)
        let grantOfA = try #require(arbiter.currentGrant)

        async let report = arbiter.switchForeground(to: "b")
        try await recorder.next(.animateOut, of: shown.id)
        #expect(arbiter.currentGrant == nil, "A's claim went stale at once")
        #expect(!arbiter.release(grantOfA), "and releasing it is a no-op")
        clock.advance(by: .milliseconds(250))
        let finished = try await report
        #expect(finished.from == "a" && finished.to == "b" && finished.preparedInTime)
        #expect(arbiter.foregroundModule == "b")
        #expect(moduleB.log == ["activate"])

        // A's queue drains again in the background, where its normals are denied.
        await clock.waitForSleepers()
        clock.advance(by: .milliseconds(200))
        await clock.waitForSleepers()
        #expect(await queueA.snapshot().parkReason == .denied(.notForeground(foreground: "b")))
        #expect(await queueA.pending.map(\.id) == [shown.id, laterNormal.id])
    }

    @Test func q10_aModuleWhosePreparationNeverReturnsCannotHoldTheSwitchBeyond2s() async throws {
        let clock = ManualClock()
        let arbiter = NookSurfaceArbiter(foreground: "stuck", clock: clock)
        let stuck = ScriptedModule("stuck", hangs: true)
        arbiter.register(stuck)
        arbiter.register(ScriptedModule("next"))
        let started = clock.now

        async let report = arbiter.switchForeground(to: "next")
        await clock.waitForSleepers()
        #expect(arbiter.foregroundModule == nil, "mid-switch")
        #expect(arbiter.claim(module: "next", priority: .high) == .denied(.switching))
        clock.advance(by: .milliseconds(1999))
        clock.advance(by: .milliseconds(1))
        let finished = try await report
        #expect(!finished.preparedInTime)
        #expect(clock.now - started == .seconds(2))
        #expect(arbiter.foregroundModule == "next")
        #expect(stuck.log == ["prepare", "deactivate"], "deactivate runs even after a timeout")
    }

    @Test func q10_switchingToAnUnknownModuleFailsAndChangesNothing() async {
        let arbiter = NookSurfaceArbiter(foreground: "a", clock: ManualClock())
        arbiter.register(ScriptedModule("a"))
        await #expect(throws: NookSurfaceArbiter.SwitchError.unknownModule("zzz")) {
            try await arbiter.switchForeground(to: "zzz")
        }
        #expect(arbiter.foregroundModule == "a")
    }

    @Test func q11_bindingTakesAnExplicitModuleOrTheForegroundAtBindTime() async throws {
        let clock = ManualClock()
        let arbiter = NookSurfaceArbiter(foreground: "first", clock: clock)
        let implicit = NookActivityQueue(clock: clock)
        let explicit = NookActivityQueue(clock: clock)
        await implicit.bind(to: arbiter)
        await explicit.bind(to: arbiter, moduleID: "second")
        arbiter.register(ScriptedModule("first"))
        arbiter.register(ScriptedModule("second"))
        try await arbiter.switchForeground(to: "second")
        #expect(await implicit.moduleID == "first", "stamped at bind time, not now")
        #expect(await explicit.moduleID == "second")

        let recorder = EventRecorder(explicit.events())
        let item = activity("item")
        await explicit.enqueue(item)
        try await recorder.next(.animateIn, of: item.id)
        #expect(arbiter.currentGrant?.module == "second", "claims carry the bound module id")
        #expect(recorder.events.first?.module == "second")
    }
}
