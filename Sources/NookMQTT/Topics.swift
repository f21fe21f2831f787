/// The bridge's topics (E4): `PREFIX/DEVICE/…` for this board, `PREFIX/all/activity` for every
/// board, and AWTRIX's notification and custom-app topics under ``awtrixPrefix`` (A3).
public struct Topics: Sendable, Equatable {
    public let prefix: String
    public let device: String
    /// Where AWTRIX's topics start: `mqtt.awtrix_prefix`, or `PREFIX/DEVICE` unless set (an
    /// AWTRIX owner sets it to the clock's old prefix, and its senders need no change).
    public let awtrixPrefix: String

    public init(prefix: String, device: String, awtrixPrefix: String? = nil) {
        (self.prefix, self.device) = (prefix, device)
        self.awtrixPrefix = awtrixPrefix ?? "\(prefix)/\(device)"
    }

    public var activity: String { "\(prefix)/\(device)/activity" }
    public var allActivity: String { "\(prefix)/all/activity" }
    public var command: String { "\(prefix)/\(device)/command" }
    public var state: String { "\(prefix)/\(device)/state" }
    public var event: String { "\(prefix)/\(device)/event" }
    public var error: String { "\(prefix)/\(device)/error" }
    public var availability: String { "\(prefix)/\(device)/availability" }
    /// AWTRIX's `[PREFIX]/custom/[app]`, one level for the app's name.
    public var customApps: String { "\(awtrixPrefix)/custom/+" }
    public var switchApp: String { "\(awtrixPrefix)/switch" }
    public var nextApp: String { "\(awtrixPrefix)/nextapp" }
    public var previousApp: String { "\(awtrixPrefix)/previousapp" }
    /// AWTRIX's `[PREFIX]/notify`: a notification, as its HTTP `/api/notify` takes it.
    public var notify: String { "\(awtrixPrefix)/notify" }
    /// AWTRIX's `[PREFIX]/notify/dismiss`: the held notification goes.
    public var notifyDismiss: String { "\(awtrixPrefix)/notify/dismiss" }

    /// What the bridge subscribes to.
    public var inbound: [String] { [activity, allActivity, command, notify, notifyDismiss, customApps, switchApp, nextApp, previousApp] }

    public enum Inbound: Sendable, Equatable {
        case activity, command
        /// AWTRIX's notification: a card, like `activity`.
        case notify
        /// AWTRIX's dismissal of a held notification.
        case notifyDismiss
        /// AWTRIX's custom app of this name.
        case customApp(String)
        case switchApp, nextApp, previousApp
    }

    public func kind(of topic: String) -> Inbound? {
        if topic == activity || topic == allActivity { return .activity }
        if topic == command { return .command }
        if topic == notify { return .notify }
        if topic == notifyDismiss { return .notifyDismiss }
        if topic == switchApp { return .switchApp }
        if topic == nextApp { return .nextApp }
        if topic == previousApp { return .previousApp }
        let custom = awtrixPrefix + "/custom/"
        if topic.hasPrefix(custom) {
            let name = String(topic.dropFirst(custom.count))
            if !name.isEmpty, !name.contains("/") { return .customApp(name) }
        }
        return nil
    }
}
