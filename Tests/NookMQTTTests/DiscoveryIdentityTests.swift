import NookConfig
import NookMQTT
import NookProtocol
import Testing

/// M6: who the board says it is in Home Assistant's device registry, and the topic its AWTRIX
/// blueprints address.
@Suite("M6 the board's identity in discovery")
struct DiscoveryIdentityTests {
    @Test func m6_theAWTRIXIdentityIsWhatAnAWTRIX3ClockAnnouncesAndOnlyWhenAskedFor() throws {
        let plain = try MQTTConfig(ConfigDocument(parsing: "[mqtt]\ndevice = \"b1\"\n"))
        #expect(plain.identity == .nook)
        let asked = try MQTTConfig(ConfigDocument(parsing: "[mqtt]\ndevice = \"b1\"\n[homeassistant]\nidentity = \"awtrix\"\n"))
        #expect(asked.identity == .awtrix)
        for (identity, maker, model) in [(Discovery.Identity.nook, "Nook", "nook-mqtt bridge"), (.awtrix, "Blueforcer", "AWTRIX 3")] {
            let discovery = Discovery(topics: Topics(prefix: "nook", device: "b1"), prefix: "homeassistant", identity: identity)
            for entity in discovery.entities {
                #expect(entity.config["device"]?["manufacturer"]?.text == maker && entity.config["device"]?["model"]?.text == model)
            }
        }
    }

    /// Blueprints read the "Device topic" sensor's state and append `/custom/APP`: the state is
    /// the AWTRIX prefix, as a Jinja string literal whatever the prefix holds.
    @Test func m6_theDeviceTopicSensorsTemplateIsTheAWTRIXPrefixQuoted() {
        for (prefix, literal) in [("awtrix_664dc4", "'awtrix_664dc4'"), (#"o'brien\clock"#, #"'o\'brien\\clock'"#)] {
            let discovery = Discovery(topics: Topics(prefix: "nook", device: "b1", awtrixPrefix: prefix), prefix: "homeassistant")
            let sensor = discovery.entities.first { $0.object == "device_topic" }
            #expect(sensor?.component == "sensor" && sensor?.config["name"]?.text == "Device topic")
            #expect(sensor?.config["value_template"]?.text == "{{ \(literal) }}")
        }
        let unset = Discovery(topics: Topics(prefix: "nook", device: "b1"), prefix: "homeassistant")
        #expect(unset.entities.first { $0.object == "device_topic" }?.config["value_template"]?.text == "{{ 'nook/b1' }}")
    }
}
