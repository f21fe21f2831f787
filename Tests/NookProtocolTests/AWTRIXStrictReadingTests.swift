import NookActivities
import NookProtocol
import Testing

/// M2: a notification reads what it shares with a custom app (its drawing, its chart) as the
/// app does; a value AWTRIX's parser would not take as a colour or a number is refused; and
/// whatever is left out is said to the app or notification it came from.
struct AWTRIXStrictReadingTests {
    func refusal(_ text: String) -> ProtocolError? {
        do { _ = try AWTRIXApp.body(name: "a", Array(text.utf8)) } catch { return error }
        return nil
    }

    func notificationRefusal(_ text: String) -> ProtocolError? {
        do { _ = try AWTRIXNotification.parse(Array(text.utf8)) } catch { return error }
        return nil
    }

    func notification(_ text: String) throws -> (NookActivity, [String]) {
        var notes: [String] = []
        let card = try AWTRIXNotification.parse(Array(text.utf8)).activity(id: NookActivityID(), notes: &notes)
        return (card, notes)
    }

    @Test func m2_aNotificationsDrawingIsReadAsACustomAppsIsNamingTheCommand() throws {
        let cases: [(String, String)] = [
            (#"{"draw": [{"dp": [1]}]}"#, "draw[0].dp"),
            (#"{"draw": [{"dp": [999, 0, "red"]}]}"#, "draw[0]"),
            (#"{"draw": "x"}"#, "draw"),
            (#"{"text": "hi", "draw": [{"dl": [0, 0, 5, "red"]}]}"#, "draw[0].dl"),
        ]
        for (body, field) in cases {
            let notified = notificationRefusal(body), set = refusal(body)
            #expect(notified?.field == field && set?.field == field, "\(body): \(String(describing: notified)) / \(String(describing: set))")
            #expect(notified?.message == set?.message, "\(body): the notification and the app say it alike")
        }
        #expect(notificationRefusal(#"{"draw": "x"}"#)?.message.contains("must be an array") == true)
        // An unknown command is named as ignored, on a card with words too.
        let (_, notes) = try notification(#"{"text": "hi", "draw": [{"dq": [1]}, {"dp": [0, 0, "red"]}]}"#)
        #expect(notes.contains { $0.contains("draw[0].dq") && $0.contains("ignored") }, "\(notes)")
    }

    @Test func m2_nothingToShowSaysWhatWasLeftOut() {
        let body = #"{"draw": [{"dq": [1]}], "icon": "1234.gif", "effect": "Fade"}"#
        let set = refusal(body)
        #expect(set?.code == .missingField && set?.field == "text", "\(String(describing: set))")
        for said in ["draw[0].dq", "1234.gif", "effect"] { #expect(set?.message.contains(said) == true, "\(said): \(String(describing: set))") }
        let notified = notificationRefusal(#"{"draw": [{"dq": [1]}], "effect": "Fade"}"#)
        #expect(notified?.code == .missingField && notified?.field == "text", "\(String(describing: notified))")
        for said in ["draw[0].dq", "effect"] { #expect(notified?.message.contains(said) == true, "\(said): \(String(describing: notified))") }
        #expect(notified?.message.contains("ignored (a card has no place for them): draw") == false, "draw was read, not ignored")
    }

    @Test func m2_aWordlessNotificationsChartIsReadAsACustomAppsIs() throws {
        let thirty = (1...30).map(String.init).joined(separator: ", ")
        for body in [#"{"bar": [\#(thirty)]}"#, #"{"line": [1, null, 2]}"#,
                     #"{"bar": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, "x"]}"#, #"{"bar": [1, "x"]}"#] {
            let notified = notificationRefusal(body), set = refusal(body)
            #expect(notified != nil && notified?.field == set?.field && notified?.message == set?.message,
                    "\(body): \(String(describing: notified)) / \(String(describing: set))")
        }
        #expect(notificationRefusal(#"{"bar": [\#(thirty)]}"#)?.message.contains("at most 16") == true)
        #expect(try notification(#"{"bar": [1, "5", 9]}"#).0.title == "▁▅█")
    }

    @Test func m2_theRemarksOfAnArrayBodyGoToTheAppTheyCameFrom() throws {
        guard case .set(let apps) = try AWTRIXApp.body(name: "ar", Array(#"[{"text": "a"}, {"text": "b", "text": "c"}, {"icon": "x", "icon": "bolt"}]"#.utf8))
        else { Issue.record("no apps"); return }
        #expect(apps.map(\.app.name) == ["ar0", "ar1", "ar2"])
        #expect(apps[0].remarks.isEmpty, "\(apps[0].remarks)")
        #expect(apps[1].remarks == ["given twice, the last value used (as AWTRIX does): text"], "\(apps[1].remarks)")
        #expect(apps[2].remarks == ["given twice, the last value used (as AWTRIX does): icon"], "\(apps[2].remarks)")
    }

    @Test(arguments: [#""+ff""#, #""0x+1""#, ##""#+12""##, #""-0""#, #""0x-0""#, ##""#""##, #""0x""#, #""+0""#])
    func m2_aColourWithASignOrNoDigitsIsRefusedNamingTheFieldAndTheForms(colour: String) {
        let set = refusal(#"{"text": "x", "color": \#(colour)}"#)
        #expect(set?.field == "color" && set?.message.contains("#RRGGBB") == true, "\(colour): \(String(describing: set))")
        let notified = notificationRefusal(#"{"text": "x", "color": \#(colour)}"#)
        #expect(notified?.field == "color" && notified?.message.contains("#RRGGBB") == true, "\(colour): \(String(describing: notified))")
        let drawn = refusal(#"{"draw": [{"dp": [0, 0, \#(colour)]}]}"#)
        #expect(drawn?.field == "draw[0].dp[2]", "\(colour): \(String(describing: drawn))")
    }

    @Test func m2_aNumberInAStringIsReadAsDecimalOnly() throws {
        for number in [#""0x10""#, #""0X1p3""#, #""inf""#, #""nan""#] {
            #expect(refusal(#"{"text": "x", "progress": \#(number)}"#)?.field == "progress", "\(number)")
            #expect(refusal(#"{"draw": [{"dp": [\#(number), 0, "red"]}]}"#)?.field == "draw[0].dp[0]", "\(number)")
            #expect(notificationRefusal(#"{"text": "x", "duration": \#(number)}"#)?.field == "duration", "\(number)")
        }
        // As ArduinoJson reads them: a sign, a point, an exponent.
        guard case .set(let apps) = try AWTRIXApp.body(name: "a", Array(#"{"text": "x", "progress": "+2.5e1", "bar": ["-1", " 3 "]}"#.utf8)) else { return }
        #expect(apps.first?.app.progress == 0.25 && apps.first?.app.chart == NookApp.Chart(.bar, [-1, 3]))
    }

    @Test func m2_drawnTextIsOneLineThatReadsAsWhatItIs() {
        // As JSON escapes them: a right-to-left override, a zero-width space, a line break, an isolate.
        for text in [#"abc\u202Edef"#, #"a\u200Bb"#, #"a\nb"#, #"\u2066x"#] {
            let body = #"{"draw": [{"dp": [0, 0, "red"]}, {"dt": [0, 0, "\#(text)", "red"]}]}"#
            let set = refusal(body)
            #expect(set?.field == "draw[1]" && set?.message.contains("bidirectional") == true, "\(body): \(String(describing: set))")
            #expect(notificationRefusal(body)?.field == "draw[1]", "\(body)")
        }
        #expect(throws: NookActivityValidationError.self) { try NookDrawing([.text(x: 0, y: 0, text: "x\u{202E}y", color: 0)]).validate() }
    }

    @Test func m2_anEmptyIconIsNone() throws {
        let (card, notes) = try notification(#"{"text": "x", "icon": ""}"#)
        #expect(card.systemImage == "bell" && notes.isEmpty, "\(notes)")
        #expect(try notification(#"{"icon": " ", "progress": 40}"#).0.title == "40 %")
        guard case .set(let apps) = try AWTRIXApp.body(name: "a", Array(#"{"text": "x", "icon": ""}"#.utf8)) else { return }
        #expect(apps.first?.app.icon == nil && apps.first?.remarks.isEmpty == true, "\(String(describing: apps.first?.remarks))")
    }
}
