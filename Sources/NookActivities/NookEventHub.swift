
/// Fans lifecycle events out to any number of `AsyncStream` subscribers, in emission order.
///
/// Lock-protected rather than actor-isolated so that subscribing is synchronous: a caller can
/// subscribe and then enqueue without missing the `enqueued` event.
final class NookEventHub: Sendable {
    private struct State {
        var nextToken: UInt64 = 0
        var subscribers: [UInt64: Subscriber] = [:]
    }

    /// Called inside ``emit(_:)``, before any stream sees the events (a journal that must hold
    /// an end before anyone hears of it), with the events of one change together.
    private let observers = NookObserverList<[NookActivityEvent]>()

    /// A stream and the events it wants: an event a subscriber would only skip is not
    /// yielded to it, so it costs that subscriber's task no wake-up.
    private struct Subscriber {
        let continuation: AsyncStream<NookActivityEvent>.Continuation
        let wants: @Sendable (NookActivityEvent) -> Bool
    }

    private let state = Locked(State())

    func subscribe(
        bufferingPolicy: AsyncStream<NookActivityEvent>.Continuation.BufferingPolicy,
        where wants: @escaping @Sendable (NookActivityEvent) -> Bool
    ) -> AsyncStream<NookActivityEvent> {
        let (stream, continuation) = AsyncStream<NookActivityEvent>.makeStream(bufferingPolicy: bufferingPolicy)
        let token = state.withLock { state in
            state.nextToken += 1
            state.subscribers[state.nextToken] = Subscriber(continuation: continuation, wants: wants)
            return state.nextToken
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: token) }
        }
        return stream
    }

    func observe(_ callback: @escaping @Sendable ([NookActivityEvent]) -> Void) -> NookObservation {
        observers.add(callback)
    }

    /// Called only from the queue's actor, so events leave in the order they happened; `events`
    /// are the events of one change.
    func emit(_ events: [NookActivityEvent]) {
        observers.notify(events)
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for event in events {
            for subscriber in subscribers where subscriber.wants(event) { subscriber.continuation.yield(event) }
        }
    }

    func finishAll() {
        let subscribers = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.continuation.finish() }
    }
}
