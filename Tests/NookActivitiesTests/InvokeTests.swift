import NookActivities
import NookTestSupport
import Testing

@Suite("E3 invoking the default action of the card on the glass")
struct InvokeTests {
    @Test func e3_theCardOnTheGlassWithAnActionIsInvokedAndStays() async throws {
        let harness = await QueueHarness()
        var card = activity("Mail")
        card.hasAction = true
        try await harness.enqueueAndPresentFirst(card)
        #expect(await harness.queue.invoking() == .invoked(card))
        try await harness.recorder.next(.invoked, of: card.id)
        #expect(await harness.queue.current?.id == card.id, "invoking ends nothing by itself")
        #expect(await harness.queue.invoking(card.id) == .invoked(card), "by id as well")
    }

    @Test func e3_aCardWithoutAnActionOrAPendingOneIsNotInvoked() async throws {
        let harness = await QueueHarness()
        let plain = activity("plain")
        var waiting = activity("waiting")
        waiting.hasAction = true
        #expect(await harness.queue.invoking() == .notOnGlass)
        try await harness.enqueueAndPresentFirst(plain, waiting)
        #expect(await harness.queue.invoking() == .noAction(plain))
        #expect(await harness.queue.invoking(waiting.id) == .notOnGlass, "a pending card is not seen, so not invoked")
        #expect(await harness.queue.invoking(permits: { _ in false }) == .noAction(plain))
        #expect(harness.recorder.kinds(of: plain.id).contains(.invoked) == false)
        #expect(harness.recorder.kinds(of: waiting.id) == [.enqueued])
    }

    @Test func e3_u3_anInvokeThePermitsCheckRefusesEmitsNothing() async throws {
        let harness = await QueueHarness()
        var card = activity("Mail")
        card.hasAction = true
        try await harness.enqueueAndPresentFirst(card)
        #expect(await harness.queue.invoking(permits: { _ in false }) == .refused(card))
        #expect(!harness.recorder.kinds(of: card.id).contains(.invoked))
    }

    @Test func e3_theOpenInputsRequestFromAnotherThreadInvokesTheCardOnTheGlass() async throws {
        let harness = await QueueHarness()
        var card = activity("Mail")
        card.hasAction = true
        try await harness.enqueueAndPresentFirst(card)
        harness.queue.requestInvokeCurrent()
        try await harness.recorder.next(.invoked, of: card.id)
    }
}
