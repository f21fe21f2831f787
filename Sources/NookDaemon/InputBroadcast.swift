import NookActivities
import NookProtocol

/// Presses of the open and dismiss inputs, for `inputs` streams (E8). A minute-old press means
/// nothing to a key-driven menu: a subscriber that does not read loses the oldest first.
typealias InputBroadcast = Broadcast<InputMessage>

extension Broadcast<InputMessage> {
    convenience init() { self.init(backlog: 256) }
}

/// Messages handed to every subscriber's stream (a socket client's subscription), each stream
/// keeping at most `backlog` unread, the oldest dropped first. Other threads publish (the GPIO
/// poll thread, a connection's task), so the subscriber list is guarded by `Locked` (visible to TSan).
final class Broadcast<Message: Sendable>: Sendable {
    private struct Subscribers {
        var next = 0
        var streams: [Int: AsyncStream<Message>.Continuation] = [:]
    }

    let backlog: Int
    private let subscribers = Locked(Subscribers())

    init(backlog: Int) { self.backlog = backlog }

    func subscribe() -> AsyncStream<Message> {
        let (stream, continuation) = AsyncStream.makeStream(of: Message.self, bufferingPolicy: .bufferingNewest(backlog))
        let key = subscribers.withLock { state in
            defer { state.next += 1 }
            state.streams[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [subscribers] _ in subscribers.withLock { _ = $0.streams.removeValue(forKey: key) } }
        return stream
    }

    /// Whether a stream is open to hear what is published now.
    var isHeard: Bool { subscribers.withLock { !$0.streams.isEmpty } }

    /// Hands `message` to every stream; returns what a full stream dropped for it (its oldest).
    @discardableResult
    func publish(_ message: Message) -> [Message] {
        let streams = subscribers.withLock { Array($0.streams.values) }
        return streams.compactMap { stream in
            if case .dropped(let oldest) = stream.yield(message) { oldest } else { nil }
        }
    }
}
