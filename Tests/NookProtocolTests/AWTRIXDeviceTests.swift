import NookActivities
import NookProtocol
import Testing

/// M1: what AWTRIX's device requests do on a Nook board, read as AWTRIX reads them.
@Suite struct AWTRIXDeviceTests {
    func outcome(_ request: AWTRIXDevice.Request, _ body: String) throws -> AWTRIXDevice.Outcome {
        try AWTRIXDevice.outcome(request, body: Array(body.utf8), status: nil)
    }

    func notDone(_ outcome: AWTRIXDevice.Outcome) -> [String] {
        if case .notDone(let lines) = outcome { lines } else { [] }
    }

    @Test func m1_powerOnHoldsAndOffIsNotDoneInEveryFormAWTRIXTakes() throws {
        #expect(try outcome(.power, #"{"power": true}"#) == .done() && outcome(.power, "true") == .done() && outcome(.power, "1") == .done())
        #expect(try notDone(outcome(.power, #"{"power": false}"#)).first?.contains("no display-off operation") == true)
        #expect(try notDone(outcome(.power, "false")).count == 1 && notDone(outcome(.power, #"{"power": "0"}"#)).count == 1)
        #expect(throws: ProtocolError.self) { try outcome(.power, #"{"power": [1]}"#) }
    }

    @Test func m1_anIndicatorIsCarriedOutAndTheMoodLightOffHoldsAndItsColourIsNotDone() throws {
        for off in ["", "{}", #"{"color": "0"}"#, #"{"color": [0, 0, 0]}"#, ##"{"color": "#000000"}"##] {
            #expect(try outcome(.indicator1, off) == .done(), "\(off)")
        }
        #expect(try outcome(.indicator3, ##"{"color": "#32a852", "fade": 500}"##) == .done())
        #expect(try outcome(.moodlight, "") == .done() && notDone(outcome(.moodlight, #"{"brightness": 170, "color": [155, 38, 182]}"#)).count == 1)
        #expect(throws: ProtocolError.self) { try outcome(.indicator2, #"{"color": "not a colour"}"#) }
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

    @Test func m1_aSettingHoldsOnlyWhenItIsAlreadyNooksAndEveryOtherKeyIsNamed() throws {
        // Without a [brightness] table the brightness is 255; numbers as strings, as AWTRIX reads them.
        #expect(try outcome(.settings, #"{"BRI": "255", "TEFF": 1, "ATRANS": true, "MATP": true}"#) == .done())
        let lines = try notDone(outcome(.settings, ##"{"TEFF": 1, "ATIME": 10, "TCOL": "#FF0000", "NOPE": 1}"##))
        #expect(lines.count == 3 && lines[0].hasPrefix("ATIME: not changed; ") && lines[1].hasPrefix("TCOL: not changed; "), "\(lines)")
        #expect(lines[2] == "NOPE: is not one of AWTRIX's settings")
        #expect(try outcome(.settings, "") == .done())
    }

    @Test func m1_whatNookNeverDoesOverTheAPIIsNotDoneWhateverTheBody() throws {
        // `sound` and `rtttl` are played by nookd (AWTRIXSoundTests).
        for request in [AWTRIXDevice.Request.sleep, .reboot, .doupdate, .erase, .resetSettings, .sendscreen] {
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
