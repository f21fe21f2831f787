import NookActivities
import NookProtocol
import Testing

/// A3: AWTRIX 3's custom-app JSON read as a Nook app, field by field (docs/apps.md's table),
/// by the one translator both bridges use.
@Suite struct AWTRIXAppTests {
    func body(_ text: String, name: String = "app") throws(ProtocolError) -> AWTRIXApp.Body {
        try AWTRIXApp.body(name: name, Array(text.utf8))
    }

    func app(_ text: String) throws -> AWTRIXApp {
        guard case .set(let apps) = try body(text), let first = apps.first else { throw ProtocolError(.invalid, "no app") }
        return first
    }

    func refusal(_ text: String) -> ProtocolError? {
        do { _ = try body(text); return nil } catch { return error }
    }

    @Test func a3_everyFieldNookDrawsIsTranslated() throws {
        let read = try app("""
            {"text": "1.2 kW", "icon": "bolt", "color": "FF8800", "progress": 25, "bar": [1, 2, 3], "duration": 12,
             "pos": 3, "lifetime": 60, "lifetimeMode": 1}
            """)
        let app = read.app
        #expect(app.name == "app" && app.content == .text("1.2 kW") && app.icon == "bolt" && app.tint == .rgb(red: 255, green: 136, blue: 0))
        #expect(app.progress == 0.25 && app.chart == NookApp.Chart(.bar, [1, 2, 3]) && app.duration == .seconds(12) && app.position == 3)
        #expect(app.lifetime == .seconds(60) && app.lifetimeMode == .stale)
        #expect(read.ignored.isEmpty && read.unknown.isEmpty && read.notes.isEmpty)
        #expect(try self.app(#"{"text": "x", "color": [0, 128, 255]}"#).app.tint == .rgb(red: 0, green: 128, blue: 255))
        #expect(try self.app(##"{"text": "x", "color": "#00FF00", "line": [2, 1]}"##).app.chart == NookApp.Chart(.line, [2, 1]))
        // AWTRIX's defaults: no bar at -1, no lifetime at 0, lifetimeMode 0 removes.
        let defaults = try self.app(#"{"text": "x", "progress": -1, "lifetime": 0, "lifetimeMode": 0, "bar": []}"#).app
        #expect(defaults.progress == nil && defaults.lifetime == nil && defaults.lifetimeMode == .remove && defaults.chart == nil)
    }

    @Test func a3_fragmentsKeepTheirColours() throws {
        let app = try self.app(#"{"text": [{"t": "Hello, ", "c": "FF0000"}, {"t": "world!"}]}"#).app
        #expect(app.content == .fragments([NookApp.Fragment("Hello, ", tint: .rgb(red: 255, green: 0, blue: 0)), NookApp.Fragment("world!")]))
        #expect(refusal(#"{"text": [{"c": "FF0000"}]}"#)?.field == "text[0].t")
        #expect(refusal(#"{"text": [{"t": "a", "c": "nope"}]}"#)?.field == "text[0].c")
    }

    @Test func a3_fieldsNookCannotDrawAreNamedAsIgnoredAndUnknownOnesToo() throws {
        let read = try app(##"{"text": "x", "rainbow": true, "effect": "Fade", "progressC": "#FF0000", "save": true, "overlay": "snow", "colour": "red"}"##)
        #expect(read.ignored == ["rainbow", "effect", "progressC", "save", "overlay"] && read.unknown == ["colour"])
        #expect(read.remarks == ["ignored (Nook does not draw them): rainbow, effect, progressC, save, overlay", "unknown fields (not AWTRIX's), ignored: colour"])
        // AWTRIX's LaMetric ids are nookd's to find as files, with no icon as the fallback it says (M3).
        let icon = try app(#"{"text": "x", "icon": "2355"}"#)
        #expect(icon.app.icon == "2355" && icon.app.iconFallback == "" && icon.notes.isEmpty)
        #expect(try app(#"{"text": "x", "icon": "../etc/passwd"}"#).app.icon == nil)
        // An id sent as a JSON number is read as its text, as AWTRIX reads it, in an app and a notification.
        let numbered = try app(#"{"text": "x", "icon": 2355}"#)
        #expect(numbered.app.icon == "2355" && numbered.app.iconFallback == "" && numbered.notes.isEmpty)
        #expect(try AWTRIXNotification.parse(Array(#"{"text": "x", "icon": 2355}"#.utf8)).icon == "2355")
        #expect(try AWTRIXNotification.parse(Array(#"{"icon": 2355}"#.utf8)).icon == "2355")
        #expect(throws: ProtocolError.self) { try AWTRIXNotification.parse(Array(#"{"text": "x", "icon": 1e300}"#.utf8)) }
        // A key is quoted on one line: a remark is a log line and a line of an answer.
        let forged = try app(#"{"text": "x", "a\nnook-http: forged": 1}"#)
        #expect(forged.remarks == [#"unknown fields (not AWTRIX's), ignored: a\u{a}nook-http: forged"#])
        let both = try app(#"{"text": "x", "bar": [1], "line": [2]}"#)
        #expect(both.app.chart == NookApp.Chart(.bar, [1]) && both.notes.first?.hasPrefix("line: ignored") == true)
    }

    @Test func a3_wrongTypesAndValuesAreRefusedNamingTheField() {
        let cases: [(String, String, ProtocolError.Code)] = [
            (#"{"text": 5}"#, "text", .wrongType),
            (#"{"duration": 5}"#, "text", .missingField),
            (#"{"text": "x", "progress": "high"}"#, "progress", .wrongType),
            (#"{"text": "x", "progress": 101}"#, "progress", .invalid),
            (#"{"text": "x", "color": "sky"}"#, "color", .invalid),
            (#"{"text": "x", "color": [255, 0]}"#, "color", .invalid),
            (#"{"text": "x", "bar": "tall"}"#, "bar", .wrongType),
            (#"{"text": "x", "line": [1, "two"]}"#, "line", .wrongType),
            (#"{"text": "x", "bar": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}"#, "bar", .invalid),
            (#"{"text": "x", "duration": -1}"#, "duration", .invalid),
            (#"{"text": "x", "duration": 0.0000001}"#, "duration", .invalid),
            (#"{"text": "x", "duration": "five"}"#, "duration", .wrongType),
            (#"{"text": "x", "pos": 1.5}"#, "pos", .invalid),
            (#"{"text": "x", "lifetime": -1}"#, "lifetime", .invalid),
            (#"{"text": "x", "lifetimeMode": 2}"#, "lifetimeMode", .invalid),
            (#"{"text": "x", "icon": 7.5}"#, "icon", .invalid),
            (#"{"text": "x", "icon": -7}"#, "icon", .invalid),
            (#"{"text": "x", "icon": true}"#, "icon", .wrongType),
            (#"[{"text": "x"}, {"text": "y", "pos": "first"}]"#, "[1].pos", .wrongType),
            (#"[{"text": "x"}, 3]"#, "[1]", .wrongType),
            (#"[]"#, "body", .invalid),
            (#""text""#, "body", .wrongType),
            (#"{"text": "x""#, "body", .badJSON),
        ]
        for (text, field, code) in cases {
            let error = refusal(text)
            #expect(error?.field == field && error?.code == code, "\(text): \(String(describing: error))")
        }
        #expect(throws: ProtocolError.self) { try AWTRIXApp.body(name: "a/b", Array(#"{"text": "x"}"#.utf8)) }
    }

    @Test func a3_anEmptyBodyRemovesAndAnArrayMakesNumberedApps() throws {
        #expect(try body("") == .remove)
        #expect(try body(" \n") == .remove)
        #expect(try body("{}") == .remove)
        #expect(try body("{ }") == .remove)
        guard case .set(let apps) = try body(#"[{"text": "1"}, {"text": "2"}]"#, name: "test") else { Issue.record("no apps"); return }
        #expect(apps.map(\.app.name) == ["test0", "test1"] && apps.map(\.app.content) == [.text("1"), .text("2")])
    }

    /// An array that could never fit the rotation is refused before nookd is asked for any of
    /// it: nothing is set part way, and the rotation's other apps keep their places.
    @Test func a3_anArrayOfMoreAppsThanNookKeepsIsRefusedWhole() throws {
        let most = "[" + Array(repeating: #"{"text": "x"}"#, count: NookApp.Limits.count).joined(separator: ",") + "]"
        guard case .set(let apps) = try body(most) else { Issue.record("\(NookApp.Limits.count) apps are not set"); return }
        #expect(apps.count == NookApp.Limits.count)
        let more = "[" + Array(repeating: #"{"text": "x"}"#, count: NookApp.Limits.count + 1).joined(separator: ",") + "]"
        let refused = refusal(more)
        #expect(refused?.field == "body" && refused?.message.contains("at most \(NookApp.Limits.count) apps") == true, "\(String(describing: refused))")
    }

    /// An app's name is read by people choosing among apps (`/api/apps`, `nookctl app list`):
    /// one with an invisible character in it (a zero-width space, a soft hyphen, a Hangul
    /// filler) shows as another sender's `weather`, and is refused naming the field. The joiners
    /// and selectors emoji and scripts need stay.
    @Test func a3_aNameWithAnInvisibleCharacterIsRefusedAndEmojiNamesAreKept() throws {
        for hidden in ["we\u{200B}ather", "we\u{AD}ather", "weather\u{2060}", "\u{3164}weather", "we\u{34F}ather", "weather\u{FEFF}"] {
            #expect(throws: ProtocolError.self, "\(hidden.unicodeScalars.map { String($0.value, radix: 16) })") {
                try AWTRIXApp.body(name: hidden, Array(#"{"text": "x"}"#.utf8))
            }
            #expect(NookApp.nameProblem(hidden)?.contains("invisible") == true)
        }
        // A family (zero-width joiners), a red heart (a variation selector), Scotland's flag
        // (tag characters) and Persian with a zero-width non-joiner.
        for name in ["👨\u{200D}👩\u{200D}👧", "❤\u{FE0F}", "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", "می\u{200C}خواهم"] {
            #expect(NookApp.nameProblem(name) == nil, "\(name)")
        }
    }
}
