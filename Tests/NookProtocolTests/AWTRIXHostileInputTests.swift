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

    func power(_ body: String) throws(ProtocolError) -> AWTRIXDevice.Outcome {
        try AWTRIXDevice.outcome(.power, body: Array(body.utf8), status: nil)
    }

    @Test func m1_aPowerKeyGivenTwiceTakesItsLastValueAsAWTRIXReadsIt() throws {
        #expect(try power(#"{"power": false, "power": true}"#) == .done)
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
