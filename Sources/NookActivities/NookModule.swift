/// Names a module: one source of activities with its own queue (Q9–Q11).
public struct NookModuleID: Hashable, Sendable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.init(value) }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// A participant in foreground switches (Q10).
public protocol NookModule: AnyObject, Sendable {
    var id: NookModuleID { get }
    /// Called when the module stops being foreground: join in-flight work (quiesce the queue).
    /// The arbiter waits at most its switch bound (2 s) for it.
    func prepareForSwitchAway() async
    /// Called synchronously after `prepareForSwitchAway` returned or timed out: cheap cleanup.
    func didDeactivate()
    /// Called synchronously when the module becomes foreground.
    func didActivate()
}

extension NookModule {
    public func didDeactivate() {}
    public func didActivate() {}
}

/// The usual module: one activity queue. Switch-away takes the queue off the surface (its
/// presentation ends through the normal path and its claim is released), then lets it drain
/// again in the background, where only its `.high` activities may take the glass (Q9). A queue
/// the user suspended stays suspended.
public final class NookQueueModule: NookModule {
    public let id: NookModuleID
    public let queue: NookActivityQueue

    public init(id: NookModuleID, queue: NookActivityQueue) {
        self.id = id
        self.queue = queue
    }

    public func prepareForSwitchAway() async {
        await queue.yieldSurface()
    }
}
