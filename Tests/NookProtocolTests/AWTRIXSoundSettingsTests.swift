import NookProtocol
import Testing

/// M1 and B1: AWTRIX's `SOUND` and `VOL` settings are the board's sound output and its volume
/// on AWTRIX's 0–30, read back so; written, they set the volume sounds start from.
struct AWTRIXSoundSettingsTests {
    static func status(output: String, state: String = "idle", volume: Int?) -> StatusAnswer {
        let sound = StatusAnswer.Sound(output: output, device: nil, state: state, problem: nil, played: 0, failed: 0, volume: volume)
        return StatusAnswer(foreground: nil, display: .init(backend: "mock", mode: "32x8", rotation: 0, theme: "default", refreshHz: 60),
                            home: "clock", engaged: false, inputs: [], gpio: nil, modules: [], connections: 1, sound: sound)
    }

    @Test func m1_b1_soundAndVolAreTheBoardsOutputAndVolumeOnAWTRIXsScale() throws {
        let speaker = AWTRIXSettings.current(Self.status(output: "alsa", volume: 80))
        #expect(speaker["SOUND"] == .bool(true) && speaker["VOL"] == .number(24), "\(speaker)")
        for silent in [Self.status(output: "none", volume: 80), Self.status(output: "alsa", state: "unavailable", volume: 80),
                       Self.status(output: "alsa", volume: 0)] {
            let settings = AWTRIXSettings.current(silent)
            #expect(settings["SOUND"] == .bool(false) && settings["VOL"] == .number(0), "\(settings)")
        }
        // Written, they are nookd's sound-volume: VOL on AWTRIX's 0–30, SOUND off as 0, on as
        // sound.volume again where the volume is 0; SOUND off wins over a VOL, said.
        func volume(_ body: String, at level: Int = 80) throws -> (SoundVolumeSetting?, [String]) {
            let part = try AWTRIXDevice.display(.settings, body: Array(body.utf8), status: Self.status(output: "alsa", volume: level))
            return (part.volume, part.remarks)
        }
        #expect(try volume(#"{"VOL": 30}"#).0 == .set(100) && volume(#"{"VOL": "15"}"#).0 == .set(50) && volume(#"{"VOL": 0}"#).0 == .set(0))
        #expect(try volume(#"{"SOUND": false}"#).0 == .set(0))
        #expect(try volume(#"{"SOUND": true}"#).0 == nil, "on already: nothing to ask")
        #expect(try volume(#"{"SOUND": true}"#, at: 0).0 == .configured, "off by a volume of 0: sound.volume again")
        let both = try volume(#"{"SOUND": false, "VOL": 20}"#)
        #expect(both.0 == .set(0) && both.1 == ["VOL: not used while SOUND is off (the volume is set to 0)"], "\(both)")
        for bad in [#"{"VOL": 31}"#, #"{"VOL": -1}"#, #"{"SOUND": "yes"}"#] {
            #expect(throws: ProtocolError.self, "\(bad)") { try volume(bad) }
        }
        // Without nookd's answer a volume is not carried out; with it, what it warns of is not done.
        #expect(try AWTRIXDevice.outcome(.settings, body: Array(#"{"VOL": 24}"#.utf8), status: Self.status(output: "alsa", volume: 80))
                == .notDone(["settings: not carried out without nookd"]))
        let part = try AWTRIXDevice.display(.settings, body: Array(#"{"VOL": 24}"#.utf8), status: nil)
        #expect(AWTRIXDevice.outcome(of: nil, volume: SoundVolumeAnswer(volume: 80, configured: 80, isSet: true, output: "alsa"), part) == .done())
    }
}
