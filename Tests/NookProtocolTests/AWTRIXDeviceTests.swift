import NookActivities
@testable import NookProtocol
import Testing

/// M1: what AWTRIX's device requests do on a Nook board, read as AWTRIX reads them.
@Suite struct AWTRIXDeviceTests {
    func outcome(_ request: AWTRIXDevice.Request, _ body: String) throws -> AWTRIXDevice.Outcome {
        try AWTRIXDevice.outcome(request, body: Array(body.utf8), status: nil)
    }

    func notDone(_ outcome: AWTRIXDevice.Outcome) -> [String] {
        if case .notDone(let lines) = outcome { lines } else { [] }
    }

    func display(_ request: AWTRIXDevice.Request, _ body: String, status: StatusAnswer? = nil) throws -> AWTRIXDevice.DisplayPart {
        try AWTRIXDevice.display(request, body: Array(body.utf8), status: status)
    }

    @Test func m1_powerAndSleepSwitchTheDisplayInEveryFormAWTRIXTakes() throws {
        for on in [#"{"power": true}"#, "true", "1", "TRUE", #"{"power": 1}"#, #"{"power": "true"}"#] {
            #expect(try display(.power, on).setting == DisplaySetting(power: .on), "\(on)")
        }
        for off in [#"{"power": false}"#, "false", "0", #"{"power": "0"}"#] {
            #expect(try display(.power, off).setting == DisplaySetting(power: .off), "\(off)")
        }
        #expect(try display(.sleep, #"{"sleep": 5}"#).setting == DisplaySetting(power: .offFor(seconds: 5)))
        #expect(try display(.sleep, #"{"sleep": "90.7"}"#).setting == DisplaySetting(power: .offFor(seconds: 90)), "a number as a string, cut")
        #expect(try display(.sleep, #"{"sleep": 0}"#).setting == DisplaySetting(power: .off), "0: until switched on")
        let cut = try display(.sleep, #"{"sleep": 1.9, "wake": "button"}"#)
        #expect(cut.setting == DisplaySetting(power: .offFor(seconds: 1)), "a fraction cut, as AWTRIX reads it")
        #expect(cut.remarks == ["sleep: 1.9 s read as 1 s (whole seconds, as AWTRIX reads it)", "unknown fields (not AWTRIX's), ignored: wake"], "\(cut.remarks)")
        #expect(try display(.power, #"{"power": false, "pad": 1}"#).remarks == ["unknown fields (not AWTRIX's), ignored: pad"])
        // Text that is no flag is refused: guessing "off" would switch the display off on a typo.
        for word in ["on", "[true]", "yes", #"{"power": "on"}"#, #"{"power": "yes"}"#] {
            do { _ = try display(.power, word); Issue.record("\(word) was read") } catch {
                #expect((error as? ProtocolError)?.field == "power", "\(word): \(error)")
            }
        }
        #expect(try notDone(outcome(.power, "")) == [#"power: is required, {"power": true} or {"power": false}"#], "an empty body asks nothing")
        #expect(try notDone(outcome(.sleep, " ")) == [#"sleep: is required, {"sleep": SECONDS}"#])
        for (bad, field) in [(#"{"power": [1]}"#, "power"), (#"{"powr": 1}"#, "power")] {
            #expect(throws: ProtocolError.self, "\(bad)") { try display(.power, bad) }
            do { _ = try display(.power, bad) } catch { #expect((error as? ProtocolError)?.field == field, "\(bad): \(error)") }
        }
        for bad in ["{}", #"{"sleep": -1}"#, #"{"sleep": 0.5}"#, #"{"sleep": 604801}"#, #"{"sleep": "soon"}"#, "[5]"] {
            #expect(throws: ProtocolError.self, "\(bad)") { try display(.sleep, bad) }
        }
        // Without nookd's answer, a switch is not done; with it, what nookd warns of is not.
        #expect(try notDone(outcome(.power, "false")) == ["power: not carried out without nookd"])
        let part = try display(.power, "true")
        #expect(AWTRIXDevice.outcome(of: DisplayAnswer(on: true, brightnessManaged: false), part) == .done())
        // Done in part: what was done is said too, so a client does not send it again.
        let dark = DisplayAnswer(on: true, nobodyThere: true, brightnessManaged: false, warnings: ["power: the glass stays dark"])
        #expect(AWTRIXDevice.outcome(of: dark, part)
                == .notDone(["power: the glass stays dark", "done: display: on (dark: nobody is in the room), brightness not set by nookd (no [brightness] table)"]))
    }

    @Test func m1_anIndicatorAndTheMoodLightAreCarriedOut() throws {
        for off in ["", "{}", #"{"color": "0"}"#, #"{"color": [0, 0, 0]}"#, ##"{"color": "#000000"}"##] {
            #expect(try outcome(.indicator1, off) == .done(), "\(off)")
        }
        #expect(try outcome(.indicator3, ##"{"color": "#32a852", "fade": 500}"##) == .done())
        #expect(try outcome(.moodlight, "") == .done() && outcome(.moodlight, #"{"brightness": 170, "color": [155, 38, 182]}"#) == .done())
        #expect(throws: ProtocolError.self) { try outcome(.indicator2, #"{"color": "not a colour"}"#) }
    }

    /// A mood light's body as AWTRIX reads it, into the `home` setting nookd draws: off for an
    /// empty body, a colour temperature (winning over a colour) or a colour, scaled by brightness.
    @Test func m1_aMoodLightsBodyIsReadAsAWTRIXReadsIt() throws {
        func read(_ body: String) throws -> (HomeSetting, [String]) {
            let read = try AWTRIXDevice.moodLight(body: Array(body.utf8))
            return (read.setting, read.remarks)
        }
        for off in ["", " \n", "{}"] { #expect(try read(off).0 == .lightOff, "\(off)") }
        #expect(try read(##"{"color": "#FF00FF"}"##) == (.light(0xFF00FF), []))
        #expect(try read(#"{"brightness": 170, "color": [155, 38, 182]}"#) == (.light(0x671979), []), "each channel × 170/255, rounded")
        #expect(try read(##"{"brightness": "0", "color": "#ffffff"}"##) == (.lightOff, ["black (a black colour or brightness 0) turns the mood light off"]),
                "a number as a string, as ArduinoJson reads it; black is no lamp")
        // 2300 K is a warm white: red full, green about 151, blue about 50; 6500 K about white.
        #expect(try read(#"{"kelvin": 2300}"#).0 == .light(0xFF9732))
        guard case .light(let daylight) = try read(#"{"kelvin": 6500}"#).0 else { Issue.record("6500 K"); return }
        #expect([16, 8, 0].allSatisfy { (daylight >> UInt32($0)) & 0xFF >= 240 }, "\(String(daylight, radix: 16))")
        let both = try read(##"{"kelvin": 2300, "color": "#0000ff", "brightness": 255}"##)
        #expect(both == (.light(0xFF9732), ["color ignored: kelvin was given too, which AWTRIX takes first"]))
        let cold = try read(#"{"kelvin": 100, "mood": 1}"#)
        #expect(cold.0 == .light(AWTRIXDevice.rgb(kelvin: 1000)))
        #expect(cold.1 == ["unknown fields (not AWTRIX's), ignored: mood", "kelvin: 100 is drawn as 1000 K, the end of the range the board draws (1000 to 40000)"])
        for (body, field) in [(#"{"brightness": 170}"#, "color"), (##"{"brightness": 256, "color": "#fff"}"##, "brightness"),
                              (#"{"color": "nope"}"#, "color"), (#"{"kelvin": "warm"}"#, "kelvin"), ("[1]", "body"), ("{", "body")] {
            #expect(throws: ProtocolError.self, "\(body)") { try read(body) }
            do { _ = try read(body) } catch let error as ProtocolError { #expect(error.field == field, "\(body): \(error)") }
        }
    }

    /// An indicator's body as AWTRIX reads it, into the setting nookd draws.
    @Test func m1_anIndicatorsBodyIsReadAsAWTRIXReadsIt() throws {
        func setting(_ body: String) throws -> (NookIndicator, [String]) {
            let read = try AWTRIXDevice.indicator(2, body: Array(body.utf8))
            return (read.setting, read.remarks)
        }
        for off in ["", " \n", "{}", #"{"color": "0"}"#, #"{"color": [0, 0, 0]}"#] {
            #expect(try setting(off).0.color == 0 && setting(off).0.blinkMs == 0, "\(off)")
        }
        #expect(try setting(#"{"color": [255, 128.5, 0], "blink": "500"}"#).0 == NookIndicator(number: 2, color: 0xFF8000, blinkMs: 500))
        #expect(try setting(##"{"color": "#f00", "fade": 1500.7}"##).0 == NookIndicator(number: 2, color: 0xFF0000, fadeMs: 1500))
        #expect(try setting(#"{"fade": 800}"#).0 == NookIndicator(number: 2, color: nil, fadeMs: 800), "no colour keeps the light's")
        #expect(try setting(#"{"color": 65280, "speed": 3}"#).1 == ["unknown fields (not AWTRIX's), ignored: speed"])
        for bad in [#"{"color": "nope"}"#, #"{"blink": -1}"#, #"{"fade": 60001}"#, #"{"blink": [1]}"#, "[1]", "{"] {
            #expect(throws: ProtocolError.self, "\(bad)") { try setting(bad) }
        }
    }

    @Test func m1_aSettingsMatrixAndBrightnessAreTheDisplaysAndEveryOtherKeyHoldsOnlyWhenItIsAlreadyNooks() throws {
        // Numbers as strings, as AWTRIX reads them; BRI 0–255 as a percentage.
        let part = try display(.settings, #"{"BRI": "255", "TEFF": 1, "ATRANS": true, "MATP": true}"#)
        #expect(part.setting == DisplaySetting(power: .on, brightness: .percent(100)) && part.notDone.isEmpty, "\(part)")
        #expect(try display(.settings, #"{"BRI": 128}"#).setting.brightness == .percent(50))
        let both = try display(.settings, #"{"BRI": 100, "ABRI": true}"#)
        #expect(both.setting.brightness == .automatic && both.remarks == ["BRI: not used while ABRI is on (nook.toml's levels and the room set it)"],
                "ABRI on leaves BRI unused, and says so: \(both)")
        #expect(try display(.settings, #"{"BRI": 1}"#).setting.brightness == .percent(1), "a level above 0 is never dark")
        #expect(try display(.settings, #"{"BRI": 0}"#).setting.brightness == .percent(0))
        let half = try display(.settings, #"{"BRI": 0.5}"#)
        #expect(half.setting.brightness == .percent(1) && half.remarks == ["BRI: 0.5 read as 0 (whole levels, as AWTRIX reads it)"],
                "above 0 is never dark, and the cut is said: \(half)")
        #expect(throws: ProtocolError.self) { try display(.settings, #"{"MATP": "on"}"#) }
        #expect(try display(.settings, #"{"MATP": false}"#).setting == DisplaySetting(power: .off))
        // ABRI off alone keeps the brightness on the glass, set: the level nookd last wrote.
        var status = StatusAnswer(foreground: nil, display: .init(backend: "mock", mode: "64x32", rotation: 0, theme: "dark", refreshHz: 60),
                                  home: "clock", engaged: false, inputs: [], gpio: nil, modules: [], connections: 0)
        status.brightness = .init(state: "idle", level: 153, maximum: 255, output: "frames", lux: 12)
        #expect(try display(.settings, #"{"ABRI": false}"#, status: status).setting.brightness == .percent(60), "from a nookd without percent")
        status.brightness?.percent = 80
        #expect(try display(.settings, #"{"ABRI": false}"#, status: status).setting.brightness == .percent(80),
                "the percentage that keeps the glass as it is: idle's 60 % of a board whose active level is 80 %")
        #expect(AWTRIXSettings.current(status)["BRI"] == .number(204) && AWTRIXSettings.current(status)["ABRI"] == .bool(true))
        status.brightness?.percentSet = 35
        #expect(try display(.settings, #"{"ABRI": "false"}"#, status: status).setting.brightness == .percent(35))
        #expect(AWTRIXSettings.current(status)["BRI"] == .number(89) && AWTRIXSettings.current(status)["ABRI"] == .bool(false))
        status.display.on = false
        #expect(AWTRIXSettings.current(status)["MATP"] == .bool(false) && AWTRIXDevice.stats(status: status, host: AWTRIXHost(uptime: 1, availableMemory: 1, name: "n", address: "a"))["matrix"] == .bool(false))
        for bad in [#"{"BRI": 256}"#, #"{"BRI": -1}"#, #"{"MATP": [1]}"#, #"{"ABRI": {}}"#] {
            #expect(throws: ProtocolError.self, "\(bad)") { try display(.settings, bad) }
        }
        let lines = try notDone(outcome(.settings, ##"{"TEFF": 1, "ATIME": 10, "TCOL": "#FF0000", "NOPE": 1}"##))
        #expect(lines.count == 3 && lines[0].hasPrefix("ATIME: not changed; ") && lines[1].hasPrefix("TCOL: not changed; "), "\(lines)")
        #expect(lines[2] == "NOPE: is not one of AWTRIX's settings")
        #expect(try outcome(.settings, "") == .done())
    }

    @Test func m1_whatNookNeverDoesOverTheAPIIsNotDoneWhateverTheBody() throws {
        // `sound` and `rtttl` are played by nookd (AWTRIXSoundTests).
        for request in [AWTRIXDevice.Request.reboot, .doupdate, .erase, .resetSettings, .sendscreen] {
            #expect(try notDone(outcome(request, "")).first?.hasPrefix("\(request.label): ") == true, "\(request)")
        }
    }

    @Test func m1_theStatsHaveEveryKeyAWTRIXGives() {
        let stats = AWTRIXDevice.stats(status: nil, host: AWTRIXHost(uptime: 42, availableMemory: 1024, name: "kitchen", address: "192.0.2.7"))
        #expect(stats["uptime"] == .number(42) && stats["ram"] == .number(1024) && stats["uid"] == .string("kitchen"))
        #expect(stats["ip_address"] == .string("192.0.2.7") && stats["bri"] == .number(255) && stats["matrix"] == .bool(true))
        guard case .object(let members) = stats else { Issue.record("not an object"); return }
        #expect(Set(members.map(\.0)) == ["bat", "bat_raw", "type", "lux", "ldr_raw", "ram", "bri", "temp", "hum", "uptime", "wifi_signal",
                                          "messages", "version", "indicator1", "indicator2", "indicator3", "app", "uid", "matrix", "ip_address"])
        #expect(AWTRIXDevice.changes(in: stats)["uptime"] == nil && AWTRIXDevice.changes(in: stats)["bri"] != nil)
    }
}
