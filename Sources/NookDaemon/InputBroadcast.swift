import NookProtocol
import NookActivities
import NookSystem

/// Presses of the open and dismiss inputs, fanned out to every `inputs` stream (E8). The GPIO
/// poll thread publishes, so the subscriber list is guarded by `Locked` (visible to TSan).
final class InputBroadcast: Sendable {
    private struct Subscribers {
        var next = 0
        var streams: [Int: AsyncStream<InputMessage>.Continuation] = [:]
    }

    /// Presses kept for a subscriber that does not read; older ones are dropped first (a
    /// press minutes old means nothing to a key-driven menu).
    static let backlog = 256

    private let subscribers = Locked(Subscribers())

    func subscribe() -> AsyncStream<InputMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: InputMessage.self, bufferingPolicy: .bufferingNewest(Self.backlog))
        let key = subscribers.withLock { state in
            defer { state.next += 1 }
            state.streams[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [subscribers] _ in subscribers.withLock { _ = $0.streams.removeValue(forKey: key) } }
        return stream
    }

    func publish(_ message: InputMessage) {
        let streams = subscribers.withLock { Array($0.streams.values) }
        for stream in streams { stream.yield(message) }
    }
}
