import NookActivities
import NookHTTP
import NookProtocol
import Testing

@Suite struct NtfyPublishTests {
    func request(_ method: String = "POST", _ path: String = "/alerts", headers: [(String, String)] = [], query: [(String, String)] = [],
                 body: String) -> HTTPRequest {
        HTTPRequest(method: method, path: path, query: query.map { (name: $0.0, value: $0.1) },
                    headers: headers.map { (name: $0.0, value: $0.1) }, body: Array(body.utf8))
    }

    func parsed(_ request: HTTPRequest, topic: String = "alerts") throws -> NtfyMessage {
        try NtfyMessage.fromRequest(request, topic: topic).get()
    }

    @Test func h2_theBodyIsTheMessageAndItsFirstLineTheTitleWhenNoneIsGiven() throws {
        let message = try parsed(request(body: "Backup successful 😀\nall 1,204 files\n"))
        let card = NtfyMapping.card(for: message, id: NookActivityID(), module: nil)
        #expect(card.activity.title == "Backup successful 😀")
        #expect(card.activity.subtitle == "all 1,204 files")
        #expect(card.activity.priority == .normal)
        #expect(card.activity.systemImage == "bell")
        #expect(!card.updatesInPlace)
    }

    @Test func h2_theDocumentationsHeaderExampleGivesTitlePriorityAndTags() throws {
        // ntfy's own example: Title, Priority: urgent, Tags: warning,skull.
        let message = try parsed(request(headers: [("Title", "Unauthorized access detected"), ("Priority", "urgent"), ("Tags", "warning,skull")],
                                         body: "Remote access to phils-laptop detected. Act right away."))
        #expect(message.title == "Unauthorized access detected")
        #expect(message.priority == 5)
        #expect(message.tags == ["warning", "skull"])
        let card = NtfyMapping.card(for: message, id: NookActivityID(), module: "home")
        #expect(card.activity.title == "Unauthorized access detected")
        #expect(card.activity.subtitle == "Remote access to phils-laptop detected. Act right away.")
        #expect(card.activity.presentation == .blocker(timeout: nil))
        #expect(card.activity.tint == .named(.red))
        #expect(card.activity.systemImage == "exclamationmark.triangle")
        #expect(card.module == "home")
    }

    @Test(arguments: [("X-Title", "t1"), ("Title", "t2"), ("ti", "t3"), ("t", "t4"), ("x-title", "t5")])
    func h2_everyAliasOfTheTitleHeaderIsRead(header: String, value: String) throws {
        #expect(try parsed(request(headers: [(header, value)], body: "m")).title == value)
    }

    @Test func h2_parametersMayComeAsQueryParameters() throws {
        let message = try parsed(request(query: [("title", "From the query"), ("p", "4"), ("tags", "tada"), ("message", "Hi")], body: ""))
        #expect(message.title == "From the query")
        #expect(message.priority == 4)
        #expect(message.message == "Hi")
        let card = NtfyMapping.card(for: message, id: NookActivityID(), module: nil)
        #expect(card.activity.tint == .named(.green))
        #expect(card.activity.systemImage == "checkmark.circle")
    }

    @Test func h2_anEmptyMessageIsTriggeredAsInNtfy() throws {
        let card = NtfyMapping.card(for: try parsed(request(body: "")), id: NookActivityID(), module: nil)
        #expect(card.activity.title == "triggered")
    }

    @Test func h2_rfc2047EncodedHeadersAreDecoded() throws {
        let message = try parsed(request(headers: [("Title", "=?UTF-8?B?8J+HqfCfh6o=?="), ("Tags", "=?UTF-8?Q?=C3=84pfel?=")], body: "x"))
        #expect(message.title == "🇩🇪")
        #expect(message.tags == ["Äpfel"])
    }

    @Test func h2_markdownMarksAreRemoved() throws {
        let message = try parsed(request(headers: [("Markdown", "yes")], body: "**Disk** almost _full_ on [web1](https://x.example/web1)\n- `sda` 97%"))
        let card = NtfyMapping.card(for: message, id: NookActivityID(), module: nil)
        #expect(card.activity.title == "Disk almost full on web1")
        #expect(card.activity.subtitle == "sda 97%")
        let typed = try parsed(request(headers: [("Content-Type", "text/markdown")], body: "# Done"))
        #expect(NtfyMapping.card(for: typed, id: NookActivityID(), module: nil).activity.title == "Done")
    }

    @Test func h2_theSequenceIDKeysTheCardAndAsksForAnUpdateInPlace() throws {
        let message = try parsed(request(headers: [("X-Sequence-ID", "backup-42")], body: "Copying 10%"))
        let card = NtfyMapping.card(for: message, id: NookActivityID(), module: nil)
        #expect(card.activity.coalescingKey == "ntfy/alerts/backup-42")
        #expect(card.updatesInPlace)
        let fromPath = try NtfyMessage.fromRequest(request(body: "x"), topic: "alerts", sequenceID: "abc").get()
        #expect(fromPath.sequenceID == "abc")
        let short = try parsed(request(headers: [("sid", "s1")], body: "x"))
        #expect(short.sequenceID == "s1")
    }

    @Test func h2_aMessageWithoutSequenceIDIsKeyedByItsOwnMessageID() throws {
        let id = NookActivityID()
        let card = NtfyMapping.card(for: try parsed(request(body: "x")), id: id, module: nil)
        let messageID = NtfyMapping.messageID(for: id)
        #expect(messageID.count == 12)
        #expect(NtfyMessage.isValidName(messageID))
        #expect(card.activity.coalescingKey == "ntfy/alerts/\(messageID)")
        #expect(NtfyMapping.messageID(for: id) == messageID)
    }

    /// A sender keeps the id it was answered with (Home Assistant's sequence), and the journal
    /// keeps the card keyed by it across an upgrade: the same activity id gives the same message
    /// id from one release to the next.
    @Test func h2_aMessageIDIsTheSameFromReleaseToRelease() {
        #expect(NtfyMapping.messageID(for: NookActivityID(high: 0x0123_4567_89AB_CDEF, low: 42)) == "0063UfDVRKBz")
        #expect(NtfyMapping.messageID(for: NookActivityID(high: .max, low: 0)) == "0LygHa16AHYF")
        #expect(NtfyMapping.messageID(for: NookActivityID(high: 0, low: .max)) == "000000000000")
    }

    @Test func h2_theJSONFormTakesTopicFieldsAndFillsInFromHeaders() throws {
        // As Apprise sends it: JSON with topic, title and message, the priority as a header.
        let json = #"{"topic": "alerts", "title": "Apprise", "message": "from apprise", "tags": ["warning"], "attach": "https://x/y.jpg"}"#
        let message = try NtfyMessage.fromJSON(request(headers: [("X-Priority", "high"), ("X-Icon", "https://x/i.png")], body: json)).get()
        #expect(message.topic == "alerts")
        #expect(message.title == "Apprise")
        #expect(message.message == "from apprise")
        #expect(message.priority == 4)
        #expect(message.tags == ["warning"])
        #expect(message.ignored.count == 2)
        let withPriority = try NtfyMessage.fromJSON(request(body: #"{"topic": "t", "priority": 2, "sequence_id": "s"}"#)).get()
        #expect(withPriority.priority == 2)
        #expect(withPriority.sequenceID == "s")
        #expect(withPriority.message == "triggered")
    }

    @Test func h2_badInputIsAnErrorNamingTheField() {
        func failure(_ result: Result<NtfyMessage, HTTPAPIError>) -> HTTPAPIError? {
            if case .failure(let error) = result { return error }
            return nil
        }
        #expect(failure(NtfyMessage.fromRequest(request(headers: [("Priority", "6")], body: "x"), topic: "a"))?.field == "priority")
        #expect(failure(NtfyMessage.fromRequest(request(headers: [("X-Sequence-ID", "no spaces")], body: "x"), topic: "a"))?.field == "sequence_id")
        #expect(failure(NtfyMessage.fromRequest(request(headers: [("Delay", "30min")], body: "x"), topic: "a"))?.code == "unsupported")
        var invalid = request(body: "")
        invalid.body = [0x66, 0xFF, 0xFE]
        #expect(failure(NtfyMessage.fromRequest(invalid, topic: "a"))?.field == "body")
        #expect(failure(NtfyMessage.fromJSON(request(body: "{not json")))?.code == "malformed_json")
        #expect(failure(NtfyMessage.fromJSON(request(body: #"{"message": "no topic"}"#)))?.field == "topic")
        #expect(failure(NtfyMessage.fromJSON(request(body: #"{"topic": "a/b"}"#)))?.field == "topic")
        #expect(failure(NtfyMessage.fromJSON(request(body: #"{"topic": "a", "priority": 9}"#)))?.field == "priority")
        #expect(failure(NtfyMessage.fromJSON(request(body: #"{"topic": "a", "tags": [1]}"#)))?.field == "tags")
        #expect(failure(NtfyMessage.fromJSON(request(body: #"{"topic": "a", "delay": "9am"}"#)))?.code == "unsupported")
    }

    @Test func h2_aDelayIsRefusedQuotingTheValueGivenUnderWhicheverNameItCame() {
        for (name, value) in [("Delay", "30min"), ("X-In", "1h"), ("At", "tomorrow, 10am"), ("x-delay", "9\nforged")] {
            guard case .failure(let error) = NtfyMessage.fromRequest(request(headers: [(name, value)], body: "x"), topic: "a") else {
                Issue.record("\(name) accepted"); continue
            }
            #expect(error.status == 400 && error.code == "unsupported" && error.field == "delay", "\(error)")
            #expect(error.message.contains("a delay ('\(value.replacingOccurrences(of: "\n", with: "\\u{a}"))') is not offered"), "\(error.message)")
        }
        guard case .failure(let json) = NtfyMessage.fromJSON(request(body: #"{"topic": "a", "delay": "9am"}"#)) else { Issue.record("delay accepted"); return }
        #expect(json.field == "delay" && json.message.contains("('9am')"), "\(json)")
    }

    @Test func h2_aLongMessageIsCutToTheCardWithANote() throws {
        let long = String(repeating: "x", count: 3000)
        let card = NtfyMapping.card(for: try parsed(request(headers: [("Title", "t")], body: long)), id: NookActivityID(), module: nil)
        #expect(card.activity.subtitle?.count == NookActivity.Limits.subtitleCharacters)
        #expect(card.notes.contains { $0.contains("cut to fit") })
        #expect(throws: Never.self) { try card.activity.validate() }
    }

    @Test func h2_topicsComeFromConfigWithAModuleEach() throws {
        let topics = try PublishSettings.topics(parsing: ["alerts", "backups = home"]).get()
        #expect(topics["alerts"] == .some(nil))
        #expect(topics["backups"] == .some("home"))
        for bad in [["a b"], ["api"], ["x="], ["x", "x"]] {
            #expect(throws: HTTPAPIError.self) { try PublishSettings.topics(parsing: bad).get() }
        }
    }

    @Test func h2_theAnswerIsNtfysMessageJSON() throws {
        let message = try parsed(request(headers: [("Title", "T"), ("Tags", "tada"), ("Priority", "4")], body: "M"))
        let id = NookActivityID()
        let answer = NtfyMapping.answer(for: message, delivered: DeliveredCard(id: id, updated: false, warnings: []), now: 1_700_000_000, notes: [])
        #expect(answer["id"]?.text == NtfyMapping.messageID(for: id))
        #expect(answer["event"]?.text == "message")
        #expect(answer["topic"]?.text == "alerts")
        #expect(answer["time"]?.numberValue == 1_700_000_000)
        #expect(answer["priority"]?.numberValue == 4)
        #expect(answer["tags"] == .array([.string("tada")]))
        #expect(answer["sequence_id"]?.text == NtfyMapping.messageID(for: id))
        #expect(answer["nook"]?["activity"]?.text == id.description)
    }

    @Test func h2_httpsOwnPriorityHeaderFromABrowserIsNotReadAsNtfys() throws {
        // RFC 9218, as browsers send it through a proxy; X-Priority is still ntfy's.
        let message = try parsed(request(headers: [("Priority", "u=1, i")], body: "from a page"))
        #expect(message.priority == 3)
        #expect(message.ignored.contains { $0.contains("RFC 9218") })
        #expect(try parsed(request(headers: [("Priority", "u=0"), ("X-Priority", "4")], body: "x")).priority == 4)
    }

    @Test func h2_anErrorEchoesAtMostTheStartOfWhatWasSent() {
        let huge = String(repeating: "x", count: 10_000)
        guard case .failure(let error) = NtfyMessage.fromRequest(request(headers: [("Priority", huge)], body: "x"), topic: "a") else {
            Issue.record("accepted")
            return
        }
        #expect(error.message.count < 200)
    }

    @Test func h2_aBodyBesideAMessageParameterIsTheMessage() throws {
        let header = try parsed(request(headers: [("X-Message", "from the header")], body: "from the body"))
        #expect(header.message == "from the body")
        #expect(header.ignored.contains { $0.contains("the body gives the message") })
        #expect(try parsed(request(query: [("m", "from the query")], body: "from the body")).message == "from the body")
        // Without a body the parameter is the message, as in a publish by GET.
        #expect(try parsed(request("GET", query: [("message", "Hi")], body: "")).message == "Hi")
    }

    @Test func h2_jsonPriorityZeroIsUnsetAsInNtfy() throws {
        #expect(try NtfyMessage.fromJSON(request(body: #"{"topic": "t", "priority": 0}"#)).get().priority == 3)
        #expect(try NtfyMessage.fromJSON(request(headers: [("X-Priority", "5")], body: #"{"topic": "t", "priority": 0}"#)).get().priority == 5)
        #expect(throws: HTTPAPIError.self) { try NtfyMessage.fromJSON(request(body: #"{"topic": "t", "priority": 6}"#)).get() }
        #expect(throws: HTTPAPIError.self) { try NtfyMessage.fromJSON(request(body: #"{"topic": "t", "priority": -1}"#)).get() }
    }

    /// ntfy's templates: field lookups print as Go's text/template prints JSON decoded into maps.
    @Test func h2_aTemplatesFieldLookupsAreFilledInFromTheJSONBodyAsGoPrintsThem() throws {
        let body = #"{"host": "web1", "n": 100000000, "m": 1234567, "k": 100000, "f": 5.1, "big": 1e21, "small": 0.00001, "int": 42, "neg": -3.5, "ok": true, "none": null, "deep": {"er": {"est": "x"}}}"#
        func filled(_ template: String, title: String? = nil) throws -> NtfyMessage {
            try parsed(request(headers: [("X-Template", "yes"), ("X-Message", template)] + (title.map { [("X-Title", $0)] } ?? []), body: body))
        }
        #expect(try filled("{{.host}}: {{ .deep.er.est }}", title: "T {{.int}}").message == "web1: x")
        #expect(try filled("{{.host}}", title: "T {{.int}}").title == "T 42")
        #expect(try filled("{{.n}} {{.m}} {{.k}} {{.f}} {{.big}} {{.small}} {{.neg}} {{.ok}}").message == "1e+08 1.234567e+06 100000 5.1 1e+21 1e-05 -3.5 true")
        // A key that is not there prints Go's `<no value>`, at any depth, as ntfy shows it.
        #expect(try filled("{{.none}} {{.missing}} {{.missing.deeper}}").message == "<no value> <no value> <no value>")
        // `{{-` and `-}}` trim the whitespace beside them.
        #expect(try filled("a \n {{- .host -}} \t b").message == "aweb1b")
        #expect(try filled("no actions at all").message == "no actions at all")
        for (name, value) in [("tpl", "1"), ("template", "yes"), ("Template", "TRUE")] {
            let asked = name == "Template" ? request(headers: [(name, value), ("m", "{{.host}}")], body: body)
                : request(query: [(name, value), ("m", "{{.host}}")], body: body)
            #expect(try parsed(asked).message == "web1", "\(name)=\(value)")
        }
        // Without a template the text is the text.
        #expect(try parsed(request(query: [("tpl", "no")], body: "{{.host}}")).message == "{{.host}}")
    }

    @Test func h2_aTemplateNookHTTPCannotFillInIsRefusedNamingIt() {
        let body = #"{"alerts": [{"summary": "x"}], "s": "text", "o": {"a": 1}, "z": null}"#
        for (template, field, code, says) in [
            ("{{range .alerts}}{{.summary}}{{end}}", "message", "unsupported", "{{range .alerts}}"),
            ("{{.s | printf \"%q\"}}", "message", "unsupported", "printf"),
            ("{{if .s}}yes{{end}}", "message", "unsupported", "{{if .s}}"),
            ("{{.}}", "message", "unsupported", "{{.}}"),
            ("{{$x := .s}}", "message", "unsupported", "$x"),
            ("{{/* a comment */}}", "message", "unsupported", "comment"),
            ("{{.o}}", "message", "unsupported", "an object"),
            ("{{.alerts}}", "message", "unsupported", "an array"),
            ("{{.s.deeper}}", "message", "invalid_field", "a string"),
            ("{{.z.deeper}}", "message", "invalid_field", "null"),
            ("{{.s", "message", "invalid_field", "no '}}'"),
        ] {
            guard case .failure(let error) = NtfyMessage.fromRequest(request(headers: [("X-Template", "yes"), ("X-Message", template)], body: body), topic: "a") else {
                Issue.record("\(template) was filled in"); continue
            }
            #expect(error.status == 400 && error.field == field && error.code == code && error.message.contains(says), "\(template): \(error)")
        }
        func refusal(_ request: HTTPRequest) -> HTTPAPIError? {
            if case .failure(let error) = NtfyMessage.fromRequest(request, topic: "a") { return error }
            return nil
        }
        // The title is a template too.
        #expect(refusal(request(headers: [("X-Template", "yes"), ("Title", "{{range .alerts}}x{{end}}")], body: body))?.field == "title")
        // The body must be JSON; a named template (newer ntfy's `github`) is none a board has.
        #expect(refusal(request(query: [("tpl", "yes"), ("m", "{{.a}}")], body: "not json"))?.field == "body")
        #expect(refusal(request(query: [("tpl", "github")], body: body))?.field == "template")
        // The JSON form has no body to fill a template from.
        guard case .failure(let json) = NtfyMessage.fromJSON(request(headers: [("X-Template", "yes")], body: #"{"topic": "t", "message": "{{.a}}"}"#)) else {
            Issue.record("the JSON form took a template"); return
        }
        #expect(json.field == "template" && json.code == "unsupported", "\(json)")
    }

    /// A few hundred lookups of one long field would fill hundreds of MB from a body and a
    /// header inside their limits: what a template fills in is bounded, and past the bound the
    /// sender hears which of its fields did it.
    @Test func h2_aTemplateThatFillsInMoreThanABodyMayHoldIsRefusedNamingItsField() {
        let long = String(repeating: "x", count: 60_000)
        let body = "{\"a\": \"\(long)\"}"
        let lookups = String(repeating: "{{.a}}", count: 2_700)
        for (header, field) in [("X-Message", "message"), ("X-Title", "title")] {
            guard case .failure(let error) = NtfyMessage.fromRequest(request(headers: [("X-Template", "yes"), (header, lookups)], body: body), topic: "a") else {
                Issue.record("\(field): 2,700 lookups of 60,000 bytes were filled in"); continue
            }
            #expect(error.status == 400 && error.field == field && error.message.contains("longer than 65536 bytes"), "\(error)")
        }
        // One lookup of the same field is within the bound.
        guard case .success(let one) = NtfyMessage.fromRequest(request(headers: [("X-Template", "yes"), ("X-Message", "{{.a}}")], body: body), topic: "a") else {
            Issue.record("one lookup was refused"); return
        }
        #expect(one.message.utf8.count == 60_000)
    }
}
