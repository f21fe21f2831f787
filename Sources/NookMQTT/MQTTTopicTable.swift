import NookProtocol

/// Whose senders a topic is for.
public enum MQTTTopicShape: String, Sendable, CaseIterable {
    /// Nook's own: activities, commands, and what the bridge publishes.
    case native
    /// AWTRIX 3's notification and custom-app topics (A3).
    case awtrix = "AWTRIX"
}

/// One of nook-mqtt's topics (E4): its pattern as docs/mqtt.md and nook-mqtt(8) write it, which
/// way it goes, the shape it speaks, what it may ask of nookd and, for one that comes in, the
/// handler that turns a message into requests. Subscriptions, the lookup of a message's topic
/// and the docs' topic lists all come from ``MQTTTopicTable/rows``.
public struct MQTTTopicRow: Sendable {
    public enum Direction: String, Sendable {
        case inbound = "in", outbound = "out"
    }

    /// `PREFIX/DEVICE/activity`, `AWTRIX/custom/APP`: `PREFIX`, `DEVICE` and `AWTRIX` stand for
    /// the configured levels, a last level `APP` for any one level (`+`).
    public let pattern: String
    public let direction: Direction
    public let shape: MQTTTopicShape
    /// The operations a message on it may ask nookd for; anything else is refused.
    public let asks: Set<NookOperation.Name>
    /// A retained message is sent again at every subscription, not only a new one: it is state
    /// (an AWTRIX custom app), not an event.
    let retainedEveryTime: Bool
    /// What a message on it is, given the text of its `APP` level (empty without one).
    let kind: (@Sendable (String) -> Topics.Inbound)?
    /// Turns a message into the requests for nookd, reporting a refusal itself.
    let handler: (@Sendable (MQTTBridge, MQTTMessage, Topics.Inbound, UInt64) -> [MQTTBridge.Delivery])?

    /// A topic the bridge subscribes to.
    init(in pattern: String, _ shape: MQTTTopicShape, asks: Set<NookOperation.Name>, retainedEveryTime: Bool = false,
         kind: @escaping @Sendable (String) -> Topics.Inbound,
         handler: @escaping @Sendable (MQTTBridge, MQTTMessage, Topics.Inbound, UInt64) -> [MQTTBridge.Delivery]) {
        (self.pattern, self.direction, self.shape, self.asks) = (pattern, .inbound, shape, asks)
        (self.retainedEveryTime, self.kind, self.handler) = (retainedEveryTime, kind, handler)
    }

    /// A topic the bridge publishes to.
    init(out pattern: String, _ shape: MQTTTopicShape = .native) {
        (self.pattern, self.direction, self.shape, self.asks) = (pattern, .outbound, shape, [])
        (self.retainedEveryTime, self.kind, self.handler) = (false, nil, nil)
    }

    /// The level that stands for any one level.
    static let anyLevel = "APP"

    /// The topic under these prefixes; a last level `APP` is `+`.
    func topic(prefix: String, device: String, awtrixPrefix: String) -> String {
        var levels = pattern.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch levels.first {
        case "PREFIX": levels[0] = prefix
        case "AWTRIX": levels[0] = awtrixPrefix
        default: break
        }
        if levels.count > 1, levels[1] == "DEVICE" { levels[1] = device }
        if levels.last == Self.anyLevel { levels[levels.count - 1] = "+" }
        return levels.joined(separator: "/")
    }
}

/// nook-mqtt's topics, one row each (E4, A3): adding a topic is a row here and, for a new kind
/// of message, its handler.
public enum MQTTTopicTable {
    public static let rows: [MQTTTopicRow] = [
        activity,
        MQTTTopicRow(in: "PREFIX/all/activity", .native, asks: [.enqueue], kind: { _ in .activity }, handler: cards),
        command, siren, display, state, event, error, availability,
        MQTTTopicRow(in: "AWTRIX/notify", .awtrix, asks: [.enqueue], kind: { _ in .notify }, handler: cards),
        MQTTTopicRow(in: "AWTRIX/notify/dismiss", .awtrix, asks: [.status, .dismiss], kind: { _ in .notifyDismiss }) { bridge, message, _, digest in
            bridge.notificationDismissal(message, digest: digest)
        },
        // A retained custom app is the app's state (AWTRIX's own clock takes it at every
        // connect): it sets the app again on every subscription, a resumed session's too.
        MQTTTopicRow(in: "AWTRIX/custom/APP", .awtrix, asks: MQTTBridge.ownedAppOperations.union([.appList]), retainedEveryTime: true,
                     kind: { .customApp($0) }, handler: apps),
        MQTTTopicRow(in: "AWTRIX/switch", .awtrix, asks: [.appSwitch], kind: { _ in .switchApp }, handler: apps),
        MQTTTopicRow(in: "AWTRIX/nextapp", .awtrix, asks: [.appNext], kind: { _ in .nextApp }, handler: apps),
        MQTTTopicRow(in: "AWTRIX/previousapp", .awtrix, asks: [.appPrevious], kind: { _ in .previousApp }, handler: apps),
    ] + deviceRows + [
        // AWTRIX's stats, as a clock publishes them (M1).
        MQTTTopicRow(out: "AWTRIX/stats", .awtrix), MQTTTopicRow(out: "AWTRIX/stats/effects", .awtrix),
        MQTTTopicRow(out: "AWTRIX/stats/transitions", .awtrix), MQTTTopicRow(out: "AWTRIX/stats/loop", .awtrix),
    ]

    /// AWTRIX's device topics (M1), one row each: AWTRIX has no topic for `erase` and
    /// `resetSettings` (HTTP only). What Nook does not carry out is logged and said on the
    /// error topic, never dropped.
    static let deviceRows: [MQTTTopicRow] = AWTRIXDevice.Request.allCases.filter { $0 != .erase && $0 != .resetSettings }.map { request in
        let asks: Set<NookOperation.Name> = request.playsSound ? [.soundPlay] : request.switchesDisplay ? [.status, .display, .soundVolume]
            : request.indicatorNumber != nil ? [.indicator] : [.status]
        return MQTTTopicRow(in: "AWTRIX/\(request.rawValue)", .awtrix, asks: asks, kind: { _ in .device(request) }) { bridge, message, _, _ in
            bridge.deviceRequest(request, message)
        }
    }

    // The rows ``Topics`` names, for the bridge to publish to and discovery to announce.
    static let activity = MQTTTopicRow(in: "PREFIX/DEVICE/activity", .native, asks: [.enqueue], kind: { _ in .activity }, handler: cards)
    static let command = MQTTTopicRow(in: "PREFIX/DEVICE/command", .native, asks: InboundMessage.commands, kind: { _ in .command }, handler: cards)
    /// Home Assistant's siren (B4): read by ``HomeAssistantSiren``.
    static let siren = MQTTTopicRow(in: "PREFIX/DEVICE/siren", .native, asks: [.soundPlay, .soundStop], kind: { _ in .siren }) { bridge, message, _, _ in
        bridge.siren(message)
    }
    /// Home Assistant's light for the display (M1): read by ``HomeAssistantLight``.
    static let display = MQTTTopicRow(in: "PREFIX/DEVICE/display", .native, asks: [.display], kind: { _ in .display }) { bridge, message, _, _ in
        bridge.displayLight(message)
    }
    static let state = MQTTTopicRow(out: "PREFIX/DEVICE/state")
    static let event = MQTTTopicRow(out: "PREFIX/DEVICE/event")
    static let error = MQTTTopicRow(out: "PREFIX/DEVICE/error")
    static let availability = MQTTTopicRow(out: "PREFIX/DEVICE/availability")

    /// An activity, a command or a notification: one request, read by ``InboundMessage``.
    static let cards: @Sendable (MQTTBridge, MQTTMessage, Topics.Inbound, UInt64) -> [MQTTBridge.Delivery] = { bridge, message, kind, digest in
        bridge.cardDeliveries(message, kind: kind, digest: digest)
    }

    /// A custom app, or a turn of the rotation, read by ``AWTRIXInbound``.
    static let apps: @Sendable (MQTTBridge, MQTTMessage, Topics.Inbound, UInt64) -> [MQTTBridge.Delivery] = { bridge, message, kind, digest in
        bridge.awtrixDeliveries(kind, message: message, digest: digest)
    }
}
