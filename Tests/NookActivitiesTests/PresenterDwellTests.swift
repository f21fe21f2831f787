import NookActivities
import NookTestSupport
import Testing

/// Under load a card's slide-in ends later than planned; its dwell must count from
/// when it is really on the glass (Q13 order), as the presenter reports it.
@Suite("Q13 the dwell counts from when the presenter has the card on the glass")
struct PresenterDwellTests {
    let clock = ManualClock()
    let arbiter: NookSurfaceArbiter
    let queue: NookActivityQueue
    let recorder: EventRecorder

    init() {
        arbiter = NookSurfaceArbiter(foreground: "main", clock: clock)
        queue = NookActivityQueue(clock: clock, configuration: .init(presenterTimeout: .seconds(2)))
        recorder = EventRecorder(queue.events())
    }

    @Test func q13_aSlowPresenterDelaysPresentedAndTheDwellCountsFromItsReport() async throws {
        // A display so busy that the 250 ms slide-in takes 550 ms.
        let animateIns = queue.events(where: { $0.kind == .animateIn })
        let (clock, queue) = (self.clock, self.queue)
        let presenter = Task {
            for await event in animateIns {
                do { try await clock.sleep(until: event.at + .milliseconds(550)) } catch { return }
                await queue.animateInFinished(event)
            }
        }
        defer { presenter.cancel() }
        await queue.bind(to: arbiter, moduleID: "main")
        let card = NookActivity(title: "one second", dwell: .seconds(1))
        await queue.enqueue(card)
        let shown = try await recorder.next(.animateIn, of: card.id)
        await clock.waitForSleepers(atLeast: 2)
        clock.advance(by: .milliseconds(250))
        // The planned end of the slide-in: the queue now waits for the presenter.
        await clock.waitForSleepers(atLeast: 2)
        #expect(await queue.snapshot().currentPhase == .animateIn, "not presented before the card is on the glass")
        clock.advance(by: .milliseconds(300))
        let presented = try await recorder.next(.presented, of: card.id)
        #expect(presented.at == shown.at + .milliseconds(550))
        clock.advance(by: .seconds(1))
        let out = try await recorder.next(.animateOut, of: card.id)
        #expect(out.at == presented.at + .seconds(1), "a whole second on the glass")
        clock.advance(by: .milliseconds(250))
        try await recorder.next(.hidden(.completed), of: card.id)
    }

    @Test func q13_aPresenterThatNeverReportsHoldsTheQueueOnlyUntilItsTimeout() async throws {
        await queue.bind(to: arbiter, moduleID: "main")
        let card = NookActivity(title: "unreported", dwell: .seconds(1))
        await queue.enqueue(card)
        let shown = try await recorder.next(.animateIn, of: card.id)
        // A report that names another showing (a different animateIn instant) is ignored.
        await queue.animateInFinished(NookActivityEvent(activity: card, kind: .animateIn, at: shown.at + .milliseconds(1), module: "main"))
        clock.advance(by: .milliseconds(250))
        await clock.waitForSleepers()
        clock.advance(by: .seconds(2))
        let presented = try await recorder.next(.presented, of: card.id)
        #expect(presented.at == shown.at + .milliseconds(2250))
        clock.advance(by: .seconds(1))
        let out = try await recorder.next(.animateOut, of: card.id)
        #expect(out.at == presented.at + .seconds(1))
    }

    @Test func q13_aPresenterFasterThanPlannedStillGetsTheWholeSlideAndDwell() async throws {
        await queue.bind(to: arbiter, moduleID: "main")
        let card = NookActivity(title: "early", dwell: .seconds(1))
        await queue.enqueue(card)
        let shown = try await recorder.next(.animateIn, of: card.id)
        await queue.animateInFinished(shown)
        clock.advance(by: .milliseconds(250))
        let presented = try await recorder.next(.presented, of: card.id)
        #expect(presented.at == shown.at + .milliseconds(250))
        clock.advance(by: .seconds(1))
        let out = try await recorder.next(.animateOut, of: card.id)
        #expect(out.at == presented.at + .seconds(1))
    }

    @Test func q5_cancelWhileWaitingForThePresenterEndsThroughTheNormalPath() async throws {
        await queue.bind(to: arbiter, moduleID: "main")
        let card = NookActivity(title: "cancelled")
        await queue.enqueue(card)
        try await recorder.next(.animateIn, of: card.id)
        clock.advance(by: .milliseconds(250))
        await clock.waitForSleepers()
        #expect(await queue.cancel(card.id))
        try await recorder.next(.animateOut, of: card.id)
        clock.advance(by: .milliseconds(250))
        try await recorder.next(.hidden(.cancelled), of: card.id)
        #expect(!recorder.kinds(of: card.id).contains(.presented))
        #expect(arbiter.currentGrant == nil)
    }
}
