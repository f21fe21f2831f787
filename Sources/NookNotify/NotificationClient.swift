import NookSystem

/// A notification client over one long-lived bus connection, as an application's libnotify
/// is: nook-bench's way to time a Notify without timing a process start (`notify-send`).
public final class NotificationClient {
    private let bus: Bus

    /// Connects to the session bus (`$DBUS_SESSION_BUS_ADDRESS`), or the system bus.
    public init(system: Bool = false) throws(SystemCallError) {
        bus = try Bus(system: system)
    }

    /// `Notify("", 0, "", summary, body, [], {}, expireTimeout)`: the id the server gave it.
    public func notify(summary: String, body: String = "", expireTimeout: Int32 = -1) throws(SystemCallError) -> UInt32 {
        try bus.callForUInt32(destination: NotificationBridge.busName, path: NotificationBridge.objectPath,
                              interface: NotificationBridge.interface, member: "Notify") { writer throws(SystemCallError) in
            try writer.string("nook-bench")
            try writer.uint32(0)
            try writer.string("")
            try writer.string(summary)
            try writer.string(body)
            try writer.strings([])
            try writer.emptyArray(of: "{sv}")
            try writer.int32(expireTimeout)
        }
    }
}
