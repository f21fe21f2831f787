import NookActivities
import NookProtocol
import Testing

/// M2: AWTRIX's payloads read as AWTRIX reads them (ArduinoJson converting as it goes), over
/// both ways in (a custom app, a notification), and strict where the board needs it.
struct AWTRIXPayloadTests {
    func app(_ text: String, name: String = "a") throws -> AWTRIXApp {
        guard case .set(let apps) = try AWTRIXApp.body(name: name, Array(text.utf8)), let first = apps.first else {
            throw ProtocolError(.invalid, field: "body", "no app")
        }
        return first
    }

    func refusal(_ text: String) -> ProtocolError? {
        do { _ = try AWTRIXApp.body(name: "a", Array(text.utf8)) } catch { return error }
        return nil
    }

    func notification(_ text: String) throws -> (AWTRIXNotification, NookActivity, [String]) {
        let notification = try AWTRIXNotification.parse(Array(text.utf8))
        var notes: [String] = []
        let card = notification.activity(id: NookActivityID(), notes: &notes)
        return (notification, card, notes)
    }

    @Test func m2_numbersSentAsStringsAreTakenWhereAWTRIXTakesANumber() throws {
        let read = try app(#"{"text": "x", "progress": "73", "duration": " 10 ", "pos": "2", "lifetime": "60", "lifetimeMode": "1", "bar": ["1", 2, "3.5"]}"#)
        #expect(read.app.progress == 0.73 && read.app.duration == .seconds(10) && read.app.position == 2)
        #expect(read.app.lifetime == .seconds(60) && read.app.lifetimeMode == .stale && read.app.chart == NookApp.Chart(.bar, [1, 2, 3.5]))
        let (card, activity, _) = try notification(#"{"text": "x", "progress": "40", "duration": "12"}"#)
        #expect(card.progress == 40 && activity.dwell == .seconds(12))
        // A string that holds no number is still refused, naming the field.
        #expect(refusal(#"{"text": "x", "progress": "73%"}"#)?.field == "progress")
        #expect(throws: ProtocolError.self) { try AWTRIXNotification.parse(Array(#"{"text": "x", "duration": "soon"}"#.utf8)) }
    }

    @Test func m2_aKeyGivenTwiceTakesItsLastValueAndIsSaidWhileTheNativeAPIStillRefusesIt() throws {
        let read = try app(##"{"text": "first", "color": "#00FF00", "text": "last"}"##)
        #expect(read.app.content == .text("last") && read.app.tint == .rgb(red: 0, green: 255, blue: 0))
        #expect(read.remarks.contains("given twice, the last value used (as AWTRIX does): text"), "\(read.remarks)")
        let (_, card, notes) = try notification(#"{"text": "one", "duration": 5, "duration": 9}"#)
        #expect(card.dwell == .seconds(9) && notes.contains { $0.contains("given twice") && $0.contains("duration") }, "\(notes)")
        // The native API's reader is unchanged: a key twice is an error there.
        #expect(throws: JSONError.self) { try JSONValue.parse(Array(#"{"a": 1, "a": 2}"#.utf8)) }
        let (value, duplicates) = try JSONValue.parseKeepingLast(Array(#"{"a": 1, "b": {"c": 1, "c": 3}, "a": 2}"#.utf8))
        #expect(value == .object([("a", .number(2)), ("b", .object([("c", .number(3))]))]) && duplicates == ["c", "a"])
    }

    @Test func m2_durationZeroIsAWTRIXsDefault() throws {
        #expect(try app(#"{"text": "x", "duration": 0}"#).app.duration == nil)
        #expect(try app(#"{"text": "x", "duration": "0"}"#).app.duration == nil)
        #expect(try notification(#"{"text": "x", "duration": 0}"#).1.dwell == NookActivity.defaultDwell)
        #expect(refusal(#"{"text": "x", "duration": -5}"#)?.field == "duration")
    }

    @Test(arguments: [
        (##""#f00""##, NookTint.rgb(red: 255, green: 0, blue: 0)),
        (#""0F0""#, .rgb(red: 0, green: 255, blue: 0)),
        (##""#32a852""##, .rgb(red: 0x32, green: 0xA8, blue: 0x52)),
        (#""0x0000FF""#, .rgb(red: 0, green: 0, blue: 255)),
        (#""red""#, .named(.red)),
        (#""Blue""#, .named(.blue)),
        (#"16711680"#, .rgb(red: 255, green: 0, blue: 0)),
        (#"[255, 128.5, 0]"#, .rgb(red: 255, green: 128, blue: 0)),
        (#"["255", "0", "0"]"#, .rgb(red: 255, green: 0, blue: 0)),
        (#"["HSV", 0, 255, 255]"#, .rgb(red: 255, green: 0, blue: 0)),
        (#""0""#, .rgb(red: 0, green: 0, blue: 0)),
        (#""""#, .accent),
    ])
    func m2_everyColourFormAWTRIXTakesIsTaken(colour: String, tint: NookTint) throws {
        #expect(try app(#"{"text": "x", "color": \#(colour)}"#).app.tint == tint)
        #expect(try notification(#"{"text": "x", "color": \#(colour)}"#).1.tint == tint)
        #expect(try app(#"{"text": [{"t": "x", "c": \#(colour)}]}"#).app.content == .fragments([NookApp.Fragment("x", tint: tint)]))
    }

    @Test func m2_aColourThatIsNoneIsRefusedNamingTheFieldAndTheForms() {
        for colour in [#""sky""#, "[300, 0, 0]", "[1, 2]", "1.5", "-1", ##""#1234567""##, "true"] {
            let error = refusal(#"{"text": "x", "color": \#(colour)}"#)
            #expect(error?.field == "color" && error?.message.contains("#RRGGBB") == true, "\(colour): \(String(describing: error))")
        }
    }

    @Test func m2_anAppMayBeAnIconAProgressAChartOrADrawingAlone() throws {
        let icon = try app(#"{"icon": "bolt"}"#)
        #expect(icon.app.isWordless && icon.app.icon == "bolt")
        #expect(try app(#"{"progress": 40}"#).app.progress == 0.4)
        #expect(try app(#"{"text": "  ", "line": [1, 4, 2]}"#).app.chart == NookApp.Chart(.line, [1, 4, 2]))
        let drawing = try app(##"{"draw": [{"dc": [28, 4, 3, "#FF0000"]}, {"dr": [20, 4, 4, 4, "#0000FF"]}, {"dt": [0, 0, "Hello", "#00FF00"]}]}"##)
        #expect(drawing.app.drawing == NookDrawing([.circle(x: 28, y: 4, radius: 3, color: 0xFF0000, filled: false),
                                                    .rectangle(x: 20, y: 4, width: 4, height: 4, color: 0x0000FF, filled: false),
                                                    .text(x: 0, y: 0, text: "Hello", color: 0x00FF00)]))
        #expect(drawing.ignored.isEmpty && drawing.unknown.isEmpty && drawing.notes.isEmpty)
        // Nothing to show at all is still refused, saying what would do.
        let nothing = refusal(#"{"duration": 5, "color": "red"}"#)
        #expect(nothing?.field == "text" && nothing?.code == .missingField && nothing?.message.contains("draw") == true)
    }

    @Test func m2_drawCommandsAreBoundedAndAMalformedOneIsNamedByIndex() throws {
        let everything = try app(##"""
            {"draw": [{"dp": [0, 0, [255, 0, 0]]}, {"dl": ["0", 7, 31, 7, "#fff"]}, {"df": [1, 1, 3, 3, 65280]},
                      {"dfc": [10, 4, 2.7, "red"]}, {"db": [24, 0, 2, 2, [16711680, 65280, 255]]}, {"dx": [1]}]}
            """##)
        #expect(everything.app.drawing?.commands.count == 5)
        #expect(everything.app.drawing?.commands[3] == .circle(x: 10, y: 4, radius: 2, color: 0xFF0000, filled: true))
        #expect(everything.remarks.contains { $0.contains("draw[5].dx") && $0.contains("ignored") }, "\(everything.remarks)")
        let cases: [(String, String)] = [
            (##"{"draw": [{"dp": [0, 0, "#FF0000"]}, {"dl": [0, 0, 5, "#FF0000"]}]}"##, "draw[1].dl"),
            (##"{"draw": [{"dc": [0, "y", 2, "#FF0000"]}]}"##, "draw[0].dc[1]"),
            (##"{"draw": [{"dt": [0, 0, "x", "sky"]}]}"##, "draw[0].dt[3]"),
            (##"{"draw": [{"db": [0, 0, 33, 8, []]}]}"##, "draw[0].db"),
            (##"{"draw": [{"db": [0, 0, 1, 1, [1, 2]]}]}"##, "draw[0].db"),
            (##"{"draw": [{"dp": [500, 0, "#FF0000"]}]}"##, "draw[0]"),
            (##"{"draw": [3]}"##, "draw[0]"),
            (##"{"draw": {"dp": [0, 0, "#FF0000"]}}"##, "draw"),
            (##"[{"text": "a"}, {"draw": [{"dr": [0, 0]}]}]"##, "[1].draw[0].dr"),
        ]
        for (body, field) in cases {
            #expect(refusal(body)?.field == field, "\(body): \(String(describing: refusal(body)))")
        }
        let many = "[" + Array(repeating: ##"{"dp": [0, 0, "#FF0000"]}"##, count: NookDrawing.Limits.commands + 1).joined(separator: ",") + "]"
        let tooMany = refusal(#"{"draw": \#(many)}"#)
        #expect(tooMany?.field == "draw" && tooMany?.message.contains("at most \(NookDrawing.Limits.commands)") == true)
    }

    @Test func m2_aDrawingAndAnAppWithoutWordsTravelTheNativeAPIAndTheJournalUnchanged() throws {
        let read = try app(##"{"icon": "bolt", "draw": [{"df": [0, 0, 4, 2, "#102030"]}, {"db": [4, 0, 1, 2, [1, 2]]}, {"dt": [5, 1, "hi", "#FFFFFF"]}]}"##)
        let wire = AppPayload.encode(read.app)
        #expect(wire["text"] == nil)
        #expect(try AppPayload.decode(wire) == read.app)
        #expect(throws: ProtocolError.self) { try AppPayload.decode(.object([("name", .string("a"))])) }
    }

    @Test func m2_whatANotificationDoesNotActOnIsNamedATypoToo() throws {
        let (_, _, notes) = try notification(#"{"text": "x", "effect": "Fade", "overlay": "snow", "colour": "red"}"#)
        #expect(notes == ["ignored (a card has no place for them): effect, overlay", "unknown fields (not AWTRIX's), ignored: colour"], "\(notes)")
        let app = try app(#"{"text": "x", "effect": "Fade", "overlay": "snow"}"#)
        #expect(app.remarks == ["ignored (Nook does not draw them): effect, overlay"])
    }

    @Test func m2_aNotificationWithoutWordsIsTitledByWhatItShows() throws {
        let chart = try notification(#"{"bar": [1, 5, 9], "icon": "bolt"}"#)
        #expect(chart.1.title == "▁▅█" && !chart.2.contains { $0.contains("bar") }, "\(chart.2)")
        #expect(try notification(#"{"progress": "73"}"#).1.title == "73 %")
        #expect(try notification(#"{"icon": "door"}"#).1.title == "door")
        let drawing = try notification(##"{"draw": [{"dp": [0, 0, "#FF0000"]}]}"##)
        #expect(drawing.1.title == "AWTRIX drawing" && drawing.2.contains { $0.hasPrefix("draw:") }, "\(drawing.2)")
        #expect(throws: ProtocolError.self) { try AWTRIXNotification.parse(Array(#"{"color": "red", "effect": "Fade"}"#.utf8)) }
    }
}
