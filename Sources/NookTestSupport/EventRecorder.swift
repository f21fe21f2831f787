import NookActivities
import Synchronization

/// Records a queue's lifecycle events and lets a test read them one by one or wait for a
/// condition. Waits are guarded by a wall-clock watchdog so a broken queue fails the test
/// with a message instead of hanging it; the queue itself only ever sees the manual clock.
public final class EventRecorder: Sendable {
    public struct Timeout: Error, CustomStringConvertible {
        public let waitingFor: String
        public let seen: [NookActivityEvent]
        public var description: String {
            "timed out waiting for \(waitingFor); events so far:\n" + seen.map { "  \($0.id) \($0.kind)" }.joined(separator: "\n")
        }
    }

    private struct Waiter {
        var id: UInt64
        var isSatisfied: @Sendable ([NookActivityEvent], Int) -> Bool
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var events: [NookActivityEvent] = []
        var cursor = 0
        var waiters: [Waiter] = []
        var nextWaiter: UInt64 = 0
    }

    private let state = Locked(State())
    private let watchdog: Duration

    /// The watchdog only ends a hang, so it is long: the queue's jobs run on the cooperative
    /// pool, where early in a whole run they wait behind every other test's first jobs.
    public init(_ stream: AsyncStream<NookActivityEvent>, watchdog: Duration = .seconds(120)) {
        self.watchdog = TestBounds.duration(watchdog)
        Task { [weak self] in
            for await event in stream {
                guard let self else { return }
                self.append(event)
            }
        }
    }

    public var events: [NookActivityEvent] { state.withLock { $0.events } }

    /// The kinds of the events recorded so far for one activity.
    public func kinds(of id: NookActivityID) -> [NookActivityEvent.Kind] {
        events.filter { $0.id == id }.map(\.kind)
    }

    /// Waits until the events recorded for `id` are exactly `expected`, in order.
    public func waitForKinds(of id: NookActivityID, _ expected: [NookActivityEvent.Kind]) async throws {
        try await waitUntil("events of \(id) to be \(expected.map(\.name))") { events, _ in
            events.filter { $0.id == id }.map(\.kind) == expected
        }
    }

    /// The next event not yet returned by `next()`.
    public func next() async throws -> NookActivityEvent {
        try await waitUntil("the next event") { events, cursor in events.count > cursor }
        return state.withLock { state in
            defer { state.cursor += 1 }
            return state.events[state.cursor]
        }
    }

    /// Reads events until one of `kind` for `id` arrives and returns it; throws if an
    /// unexpected final event for `id` comes first.
    @discardableResult
    public func next(_ kind: NookActivityEvent.Kind, of id: NookActivityID) async throws -> NookActivityEvent {
        while true {
            let event = try await next()
            guard event.id == id else { continue }
            if event.kind == kind { return event }
            if event.isFinal {
                throw Timeout(waitingFor: "\(kind) of \(id), but it ended with \(event.kind)", seen: events)
            }
        }
    }

    /// Waits until `condition` holds over all events recorded so far.
    public func waitUntil(
        _ description: String,
        _ condition: @escaping @Sendable ([NookActivityEvent], Int) -> Bool
    ) async throws {
        let satisfied = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let (ready, id) = state.withLock { state -> (Bool, UInt64) in
                if condition(state.events, state.cursor) { return (true, 0) }
                state.nextWaiter += 1
                state.waiters.append(Waiter(id: state.nextWaiter, isSatisfied: condition, continuation: continuation))
                return (false, state.nextWaiter)
            }
            if ready {
                continuation.resume(returning: true)
                return
            }
            let watchdog = self.watchdog
            Task { [weak self] in
                try? await Task.sleep(for: watchdog)
                self?.expire(id)
            }
        }
        if !satisfied { throw Timeout(waitingFor: description, seen: events) }
    }

    /// Waits until an event matching `predicate` has been recorded (anywhere, not by cursor).
    public func waitFor(_ description: String, _ predicate: @escaping @Sendable (NookActivityEvent) -> Bool) async throws {
        try await waitUntil(description) { events, _ in events.contains(where: predicate) }
    }

    private func append(_ event: NookActivityEvent) {
        let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.events.append(event)
            guard !state.waiters.isEmpty else { return [] }
            let (events, cursor) = (state.events, state.cursor)
            // Each condition is asked once an event: a test's condition may scan every event.
            var ready: [CheckedContinuation<Bool, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.isSatisfied(events, cursor) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    private func expire(_ id: UInt64) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(returning: false)
    }
}
