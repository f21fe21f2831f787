import NookActivities
import NookProtocol
import Testing

@Suite("C1, C3 the wire protocol")
struct ProtocolTests {
    func decode(_ text: String) -> Result<Request, RequestFailure> { Request.decode(Array(text.utf8)) }

    @Test func c1_everyOperationRoundTripsThroughItsJSONLine() throws {
        let activity = NookActivity(coalescingKey: "build", priority: .high, title: "Build finished", subtitle: "Debug · 12.4s",
                                    systemImage: "hammer", tint: .named(.green), dwell: .seconds(3),
                                    presentation: .blocker(timeout: .seconds(30)), expiresAfter: .seconds(60), progress: 0.5)
        let id = NookActivityID()
        let operations: [NookOperation] = [
            .enqueue(activity, module: "ci", wait: true), .cancel(id), .cancelAll(key: "build", module: nil), .dismiss(id),
            .dismiss(nil), .suspend(module: "ci"), .resume(module: nil), .quiesce(module: nil), .status, .list(module: nil),
            .watch, .snapshot, .home(.text("Quiet")), .home(.clock), .focus(module: "music"),
            .glance(NookGlance(columns: 20, rows: 2, lines: ["CPU 12%", "é ✓"], titleRow: 0,
                               bars: [NookGlance.Bar(row: 1, column: 4, length: 2.5, direction: .vertical)], highlightRow: 1, menu: true)),
            .glance(nil),
            .quiet(.on), .quiet(.off), .quiet(.status), .quiet(.until("07:30")),
            .indicator(NookIndicator(number: 2, color: 0xFF8000, blinkMs: 500)), .indicator(.off(3)), .indicator(NookIndicator(number: 1, color: nil, fadeMs: 900)),
            .display(DisplaySetting()), .display(DisplaySetting(power: .offFor(seconds: 3600), brightness: .percent(35))),
            .update(.id(id), changes: ActivityChanges(members: [("progress", .number(0.7))]), restartDwell: true),
            .inputs, .press(.open), .press(.dismiss),
            .invoke(id), .invoke(nil),
            .history(HistoryQuery(since: 7200, key: "build", unseen: true, limit: 10)), .historyShow(.number(3)), .historyReplay(.id(id)),
            .historyClear, .frame(after: nil), .frame(after: 7),
            .appSet(NookApp(name: "weather", content: .text("21 °C"), chart: NookApp.Chart(.bar, [1, 4, 9]), lifetime: .seconds(600))),
            .appSetAll([NookApp(name: "weather0", content: .text("21 °C")), NookApp(name: "weather1", content: .fragments([.init("rain")]))]),
            .appRemove("weather"), .appList, .appShow("weather"), .appNext, .appPrevious, .appSwitch("weather"),
            .soundPlay(SoundRequest(sound: "alarm", priority: .low, volume: 0)), .soundStop, .soundVolume(.set(35)), .soundVolume(.configured),
            .iconsWanted,
        ]
        for operation in operations {
            let line = Request(id: .number(7), operation: operation).encoded()
            let decoded = try decode(line).get()
            #expect(decoded.operation == operation, "\(line)")
            #expect(decoded.id == .number(7))
        }
        #expect(Set(NookOperation.names).count == 38)
    }

    @Test(arguments: [
        (#"{"op":"glance","glance":{"columns":0,"rows":4,"lines":[]}}"#, ProtocolError.Code.invalid, "glance.columns"),
        (#"{"op":"glance","glance":{"columns":4,"rows":2,"lines":["a"]}}"#, .invalid, "glance.lines"),
        (#"{"op":"glance","glance":{"columns":4,"rows":1,"lines":["abcde"]}}"#, .invalid, "glance.lines[0]"),
        (#"{"op":"glance","glance":{"columns":4,"rows":1,"lines":[7]}}"#, .wrongType, "glance.lines[0]"),
        (#"{"op":"glance","glance":{"columns":4,"rows":1,"lines":[""],"titleRow":1}}"#, .invalid, "glance.titleRow"),
        (#"{"op":"glance","glance":{"columns":4,"rows":1,"lines":[""],"highlightRow":-1}}"#, .invalid, "glance.highlightRow"),
        (#"{"op":"glance","glance":{"columns":4,"rows":1,"lines":[""],"bars":[{"row":0,"column":0,"length":1,"direction":"d"}]}}"#, .invalid, "glance.bars[0].direction"),
        (#"{"op":"glance","glance":{"columns":4,"rows":1,"lines":[""],"bars":[{"row":0,"column":9,"length":1,"direction":"h"}]}}"#, .invalid, "glance.bars[0]"),
        (#"{"op":"glance","glance":{"columns":4,"rows":1,"lines":[""],"colour":1}}"#, .invalid, "glance.colour"),
        (#"{"op":"glance","glance":"big"}"#, .wrongType, "glance"),
    ])
    func e8_aBadGlanceIsRefusedNamingTheField(line: String, code: ProtocolError.Code, field: String) {
        guard case .failure(let failure) = decode(line) else { Issue.record("accepted \(line)"); return }
        #expect(failure.error.code == code, "\(failure.error)")
        #expect(failure.error.field == field, "\(failure.error)")
    }

    @Test func z1_quietRequestsAreCheckedAndTheAnswerReadsBack() throws {
        guard case .failure(let failure) = decode(#"{"op":"quiet","set":"later"}"#) else { Issue.record("accepted"); return }
        #expect(failure.error.field == "set")
        guard case .failure(let missing) = decode(#"{"op":"quiet","set":"until"}"#) else { Issue.record("accepted"); return }
        #expect(missing.error.field == "until")
        let answer = QuietAnswer(quiet: true, source: .schedule, until: "tue 07:00", minimum: .high)
        #expect(try QuietAnswer(json: answer.json) == answer)
        #expect(answer.summary == "quiet (schedule) until tue 07:00; while quiet, high and above show")
    }

    @Test func c1_aMinimalEnqueueNeedsOnlyATitleAndTheVersionIsOptional() throws {
        let request = try decode(#"{"op":"enqueue","activity":{"title":"Hi"}}"#).get()
        guard case .enqueue(let activity, nil, false, nil) = request.operation else { Issue.record("\(request)"); return }
        #expect(activity.title == "Hi" && activity.priority == .normal && activity.dwell == .milliseconds(2400))
    }

    @Test(arguments: [
        (#"{"op":"enqueue","activity":{"title":""}}"#, ProtocolError.Code.invalid, "activity.title"),
        (#"{"op":"enqueue","activity":{"title":"x","dwell":-1}}"#, .invalid, "activity.dwell"),
        (#"{"op":"enqueue","activity":{"title":"x","dwell":"2"}}"#, .wrongType, "activity.dwell"),
        (#"{"op":"enqueue","activity":{"title":"x","priority":"urgent"}}"#, .invalid, "activity.priority"),
        (#"{"op":"enqueue","activity":{"title":"x","tint":"chartreuse"}}"#, .invalid, "activity.tint"),
        (#"{"op":"enqueue","activity":{"title":"x","progress":2}}"#, .invalid, "activity.progress"),
        (#"{"op":"enqueue","activity":{"title":"x","colour":"red"}}"#, .invalid, "activity.colour"),
        (#"{"op":"enqueue","activity":{"title":"x","timeout":5}}"#, .invalid, "activity.timeout"),
        (#"{"op":"enqueue","activity":{"title":"x","id":"nope"}}"#, .invalid, "activity.id"),
        (#"{"op":"enqueue","activity":{"subtitle":"x"}}"#, .missingField, "activity.title"),
        (#"{"op":"enqueue","activity":"Build"}"#, .wrongType, "activity"),
        (#"{"op":"enqueue"}"#, .missingField, "activity"),
        (#"{"op":"explode"}"#, .unknownOperation, "op"),
        (#"{"activity":{}}"#, .missingField, "op"),
        (#"{"op":7}"#, .wrongType, "op"),
        (#"{"v":2,"op":"status"}"#, .unsupportedVersion, "v"),
        (#"{"op":"cancel","activity":"x"}"#, .invalid, "activity"),
        (#"{"op":"home","content":"video"}"#, .invalid, "content"),
        (#"{"op":"focus"}"#, .missingField, "module"),
        (#"{"op":"status","id":[1]}"#, .wrongType, "id"),
    ])
    func c3_badRequestsGetAnErrorNamingTheField(line: String, code: ProtocolError.Code, field: String) {
        guard case .failure(let failure) = decode(line) else { Issue.record("\(line) must fail"); return }
        #expect(failure.error.code == code, "\(failure.error)")
        #expect(failure.error.field == field, "\(failure.error)")
    }

    @Test(arguments: [
        "{", "{\"op\":}", "[1,2", "{\"op\":\"status\"} trailing", "{\"op\":\"st\u{0}atus\"}", "nul\u{0}", "",
        "{\"a\":1,\"a\":2}", "{\"op\":\"\\ud800\"}", String(repeating: "[", count: 100),
    ])
    func c3_malformedJSONIsABadJSONError(line: String) {
        guard case .failure(let failure) = decode(line) else { Issue.record("must fail"); return }
        #expect(failure.error.code == .badJSON)
    }

    /// What `Double(_:)` reads but JSON does not write is refused, naming the number's offset.
    @Test(arguments: ["01", "-01", "00", "1.", "-", "1e", "1e+", "1.e5", "1e5.5", "-.5", "1..2", "1e5e5"])
    func c3_aNumberJSONDoesNotWriteIsMalformed(text: String) {
        #expect(parseError("[\(text)]") == "at byte 1: malformed number")
    }

    @Test(arguments: ["0", "-0", "1.5", "1e5", "1E+5", "1e-07", "-0.0", "123", "0.25e2", "-1.0E-2"])
    func c1_everyNumberJSONWritesIsRead(text: String) throws {
        #expect(try JSONValue.parse(Array(text.utf8)) == .number(Double(text)!))
    }

    @Test(arguments: [#""\u+0e9""#, #""\u-001""#, #""\u 0e9""#, #""\u00g9""#])
    func c3_aUnicodeEscapeIsFourHexadecimalDigitsExactly(text: String) {
        #expect(parseError(text) == "at byte 3: \\u needs four hexadecimal digits")
    }

    /// What `JSONValue.parse` says is wrong with `text`, or nil when it reads it.
    func parseError(_ text: String) -> String? {
        do {
            _ = try JSONValue.parse(Array(text.utf8))
            return nil
        } catch {
            return error.description
        }
    }

    @Test func c3_invalidUTF8IsRejectedNotMangled() {
        var bytes = Array(#"{"op":"enqueue","activity":{"title":"ab"}}"#.utf8)
        bytes[bytes.count - 4] = 0xFF
        guard case .failure(let failure) = Request.decode(bytes) else { Issue.record("must fail"); return }
        #expect(failure.error.code == .badJSON && failure.error.message.contains("UTF-8"))
    }

    @Test func c3_theRequestIdIsEchoedEvenWhenTheRequestIsBad() {
        guard case .failure(let failure) = decode(#"{"id":"abc","op":"nope"}"#) else { Issue.record("must fail"); return }
        #expect(failure.id == .string("abc"))
        let line = ResponseLine.failure(id: failure.id, error: failure.error).encoded()
        #expect(line.contains(#""id":"abc""#) && line.contains(#""ok":false"#) && line.contains(#""field":"op""#))
    }

    @Test func c1_stringsAreEscapedExactlyAsJSONRequiresAndReadBackUnchanged() throws {
        let text = "tab\there \"quoted\" back\\slash\u{01}\u{1F} nl\n cr\r é 🔨 中"
        let line = JSONValue.object([("t", .string(text)), ("plain", .string("Build finished"))]).serialized
        #expect(line == #"{"t":"tab\there \"quoted\" back\\slash\u0001\u001f nl\n cr\r é 🔨 中","plain":"Build finished"}"#)
        #expect(try JSONValue.parse(Array(line.utf8))["t"] == .string(text))
        #expect(JSONValue.string(text).serializedBytes == Array(JSONValue.string(text).serialized.utf8))
        let escaped = try JSONValue.parse(Array(#"["a\u00e9\ud83d\udd28\/b", "\u4e2d"]"#.utf8))
        #expect(escaped == .array([.string("aé🔨/b"), .string("中")]))
    }

    @Test func c1_wholeNumbersAreWrittenAsIntegersAndOthersRoundTrip() throws {
        let numbers: [Double] = [0, -0.0, 1, -1, 9, 10, 42, -730, 1_763_939_000, 999_999_999_999_999, -999_999_999_999_999,
                                 1e15, -1e15, 0.5, -2.25, 1_763_939_000.125, 1e-7, 123_456_789_012_345_680]
        let line = JSONValue.array(numbers.map { .number($0) }).serialized
        #expect(line.hasPrefix("[0,0,1,-1,9,10,42,-730,1763939000,999999999999999,-999999999999999,"), "\(line)")
        #expect(try JSONValue.parse(Array(line.utf8)) == .array(numbers.map { .number($0) }))
    }

    @Test func c1_journalLinesCarryTheStandardCRC32() {
        // The check value every CRC-32 (IEEE) implementation gives for "123456789".
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum(Array("123456789".utf8)[...]) == 0xCBF4_3926)
        // A collection without contiguous storage takes the other loop.
        #expect(CRC32.checksum("123456789".utf8.lazy.map { $0 }) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
        #expect(CRC32.line(.string("a")) == Array("\(CRC32.hex(CRC32.checksum(Array(#""a""#.utf8)))) \"a\"\n".utf8))
    }

    @Test func c1_answersAndEventsRoundTrip() throws {
        let answer = try ResponseLine.decode(Array(ResponseLine.success(id: .number(1), result: .object([("n", .number(3))])).encoded().utf8))
        guard case .success(.number(1)?, let result) = answer else { Issue.record("\(answer)"); return }
        #expect(result["n"] == .number(3))
        let activity = NookActivity(title: "Ünïcödé \"quoted\"\n")
        let event = NookActivityEvent(activity: activity, kind: .rejected(.coalesced), at: NookInstant(sinceOrigin: .milliseconds(1500)), module: "main")
        let line = ResponseLine.event(id: nil, event: EventMessage(event).json).encoded()
        guard case .event(_, let payload) = try ResponseLine.decode(Array(line.utf8)) else { Issue.record("\(line)"); return }
        #expect(payload["event"] == .string("rejected") && payload["reason"] == .string("coalesced"))
        #expect(payload["title"] == .string(activity.title) && payload["at"] == .number(1.5))
        #expect(payload["id"] == .string(activity.id.description))
    }
}
