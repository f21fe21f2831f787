import NookProtocol

/// Home Assistant MQTT discovery (E7): one retained config message per entity under
/// `DISCOVERY_PREFIX/COMPONENT/NODE_ID/OBJECT_ID/config`, all of one device, all following
/// the bridge's availability topic. Schema: https://www.home-assistant.io/integrations/mqtt/
/// (discovery) and the notify, sensor, binary_sensor, button, switch, siren and light MQTT
/// platforms.
public struct Discovery: Sendable {
    public let topics: Topics
    public let prefix: String
    public let identity: Identity

    public init(topics: Topics, prefix: String, identity: Identity = .nook) { (self.topics, self.prefix, self.identity) = (topics, prefix, identity) }

    /// Who the device says it is (`homeassistant.identity`): Nook, or, where a house's
    /// blueprints pick their clock by `manufacturer: Blueforcer` and `model: AWTRIX 3` in Home
    /// Assistant's device registry, what an AWTRIX 3 clock announces, so they find the board.
    public enum Identity: String, Sendable, CaseIterable {
        case nook, awtrix

        var manufacturer: String { self == .awtrix ? "Blueforcer" : "Nook" }
        var model: String { self == .awtrix ? "AWTRIX 3" : "nook-mqtt bridge" }
    }

    /// What this bridge tells Home Assistant it runs (the device's `sw_version`), so a fleet's
    /// owner sees which boards run which release.
    public static let softwareVersion = "1.0"

    /// HA allows only `[a-zA-Z0-9_-]` in node and object ids. A device name that already fits is
    /// used as it is; one that does not gets its other characters replaced and a hash of the
    /// whole name appended, so `kitchen.1` and `kitchen_1` stay two devices rather than the
    /// last one to connect taking over the other's entities.
    public var nodeID: String {
        let device = topics.device
        if device.allSatisfy(Self.allowedInID) { return "nook_" + device }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in device.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let digits = String(hash & 0xffff_ffff, radix: 16)
        return "nook_" + String(device.map { Self.allowedInID($0) ? $0 : "_" }) + "_" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    static func allowedInID(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "_" || character == "-")
    }

    /// Home Assistant keeps a state of at most 255 characters (a longer one becomes `unknown`
    /// with an error); titles may be longer.
    public static let stateCharacters = 255

    /// The card sensor's state: the title on the glass, cut to fit a state, or no value
    /// (`None`: HA's `unknown`) when the glass is empty. A title that is literally `None` is
    /// quoted, or HA would take it for no value.
    static let cardValueTemplate = """
        {% set c = value_json.current %}{% if not c %}None{% elif c.title == 'None' %}"None"\
        {% elif c.title | length > \(stateCharacters) %}{{ c.title[:\(stateCharacters - 1)] }}…{% else %}{{ c.title }}{% endif %}
        """

    /// The card as attributes: the whole title and the other fields; none when the glass is
    /// empty. `icon` is a name Home Assistant's MQTT integration drops from attributes, so the
    /// card's icon is `card_icon`.
    static let cardAttributesTemplate = """
        {% set c = value_json.current %}{% if c %}{{ {'id': c.get('id'), 'title': c.get('title'), \
        'subtitle': c.get('subtitle'), 'card_icon': c.get('icon'), 'tint': c.get('tint'), \
        'priority': c.get('priority'), 'key': c.get('key'), 'dwell': c.get('dwell'), \
        'blocker': c.get('blocker', false), 'timeout': c.get('timeout'), 'progress': c.get('progress')} | tojson }}\
        {% else %}{}{% endif %}
        """

    public struct Entity: Sendable {
        public var component: String
        public var object: String
        public var config: JSONValue
    }

    public func topic(_ entity: Entity) -> String { "\(prefix)/\(entity.component)/\(nodeID)/\(entity.object)/config" }

    /// What the board has that an entity needs, from nookd's status: a sound output for the
    /// siren, a brightness nookd sets for the light's brightness. An entity the board cannot
    /// carry out is not announced, rather than announced and then refused at every use.
    public struct Offers: Equatable, Sendable {
        public var sound: Bool
        public var brightness: Bool

        public init(sound: Bool = true, brightness: Bool = true) { (self.sound, self.brightness) = (sound, brightness) }

        public init(status: StatusAnswer) {
            self.init(sound: status.sound.map { $0.output != "none" } ?? false, brightness: status.brightness != nil)
        }

        /// Every entity, for clearing them all (`--remove-discovery`).
        public static let everything = Offers()
    }

    /// Every entity the bridge may announce, whatever the board has.
    public var entities: [Entity] { entities(offering: .everything) }

    /// The entities of a board that has `offers`.
    public func entities(offering offers: Offers) -> [Entity] {
        let device = JSONValue.object([
            ("identifiers", .array([.string(nodeID)])),
            ("name", .string("Nook \(topics.device)")),
            ("manufacturer", .string(identity.manufacturer)),
            ("model", .string(identity.model)),
            ("sw_version", .string(Self.softwareVersion)),
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
                ("origin", .object([("name", .string("nook-mqtt")), ("sw_version", .string(Self.softwareVersion))])),
            ]
            members += specific
            return Entity(component: component, object: object, config: .object(members))
        }
        var light: [(String, JSONValue)] = [
            ("schema", .string("template")),
            ("command_topic", .string(topics.display)),
            ("command_on_template", .string(#"{"state": "on"{% if brightness is defined %}, "brightness": {{ brightness }}{% endif %}}"#)),
            ("command_off_template", .string(#"{"state": "off"}"#)),
            ("state_topic", .string(topics.state)),
            ("state_template", .string("{{ 'on' if value_json.display.on else 'off' }}")),
        ]
        // Without a brightness nookd sets, a light that only switches (no slider to refuse).
        if offers.brightness { light.append(("brightness_template", .string("{{ value_json.display.brightness }}"))) }
        light += [("qos", .number(1)), ("icon", .string("mdi:monitor"))]
        let siren = entity("siren", "siren", "Sound", [
            ("command_topic", .string(topics.siren)),
            ("state_topic", .string(topics.state)),
            ("state_value_template", .string("{{ 'ON' if value_json.sound == 'playing' else 'OFF' }}")),
            ("available_tones", .array(HomeAssistantSiren.tones.map(JSONValue.string))),
            ("support_duration", .bool(false)),
            ("support_volume_set", .bool(true)),
            ("qos", .number(1)),
            ("icon", .string("mdi:bullhorn")),
        ])
        return [
            // Plain text on the activity topic is a title: what HA's notify.send_message sends.
            entity("notify", "notify", "Card", [("command_topic", .string(topics.activity)), ("qos", .number(1))]),
            entity("sensor", "card", "Card on the glass", [
                ("state_topic", .string(topics.state)),
                ("value_template", .string(Self.cardValueTemplate)),
                ("json_attributes_topic", .string(topics.state)),
                ("json_attributes_template", .string(Self.cardAttributesTemplate)),
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
        ] + (offers.sound ? [
            // B4: a sound now, as the room allows; on while any sound plays (a card's too), off
            // when it ends or is stopped. A chime plays its own length: no duration.
            siren,
        ] : []) + [
            // M1: the display, switched off and on, its brightness set; the templates send what
            // ``HomeAssistantLight`` reads, the brightness only when one was given.
            entity("light", "display", "Display", light),
            // AWTRIX 3's "Device topic": the prefix its topics start at, which blueprints read
            // (`states(sensor…device_topic)` + `/custom/APP`) to address the clock they were given.
            entity("sensor", "device_topic", "Device topic", [
                ("state_topic", .string(topics.state)),
                ("value_template", .string("{{ '\(Self.jinjaQuoted(topics.awtrixPrefix))' }}")),
                ("entity_category", .string("diagnostic")),
                ("icon", .string("mdi:id-card")),
            ]),
        ]
    }

    /// `text` inside a single-quoted Jinja string literal.
    static func jinjaQuoted(_ text: String) -> String {
        var quoted = ""
        for character in text {
            if character == "\\" || character == "'" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted
    }
}
