import NookProtocol

/// Home Assistant MQTT discovery (E7): one retained config message per entity under
/// `DISCOVERY_PREFIX/COMPONENT/NODE_ID/OBJECT_ID/config`, all of one device, all following
/// the bridge's availability topic. Schema: https://www.home-assistant.io/integrations/mqtt/
/// (discovery) and the notify, sensor, binary_sensor, button and switch MQTT platforms.
public struct Discovery: Sendable {
    public let topics: Topics
    public let prefix: String

    public init(topics: Topics, prefix: String) { (self.topics, self.prefix) = (topics, prefix) }

    /// HA allows only `[a-zA-Z0-9_-]` in node and object ids.
    public var nodeID: String {
        "nook_" + String(topics.device.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" })
    }

    public struct Entity: Sendable {
        public var component: String
        public var object: String
        public var config: JSONValue
    }

    public func topic(_ entity: Entity) -> String { "\(prefix)/\(entity.component)/\(nodeID)/\(entity.object)/config" }

    public var entities: [Entity] {
        let device = JSONValue.object([
            ("identifiers", .array([.string(nodeID)])),
            ("name", .string("Nook \(topics.device)")),
            ("manufacturer", .string("Nook")),
            ("model", .string("nook-mqtt bridge")),
        ])
        func entity(_ component: String, _ object: String, _ name: String, _ specific: [(String, JSONValue)]) -> Entity {
            var members: [(String, JSONValue)] = [
                ("name", .string(name)),
                ("unique_id", .string("\(nodeID)_\(object)")),
                ("device", device),
                ("availability", .array([.object([
                    ("topic", .string(topics.availability)),
                    ("payload_available", .string("online")),
                    ("payload_not_available", .string("offline")),
                ])])),
                ("origin", .object([("name", .string("nook-mqtt"))])),
            ]
            members += specific
            return Entity(component: component, object: object, config: .object(members))
        }
        return [
            // Plain text on the activity topic is a title: what HA's notify.send_message sends.
            entity("notify", "notify", "Card", [("command_topic", .string(topics.activity)), ("qos", .number(1))]),
            entity("sensor", "card", "Card on the glass", [
                ("state_topic", .string(topics.state)),
                ("value_template", .string("{{ value_json.current.title if value_json.current else 'none' }}")),
                ("json_attributes_topic", .string(topics.state)),
                ("json_attributes_template", .string("{{ (value_json.current or {}) | tojson }}")),
                ("icon", .string("mdi:card-text-outline")),
            ]),
            entity("sensor", "pending", "Pending cards", [
                ("state_topic", .string(topics.state)),
                ("value_template", .string("{{ value_json.pending }}")),
                ("state_class", .string("measurement")),
                ("icon", .string("mdi:tray-full")),
            ]),
            entity("binary_sensor", "engaged", "Engaged", [
                ("state_topic", .string(topics.state)),
                ("value_template", .string("{{ 'ON' if value_json.engaged else 'OFF' }}")),
                ("payload_on", .string("ON")),
                ("payload_off", .string("OFF")),
                ("device_class", .string("occupancy")),
            ]),
            entity("button", "dismiss", "Dismiss", [
                ("command_topic", .string(topics.command)),
                ("payload_press", .string("dismiss")),
                ("qos", .number(1)),
            ]),
            entity("switch", "suspend", "Do not disturb", [
                ("command_topic", .string(topics.command)),
                ("state_topic", .string(topics.state)),
                ("value_template", .string("{{ 'suspend' if value_json.suspended else 'resume' }}")),
                ("payload_on", .string("suspend")),
                ("payload_off", .string("resume")),
                ("state_on", .string("suspend")),
                ("state_off", .string("resume")),
                ("qos", .number(1)),
                ("icon", .string("mdi:bell-off")),
            ]),
        ]
    }
}
