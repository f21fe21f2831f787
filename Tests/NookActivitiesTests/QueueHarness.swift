import NookActivities
import NookTestSupport
import Testing

/// A queue bound to an arbiter on a manual clock, with its events recorded.
struct QueueHarness {
    let clock = ManualClock()
    let engagement: ScriptedEngagement
    let arbiter: NookSurfaceArbiter
    let queue: NookActivityQueue
    let recorder: EventRecorder

    init(
        module: NookModuleID = "main",
        capacity: Int = 256,
        engagement: ScriptedEngagement = ScriptedEngagement(),
        bind: Bool = true,
        shareOf: (@Sendable (NookActivity) -> String)? = nil
    ) async {
        self.engagement = engagement
        arbiter = NookSurfaceArbiter(foreground: module, clock: clock)
        queue = NookActivityQueue(
            clock: clock, engagement: engagement,
            configuration: .init(capacity: capacity, shareOf: shareOf))
        recorder = EventRecorder(queue.events())
        if bind { await queue.bind(to: arbiter, moduleID: module) }
    }

    /// Waits for `id` to animate in, then runs its transition and dwell to the end, checking
    /// each step lands exactly when the timeline says. Returns the instant it was hidden.
    @discardableResult
    func runToEnd(_ id: NookActivityID, dwell: Duration = NookActivity.defaultDwell,
                  transition: Duration = NookActivity.defaultTransition) async throws -> NookInstant {
        let shown = try await recorder.next(.animateIn, of: id)
        clock.advance(by: transition)
        let presented = try await recorder.next(.presented, of: id)
        #expect(presented.at == shown.at + transition)
        clock.advance(by: dwell)
        let out = try await recorder.next(.animateOut, of: id)
        #expect(out.at == presented.at + dwell)
        clock.advance(by: transition)
        let hidden = try await recorder.next(.hidden(.completed), of: id)
        #expect(hidden.at == out.at + transition)
        return hidden.at
    }

    /// Enqueues `items` and runs the first through its animate-in; returns its `presented` event.
    @discardableResult
    func enqueueAndPresentFirst(_ items: NookActivity...) async throws -> NookActivityEvent {
        for item in items { await queue.enqueue(item) }
        try await recorder.next(.animateIn, of: items[0].id)
        clock.advance(by: items[0].transition)
        return try await recorder.next(.presented, of: items[0].id)
    }

    /// Lets the end delay after a hidden activity pass so the next one may start.
    func passEndDelay() {
        clock.advance(by: NookActivity.defaultEndDelay)
    }
}

func activity(
    _ title: String,
    _ priority: NookActivityPriority = .normal,
    key: String? = nil,
    dwell: Duration = NookActivity.defaultDwell,
    presentation: NookActivity.Presentation = .timed,
    expiresAfter: Duration? = nil
) -> NookActivity {
    NookActivity(coalescingKey: key, priority: priority, title: title, dwell: dwell,
                 presentation: presentation, expiresAfter: expiresAfter)
}
