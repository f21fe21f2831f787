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

    @Test func m1_anIndicatorOrTheMoodLightOffHoldsAndAColourIsNotDone() throws {
        for off in ["", "{}", #"{"color": "0"}"#, #"{"color": [0, 0, 0]}"#, ##"{"color": "#000000"}"##] {
            #expect(try outcome(.indicator1, off) == .done(), "\(off)")
        }
        #expect(try notDone(outcome(.indicator3, ##"{"color": "#32a852", "fade": 500}"##)) == ["indicator3: Nook draws no indicators yet: nothing was drawn (a card or a custom app says it instead)"])
        #expect(try outcome(.moodlight, "") == .done() && notDone(outcome(.moodlight, #"{"brightness": 170, "color": [155, 38, 182]}"#)).count == 1)
        #expect(throws: ProtocolError.self) { try outcome(.indicator2, #"{"color": "not a colour"}"#) }
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
        for request in [AWTRIXDevice.Request.sleep, .sound, .rtttl, .reboot, .doupdate, .erase, .resetSettings, .sendscreen] {
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
