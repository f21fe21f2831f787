import Synchronization

/// Carries requests from threads that cannot await (GPIO callbacks, engagement observers) to
/// the queue's actor in the order they were posted.
///
/// A `Task` per request would not do: unstructured tasks reach the actor in whatever order the
/// executor runs them, so a dismiss then a cancel from one thread could apply the other way
/// round. Here requests wait in one FIFO, and one task at a time delivers the whole backlog.
final class NookQueueMailbox: Sendable {
    enum Request: Sendable {
        case dismiss(NookActivityID)
        case dismissCurrent
        case cancel(NookActivityID)
        case engagementChanged
        case surfaceFreed
    }

    private struct State {
        var backlog: [Request] = []
        var delivering = false
    }

    private let state = Mutex(State())

    func post(_ request: Request, to queue: NookActivityQueue) {
        let startDelivery = state.withLock { state in
            state.backlog.append(request)
            defer { state.delivering = true }
            return !state.delivering
        }
        guard startDelivery else { return }
        Task { await self.deliver(to: queue) }
    }

    private func deliver(to queue: NookActivityQueue) async {
        while true {
            let batch: [Request] = state.withLock { state in
                if state.backlog.isEmpty { state.delivering = false }
                defer { state.backlog.removeAll() }
                return state.backlog
            }
            guard !batch.isEmpty else { return }
            await queue.apply(batch)
        }
    }
}
