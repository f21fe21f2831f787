/// The bridge's topics (E4): `PREFIX/DEVICE/…` for this board, `PREFIX/all/activity` for every board.
public struct Topics: Sendable, Equatable {
    public let prefix: String
    public let device: String

    public init(prefix: String, device: String) { (self.prefix, self.device) = (prefix, device) }

    public var activity: String { "\(prefix)/\(device)/activity" }
    public var allActivity: String { "\(prefix)/all/activity" }
    public var command: String { "\(prefix)/\(device)/command" }
    public var state: String { "\(prefix)/\(device)/state" }
    public var event: String { "\(prefix)/\(device)/event" }
    public var error: String { "\(prefix)/\(device)/error" }
    public var availability: String { "\(prefix)/\(device)/availability" }

    /// What the bridge subscribes to.
    public var inbound: [String] { [activity, allActivity, command] }

    public enum Inbound: Sendable, Equatable { case activity, command }

    public func kind(of topic: String) -> Inbound? {
        if topic == activity || topic == allActivity { return .activity }
        if topic == command { return .command }
        return nil
    }
}
