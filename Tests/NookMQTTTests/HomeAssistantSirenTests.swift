import NookActivities
import NookMQTT
import NookProtocol
import Testing

/// B4: what Home Assistant's MQTT siren publishes (its entity has no `command_template`, so
/// `turn_on` sends the service's given parameters as JSON beside `"state": "ON"`), read as the
/// sound nookd plays or the stop, and each payload it cannot be is refused naming its field.
@Suite("B4 Home Assistant's siren payloads")
struct HomeAssistantSirenTests {
    func read(_ text: String) throws(ProtocolError) -> (command: HomeAssistantSiren.Command, remarks: [String]) {
        try HomeAssistantSiren.read(Array(text.utf8))
    }

    func refusal(_ text: String) -> ProtocolError? {
        do throws(ProtocolError) { _ = try read(text) } catch { return error }
        return nil
    }

    @Test func b4_turnOnsParametersAreTheSoundItsVolumeAndTurnOffIsTheStop() throws {
        let full = try read(#"{"state": "ON", "tone": "doorbell", "volume_level": 0.35}"#)
        #expect(full.command == .play(SoundRequest(sound: "doorbell", priority: .normal, volume: 35)) && full.remarks.isEmpty)
        // turn_on with nothing given: the siren chime at sound.volume.
        #expect(try read(#"{"state": "ON"}"#).command == .play(SoundRequest(sound: "siren")))
        #expect(try read("ON").command == .play(SoundRequest(sound: "siren")))
        #expect(try read(" off\n").command == .stop)
        #expect(try read(#"{"state": "OFF"}"#).command == .stop)
        // Any sound nookd plays is taken, not only the tones the entity offers.
        #expect(try read(#"{"state": "ON", "tone": "two:d=4,o=5,b=100:e,c"}"#).command == .play(SoundRequest(sound: "two:d=4,o=5,b=100:e,c")))
        #expect(try read(#"{"state": "ON", "volume_level": 0}"#).command == .play(SoundRequest(sound: "siren", volume: 0)))
        #expect(try read(#"{"state": "ON", "volume_level": 1}"#).command == .play(SoundRequest(sound: "siren", volume: 100)))
        #expect(try read(#"{"state": "ON", "tone": " doorbell "}"#).command == .play(SoundRequest(sound: "doorbell")))
    }

    /// A level above 0 is a sound, however soft: never rounded to the volume 0 nookd reads as
    /// silence asked for (and refuses as "volume 0 asked", which no one sent).
    @Test func b4_aVolumeLevelAboveZeroPlaysAtTheLeastVolumeNotSilence() throws {
        #expect(try read(#"{"state": "ON", "volume_level": 0.004}"#).command == .play(SoundRequest(sound: "siren", volume: 1)))
        #expect(try read(#"{"state": "ON", "volume_level": 1e-9}"#).command == .play(SoundRequest(sound: "siren", volume: 1)))
        #expect(try read(#"{"state": "ON", "volume_level": 0.999}"#).command == .play(SoundRequest(sound: "siren", volume: 100)))
        #expect(try read(#"{"state": "ON", "volume_level": -0.0}"#).command == .play(SoundRequest(sound: "siren", volume: 0)))
    }

    @Test func b4_whatTheSirenDoesNotDoAsSentIsARemark() throws {
        let timed = try read(#"{"state": "ON", "tone": "alarm", "duration": 30}"#)
        #expect(timed.command == .play(SoundRequest(sound: "alarm")))
        #expect(timed.remarks == ["duration: not kept: a chime or melody plays its own length (turn_off stops it sooner)"])
        let extra = try read(#"{"state": "ON", "colour": "red", "flash": true}"#)
        #expect(extra.remarks == ["not a siren's, ignored: colour, flash"])
        let off = try read(#"{"state": "OFF", "tone": "alarm"}"#)
        #expect(off.command == .stop && off.remarks == ["OFF stops the sound playing; ignored: tone"])
    }

    @Test func b4_aPayloadThatIsNoSirenCommandIsRefusedNamingItsField() {
        let cases: [(String, String?, ProtocolError.Code)] = [
            ("maybe", "payload", .invalid),
            ("", "payload", .invalid),
            (#"{"state": "maybe"}"#, "state", .invalid),
            (#"{"tone": "alarm"}"#, "state", .missingField),
            (#"{"state": true}"#, "state", .wrongType),
            (#"{"state": "ON", "volume_level": 1.5}"#, "volume_level", .invalid),
            (#"{"state": "ON", "volume_level": -0.1}"#, "volume_level", .invalid),
            (#"{"state": "ON", "volume_level": "loud"}"#, "volume_level", .wrongType),
            (#"{"state": "ON", "tone": 3}"#, "tone", .wrongType),
            (#"{"state": "ON", "tone": "  "}"#, "tone", .invalid),
            (#"{"state": "ON""#, "payload", .badJSON),
            (#"{"state": "ON", "state": "OFF"}"#, "payload", .badJSON),
        ]
        for (payload, field, code) in cases {
            let error = refusal(payload)
            #expect(error?.field == field && error?.code == code, "\(payload): \(String(describing: error))")
        }
        #expect(throws: ProtocolError.self) { try HomeAssistantSiren.read([0x4f, 0xff]) }
    }

    @Test func b4_theTonesOfferedAreTheChimesThemselves() {
        let tones = HomeAssistantSiren.tones
        #expect(tones.contains("doorbell") && tones.contains(HomeAssistantSiren.defaultTone))
        #expect(!tones.contains("bell-terminal"), "a name played as another chime is not a tone of its own")
        #expect(tones == tones.sorted() && Set(tones).count == tones.count)
    }
}
