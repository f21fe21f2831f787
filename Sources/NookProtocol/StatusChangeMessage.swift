/// In a `watch` stream: something `status` reports changed that no activity event tells:
/// engagement, a queue suspended or resumed, the home content, the foreground
/// module, the indicator lights, the sound output's state (a sound began or ended), the display
/// switched off or on or its brightness set. A watcher that mirrors the status (nook-mqtt's retained `state`) asks `status`
/// again on this line instead of polling it.
public struct StatusChangeMessage: Sendable, Equatable {
    public enum Change: String, Sendable, CaseIterable {
        case engaged, suspended, home, foreground, indicators, sound, display
    }

    public var change: Change
    /// When nookd saw the change, in seconds on the clock of the events' `at` (so a watcher can
    /// tell how long after someone left the next card took the glass, however late it reads).
    public var at: Double?

    public init(_ change: Change, at: Double? = nil) {
        self.change = change
        self.at = at.map { ($0 * 1000).rounded() / 1000 }
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("event", .string("status")), ("changed", .string(change.rawValue))]
        if let at { members.append(("at", .number(at))) }
        return .object(members)
    }

    /// Nil for a line that is not a status change (every other event).
    public init?(json: JSONValue) {
        guard let reader = try? FieldReader(json, path: "event"), (try? reader.string("event")) == "status",
              let name = try? reader.requiredString("changed"), let change = Change(rawValue: name) else { return nil }
        self.change = change
        at = try? reader.number("at", in: -1e12...1e12)
    }
}
