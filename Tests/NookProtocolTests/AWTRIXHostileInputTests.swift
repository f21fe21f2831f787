import NookActivities
import NookProtocol
import Testing

/// M1, M2: what a careless or hostile sender sends AWTRIX's ways in is read or refused naming
/// the field: never a trap, never an `OK` for what was not read.
struct AWTRIXHostileInputTests {
    func notification(_ text: String) throws -> NookActivity {
        var notes: [String] = []
        return try AWTRIXNotification.parse(Array(text.utf8)).activity(id: NookActivityID(), notes: &notes)
    }

    /// The widest finite values have an infinite difference: the chart is still drawn.
    @Test func m2_aNotificationChartOfTheWidestFiniteValuesIsTitledNotATrap() throws {
        #expect(try notification(#"{"bar": [-1e308, 1e308]}"#).title == "▁█")
        #expect(try notification(#"{"line": ["-1.7e308", 0, 1.7e308]}"#).title == "⣀⠒⠉")
        #expect(NookApp.Chart(.bar, [-Double.greatestFiniteMagnitude, 0, .greatestFiniteMagnitude]).characters == "▁▅█")
    }

    func power(_ body: String) throws(ProtocolError) -> AWTRIXDevice.DisplayPart {
        try AWTRIXDevice.display(.power, body: Array(body.utf8), status: nil)
    }

    @Test func m1_aPowerKeyGivenTwiceTakesItsLastValueAsAWTRIXReadsIt() throws {
        let part = try power(#"{"power": false, "power": true}"#)
        #expect(part.setting == DisplaySetting(power: .on), "the last value, true")
        #expect(part.remarks.count == 1 && part.remarks[0].hasPrefix("given twice") && part.remarks[0].contains("power"), "\(part.remarks)")
    }

    /// A key given twice on a device route is read as AWTRIX reads it and said with the `OK`
    /// (or with what was not done), as on the app routes: never a silent choice.
    @Test func m1_aKeyGivenTwiceOnADeviceRouteIsSaidWithTheAnswer() throws {
        for request in [AWTRIXDevice.Request.indicator1, .indicator3] {
            let outcome = try AWTRIXDevice.outcome(request, body: Array(##"{"color": "#FF0000", "color": [0, 0, 0]}"##.utf8), status: nil)
            guard case .done(let remarks) = outcome else { Issue.record("\(request): black turns it off: \(outcome)"); continue }
            #expect(remarks.count == 1 && remarks[0].hasPrefix("given twice") && remarks[0].contains("color"), "\(remarks)")
        }
        let lit = try AWTRIXDevice.outcome(.moodlight, body: Array(#"{"brightness": 1, "brightness": 170, "color": [155, 38, 182]}"#.utf8), status: nil)
        guard case .done(let lines) = lit else { Issue.record("the mood light is drawn: \(lit)"); return }
        #expect(lines.count == 1 && lines[0].hasPrefix("given twice") && lines[0].contains("brightness"), "\(lines)")
        #expect(try AWTRIXDevice.outcome(.indicator2, body: Array(#"{"color": [0, 0, 0]}"#.utf8), status: nil) == .done())
    }

    /// A body that is no power request is refused naming what is wrong, not answered `OK` nor
    /// read as the plain text "off".
    @Test(arguments: [(#"{"powr": true}"#, "power"), (#"{"power": tru"#, "body"), (#"{"power": true"#, "body")])
    func m1_aPowerBodyThatIsNoPowerRequestIsRefusedNamingTheField(body: String, field: String) {
        do {
            let outcome = try power(body)
            Issue.record("\(body) was answered \(outcome)")
        } catch {
            #expect(error.field == field, "\(body): \(error)")
        }
    }
}
