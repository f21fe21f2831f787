import NookProtocol
import Testing

/// M1 and B1: AWTRIX's `SOUND` and `VOL` settings are the board's sound output and its
/// `sound.volume` on AWTRIX's 0–30; asking for what the board has holds, anything else is said.
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
        let held = try AWTRIXDevice.outcome(.settings, body: Array(#"{"VOL": 24, "SOUND": true}"#.utf8), status: Self.status(output: "alsa", volume: 80))
        #expect(held == .done(), "\(held)")
        guard case .notDone(let lines) = try AWTRIXDevice.outcome(.settings, body: Array(#"{"VOL": 30}"#.utf8), status: Self.status(output: "alsa", volume: 80)) else {
            Issue.record("VOL 30 on a board at 24 was done")
            return
        }
        #expect(lines.first?.hasPrefix("VOL: not changed; ") == true, "\(lines)")
    }
}
