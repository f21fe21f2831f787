@testable import NookHTTP
import NookProtocol
import Testing

/// M4 and B1: LaMetric's `audio` block is the board's sound output as nookd's status says it,
/// which Home Assistant's LaMetric integration shows as its Volume number.
struct LaMetricAudioTests {
    static func audio(output: String, state: String, volume: Double?) -> JSONValue {
        var sound: [(String, JSONValue)] = [("output", .string(output)), ("state", .string(state))]
        if let volume { sound.append(("volume", .number(volume))) }
        return LaMetricDevice.audio(status: .object([("sound", .object(sound))]))
    }

    @Test func m4_b1_theAudioIsAvailableWhileASoundOutputWorksAtItsVolume() {
        let alsa = Self.audio(output: "alsa", state: "idle", volume: 80)
        #expect(alsa["available"] == .bool(true) && alsa["volume"] == .number(80), "\(alsa)")
        let failing = Self.audio(output: "alsa", state: "unavailable", volume: 80)
        #expect(failing["available"] == .bool(false), "\(failing)")
        let none = Self.audio(output: "none", state: "none", volume: 80)
        #expect(none["available"] == .bool(false), "\(none)")
        // A nookd without a sound section (or from before B1): no audio, volume 0.
        let old = LaMetricDevice.audio(status: .object([]))
        #expect(old["available"] == .bool(false) && old["volume"] == .number(0), "\(old)")
    }
}
