import NookActivities

/// The wire form of who sent an activity (U3, U4): `{"uid":…,"pid":…,"name":…}`. nookd fills
/// it from the socket's peer credentials; a client states at most the name (an enqueue's `sender`).
public enum SenderPayload {
    /// The longest name a client may state for the sender it relays (an enqueue's `sender`).
    public static let maximumNameBytes = 64

    public static func encode(_ sender: NookSender) -> JSONValue {
        var members: [(String, JSONValue)] = [("uid", .number(Double(sender.uid))), ("pid", .number(Double(sender.pid)))]
        if let name = sender.name { members.append(("name", .string(name))) }
        if sender.relayed { members.append(("relayed", .bool(true))) }
        return .object(members)
    }

    /// Nil for anything that is not a sender (an older record without one reads as unknown).
    public static func decode(_ value: JSONValue) -> NookSender? {
        guard let uid = value["uid"]?.numberValue.flatMap({ UInt32(exactly: $0) }),
              let pid = value["pid"]?.numberValue.flatMap({ Int32(exactly: $0) }) else { return nil }
        return NookSender(uid: uid, pid: pid, name: value["name"]?.text, relayed: value["relayed"] == .bool(true))
    }
}
