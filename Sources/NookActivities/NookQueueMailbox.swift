import Synchronization

/// Carries requests from threads that cannot await (GPIO callbacks, engagement observers) to
/// the queue's actor in the order they were posted.
///
/// A `Task` per request would not do: unstructured tasks reach the actor in whatever order the
/// executor runs them, so a dismiss then a cancel from one thread could apply the other way
/// round. Here requests go into one stream, and one task, started with the first request,
/// delivers them in order for the queue's life. (A stream rather than a lock of our own:
/// ThreadSanitizer sees the stream's synchronisation, not a `Mutex`'s futex.)
final class NookQueueMailbox: Sendable {
    enum Request: Sendable {
        case dismiss(NookActivityID)
        case dismissCurrent
        case invokeCurrent
        case cancel(NookActivityID)
        case engagementChanged
        case surfaceFreed
    }

    private let requests: AsyncStream<Request>
    private let continuation: AsyncStream<Request>.Continuation
    private let delivering = Atomic<Bool>(false)

    init() {
        (requests, continuation) = AsyncStream.makeStream(of: Request.self)
    }

    /// Ends the delivery task with the queue that owns this mailbox.
    deinit { continuation.finish() }

    func post(_ request: Request, to queue: NookActivityQueue) {
        continuation.yield(request)
        guard !delivering.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let requests = self.requests
        Task { [weak queue] in
            for await request in requests {
                guard let queue else { return }
                await queue.apply([request])
            }
        }
    }
}
