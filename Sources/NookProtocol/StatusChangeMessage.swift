/// In a `watch` stream: something `status` reports changed that no activity event tells
/// (issue 16): engagement, a queue suspended or resumed, the home content, the foreground
/// module. A watcher that mirrors the status (nook-mqtt's retained `state`) asks `status`
/// again on this line instead of polling it.
public struct StatusChangeMessage: Sendable, Equatable {
    public enum Change: String, Sendable, CaseIterable {
        case engaged, suspended, home, foreground
    }

    public var change: Change

    public init(_ change: Change) { self.change = change }

    public var json: JSONValue {
        .object([("event", .string("status")), ("changed", .string(change.rawValue))])
    }

    /// Nil for a line that is not a status change (every other event).
    public init?(json: JSONValue) {
        guard let reader = try? FieldReader(json, path: "event"), (try? reader.string("event")) == "status",
              let name = try? reader.requiredString("changed"), let change = Change(rawValue: name) else { return nil }
        self.change = change
    }
}
