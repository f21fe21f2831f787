import NookProtocol
/// The bridge's topics (E4): `PREFIX/DEVICE/…` for this board, `PREFIX/all/activity` for every
/// board, and AWTRIX's notification and custom-app topics under ``awtrixPrefix`` (A3).
public struct Topics: Sendable, Equatable {
    public let prefix: String
    public let device: String
    /// Where AWTRIX's topics start: `mqtt.awtrix_prefix`, or `PREFIX/DEVICE` unless set (an
    /// AWTRIX owner sets it to the clock's old prefix, and its senders need no change).
    public let awtrixPrefix: String

    /// Each inbound row's topic under these prefixes, by row (``MQTTTopicTable/rows``), built
    /// once: a message's topic is then one lookup, not a comparison per topic.
    private let exact: [String: Int]
    /// The rows whose last level is any one level, by the topic's start before it.
    private let oneLevel: [(start: String, row: Int)]
    /// The inbound rows' topics, in the table's order.
    private let subscribed: [(topic: String, row: Int)]

    public init(prefix: String, device: String, awtrixPrefix: String? = nil) {
        (self.prefix, self.device) = (prefix, device)
        let awtrix = awtrixPrefix ?? "\(prefix)/\(device)"
        self.awtrixPrefix = awtrix
        var exact: [String: Int] = [:]
        var oneLevel: [(start: String, row: Int)] = []
        var subscribed: [(topic: String, row: Int)] = []
        for (index, row) in MQTTTopicTable.rows.enumerated() where row.direction == .inbound {
            let topic = row.topic(prefix: prefix, device: device, awtrixPrefix: awtrix)
            subscribed.append((topic, index))
            if topic.hasSuffix("/+") { oneLevel.append((String(topic.dropLast()), index)) } else if exact[topic] == nil { exact[topic] = index }
        }
        (self.exact, self.oneLevel, self.subscribed) = (exact, oneLevel, subscribed)
    }

    public static func == (lhs: Topics, rhs: Topics) -> Bool {
        (lhs.prefix, lhs.device, lhs.awtrixPrefix) == (rhs.prefix, rhs.device, rhs.awtrixPrefix)
    }

    /// The topics the bridge names itself (it publishes to them, and discovery announces the
    /// three that take commands), from their rows; the others are only looked up by ``route(_:)``.
    public var activity: String { named(MQTTTopicTable.activity) }
    public var command: String { named(MQTTTopicTable.command) }
    public var siren: String { named(MQTTTopicTable.siren) }
    public var display: String { named(MQTTTopicTable.display) }
    public var state: String { named(MQTTTopicTable.state) }
    public var event: String { named(MQTTTopicTable.event) }
    public var error: String { named(MQTTTopicTable.error) }
    public var availability: String { named(MQTTTopicTable.availability) }

    /// AWTRIX's stats topics the bridge publishes, retained (M1).
    public var awtrixStats: [String] {
        MQTTTopicTable.rows.filter { $0.direction == .outbound && $0.shape == .awtrix }.map(named)
    }
    private func named(_ row: MQTTTopicRow) -> String { row.topic(prefix: prefix, device: device, awtrixPrefix: awtrixPrefix) }

    /// What the bridge subscribes to: the inbound rows' topics.
    public var inbound: [String] { subscribed.map(\.topic) }

    /// The inbound rows with their topics, for subscribing.
    var inboundRows: [(topic: String, row: MQTTTopicRow)] { subscribed.map { ($0.topic, MQTTTopicTable.rows[$0.row]) } }

    public enum Inbound: Sendable, Equatable {
        case activity, command
        /// Home Assistant's siren: a sound played or stopped.
        case siren
        /// Home Assistant's light: the display switched or its brightness set.
        case display
        /// AWTRIX's notification: a card, like `activity`.
        case notify
        /// AWTRIX's dismissal of a held notification.
        case notifyDismiss
        /// AWTRIX's custom app of this name.
        case customApp(String)
        case switchApp, nextApp, previousApp
        /// AWTRIX's device topics (M1): power, settings, indicators, sound, ….
        case device(AWTRIXDevice.Request)
    }

    public func kind(of topic: String) -> Inbound? { route(topic)?.kind }

    /// The row a message's topic is, and what the message is; nil for a topic the bridge does
    /// not serve. A topic that is a row's exactly wins over a row's any-level (`custom/notify`
    /// is an app's name, `notify` not an app).
    func route(_ topic: String) -> (row: MQTTTopicRow, kind: Inbound)? {
        if let index = exact[topic], let kind = MQTTTopicTable.rows[index].kind {
            return (MQTTTopicTable.rows[index], kind(""))
        }
        for (start, index) in oneLevel where topic.hasPrefix(start) {
            let level = topic.dropFirst(start.count)
            guard !level.isEmpty, !level.contains("/"), let kind = MQTTTopicTable.rows[index].kind else { continue }
            return (MQTTTopicTable.rows[index], kind(String(level)))
        }
        return nil
    }
}
