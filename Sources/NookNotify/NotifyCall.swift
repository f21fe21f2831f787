/// The arguments of one `org.freedesktop.Notifications.Notify` call (spec 1.2), read off the
/// bus and already clamped (``NotifyLimits``): plain Swift values, so the mapping to an
/// activity is tested without a bus.
public struct NotifyCall: Sendable, Equatable {
    public var appName: String
    /// 0, or the id of a notification this one replaces.
    public var replacesID: UInt32
    /// An icon name (`dialog-information`) or a `file://` URI or path; may be empty.
    public var appIcon: String
    public var summary: String
    /// May carry markup (we advertise `body-markup`); see ``Markup``.
    public var body: String
    /// Action keys and labels, in pairs as the spec sends them: `["default", "Open", …]`.
    public var actions: [String]
    public var hints: [String: HintValue]
    /// Milliseconds: -1 the server's default, 0 never, more than 0 that long.
    public var expireTimeout: Int32

    public init(appName: String = "", replacesID: UInt32 = 0, appIcon: String = "", summary: String, body: String = "",
                actions: [String] = [], hints: [String: HintValue] = [:], expireTimeout: Int32 = -1) {
        (self.appName, self.replacesID, self.appIcon, self.summary, self.body) = (appName, replacesID, appIcon, summary, body)
        (self.actions, self.hints, self.expireTimeout) = (actions, hints, expireTimeout)
    }

    /// The action keys (every other entry of ``actions``).
    public var actionKeys: [String] {
        stride(from: 0, to: actions.count - 1, by: 2).map { actions[$0] }
    }

    public var hasDefaultAction: Bool { actionKeys.contains("default") }

    /// The `resident` hint: the notification stays when its action is invoked, instead of
    /// closing as dismissed by the user (spec 1.2). A byte or a boolean, as clients send it.
    public var isResident: Bool {
        switch hints["resident"] {
        case .boolean(let value)?: value
        case .integer(let value)?: value != 0
        default: false
        }
    }

    /// The `urgency` hint: 0 low, 1 normal, 2 critical. The spec says a byte; Chromium sends
    /// a uint32, so any integer is read. A value outside 0...2 means nothing the spec defines:
    /// normal, never critical (``urgencyNote`` says so in the log).
    public var urgency: Int64 {
        if case .integer(let value)? = hints["urgency"], (0...2).contains(value) { return value }
        return 1
    }

    /// Why the `urgency` hint was read as normal, if it was out of range.
    public var urgencyNote: String? {
        guard case .integer(let value)? = hints["urgency"], !(0...2).contains(value) else { return nil }
        return "urgency \(value) is not 0, 1 or 2: read as normal"
    }

    /// The hints the mapping and the registry read; the rest are dropped by ``compacted()``.
    static let readHints: Set<String> = ["urgency", "value", "transient", "resident", "category", "image-path", "image_path",
                                         "x-dunst-stack-tag", "x-canonical-private-synchronous",
                                         "sound-name", "sound-file", "suppress-sound"]

    /// The call with only what is read of it: the hints above and, of the actions, whether
    /// there is a default one. What waits for nookd is then a few kilobytes, not the 200 a
    /// call of 64 long hints and 64 long actions may carry.
    public func compacted() -> NotifyCall {
        var call = self
        call.hints = hints.filter { Self.readHints.contains($0.key) }
        call.actions = hasDefaultAction ? ["default", ""] : []
        return call
    }

    /// `x-dunst-stack-tag`, else `x-canonical-private-synchronous`: notifications sharing it
    /// replace each other.
    public var stackTag: String? {
        for name in ["x-dunst-stack-tag", "x-canonical-private-synchronous"] {
            if case .string(let tag)? = hints[name], !tag.isEmpty { return tag }
        }
        return nil
    }
}

/// A hint's value, of the types the mapping reads: text, a number, a flag. A hint of any other
/// type (an object path, an array, a struct, a nested variant ...) is not read at all.
public enum HintValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case boolean(Bool)
    case double(Double)
}

/// How much of a call is kept: the rest is cut off with a log line, never refused, so an
/// over-long body still reaches the glass.
public enum NotifyLimits {
    /// Bytes of the summary and app name read off the message (the card shows at most 512
    /// characters of title).
    public static let summaryBytes = 2048
    public static let bodyBytes = 8192
    /// Icon names, paths, hint strings and action strings.
    public static let shortStringBytes = 1024
    /// Action strings kept (keys and labels: 64 actions).
    public static let actionStrings = 128
    /// Hints read; the rest are skipped.
    public static let hints = 64
}
