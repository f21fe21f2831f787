import Foundation
import NookActivities
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// ntfy's own request shapes as ntfy's documentation sends them, through curl and Apprise to
/// the built nook-http and a real nookd: what each became is read from nookd's events, in
/// order, and "no card" is judged by a marker card that comes next.
@Suite(.serialized, .ownThreads) struct NtfyClientShapesTests {
    /// curl's answer: its output with the status code on a last line of its own.
    func curl(_ arguments: [String]) throws -> (status: Int, body: JSONValue) {
        let curl = try #require(Senders.curl)
        let result = try Senders.run(curl, ["-sS", "-g", "-w", "\n%{http_code}"] + arguments)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? 0
        let body = (try? JSONValue.parse(Array(lines.dropLast().joined(separator: "\n").utf8))) ?? .null
        return (status, body)
    }

    /// Publishes a marker and returns the titles nookd queued up to it: what the requests before
    /// it queued, and nothing else.
    func titlesUpToMarker(_ bench: SenderBench) throws -> [String] {
        let marker = "marker \(UUID().uuidString.prefix(8))"
        let sent = try curl(["-H", "Title: \(marker)", "-d", "m", "\(bench.baseURL)/mytopic"])
        try #require(sent.status == 200, "\(sent.body.serialized)")
        var titles: [String] = []
        _ = try bench.watch.events { event in
            if event.name == "enqueued" { titles.append(event.title) }
            return event.name == "enqueued" && event.title == marker
        }
        return titles.dropLast()
    }

    /// Every card nookd holds or has ended (its history), to read a card that may already have
    /// left the glass.
    func seen(_ bench: SenderBench) throws -> [NookActivity] {
        try bench.cards() + HistoryAnswer(json: bench.request(.history(HistoryQuery()))).entries.map(\.activity)
    }

    @Test(.enabled(if: Senders.curl != nil, "needs curl"))
    func h2_ntfysPublishAsGETWebhooksAndPostToTriggerMakeTheirCards() throws {
        let bench = try SenderBench()
        let base = bench.baseURL
        // ntfy's webhook paths: /publish, /send and /trigger, the message from `message` or `m`.
        let published = try curl(["\(base)/mytopic/publish?message=Hi&title=T"])
        #expect(published.status == 200 && published.body["event"]?.text == "message", "\(published.body.serialized)")
        #expect(published.body["topic"]?.text == "mytopic" && published.body["message"]?.text == "Hi")
        let sent = try curl(["\(base)/mytopic/send?m=Sent+by+GET"])
        #expect(sent.status == 200, "\(sent.body.serialized)")
        // ntfy's documented `curl ntfy.sh/mywebhook/trigger`: no message is `triggered`.
        let triggered = try curl(["\(base)/mywebhook/trigger"])
        #expect(triggered.status == 200 && triggered.body["message"]?.text == "triggered", "\(triggered.body.serialized)")
        // POST to /trigger publishes to the topic; "trigger" is no sequence id.
        let posted = try curl(["-X", "POST", "\(base)/mytopic/trigger"])
        #expect(posted.status == 200, "\(posted.body.serialized)")
        let postedID = try #require(posted.body["id"]?.text)
        #expect(posted.body["sequence_id"]?.text == postedID)
        #expect(try titlesUpToMarker(bench) == ["T", "Sent by GET", "triggered", "triggered"])
        let cards = try seen(bench)
        #expect(cards.first { $0.title == "T" }?.subtitle == "Hi")
        #expect(cards.contains { $0.coalescingKey == "ntfy/mytopic/\(postedID)" })
        #expect(!cards.contains { $0.coalescingKey == "ntfy/mytopic/trigger" })
    }

    /// A GET that publishes changes something: a HEAD makes no card, and another site's page
    /// (an `<img>` pointing at the webhook) is refused as its POST would be.
    @Test(.enabled(if: Senders.curl != nil, "needs curl"))
    func h2_aWebhookGETIsNoReadHEADAndAnotherSitesPageMakeNoCard() throws {
        let bench = try SenderBench()
        let base = bench.baseURL
        let head = try curl(["-I", "\(base)/mytopic/trigger?m=by+HEAD"])
        #expect(head.status == 405)
        let crossSite = try curl(["-H", "Sec-Fetch-Site: cross-site", "\(base)/mytopic/trigger?m=from+another+site"])
        #expect(crossSite.status == 403 && crossSite.body.saidError?.field == "Sec-Fetch-Site", "\(crossSite.body.serialized)")
        let typed = try curl(["-H", "Sec-Fetch-Site: none", "\(base)/mytopic/trigger?m=typed+in+the+address+bar"])
        #expect(typed.status == 200, "\(typed.body.serialized)")
        #expect(try titlesUpToMarker(bench) == ["typed in the address bar"])
    }

    @Test(.enabled(if: Senders.curl != nil, "needs curl"))
    func h2_ntfysJSONFormTakesPUTAndReadsPriorityZeroAsUnset() throws {
        let bench = try SenderBench()
        let put = try curl(["-X", "PUT", "-d", #"{"topic": "mytopic", "message": "by PUT", "priority": 0}"#, bench.baseURL])
        #expect(put.status == 200 && put.body["event"]?.text == "message", "\(put.body.serialized)")
        // As ntfy does: 0 sets nothing, so the header's priority stands.
        let zero = try curl(["-H", "X-Priority: 4", "-d", #"{"topic": "mytopic", "title": "zero", "priority": 0}"#, bench.baseURL])
        #expect(zero.status == 200, "\(zero.body.serialized)")
        #expect(try titlesUpToMarker(bench) == ["by PUT", "zero"])
        let cards = try seen(bench)
        #expect(cards.first { $0.title == "by PUT" }?.priority == .normal)
        #expect(cards.first { $0.title == "zero" }?.priority == .high)
    }

    @Test(.enabled(if: Senders.curl != nil, "needs curl"))
    func h2_withAMessageParameterAndABodyTheBodyIsTheMessageAsInNtfy() throws {
        let bench = try SenderBench()
        let header = try curl(["-H", "X-Message: from the header", "-d", "from the body", "\(bench.baseURL)/mytopic"])
        #expect(header.status == 200 && header.body["message"]?.text == "from the body", "\(header.body.serialized)")
        let query = try curl(["-d", "body again", "\(bench.baseURL)/mytopic?m=from+the+query"])
        #expect(query.status == 200 && query.body["message"]?.text == "body again", "\(query.body.serialized)")
        #expect(try titlesUpToMarker(bench) == ["from the body", "body again"])
    }

    /// ntfy's documented template example (its Python and PowerShell tabs): the title and message
    /// are filled in from the JSON body; a richer template is refused naming it, and no card
    /// ever shows `{{…}}` as written.
    @Test(.enabled(if: Senders.curl != nil, "needs curl"))
    func h2_aTemplateIsFilledInFromTheJSONBodyOrRefusedNamingIt() throws {
        let bench = try SenderBench()
        let webhook = #"{"hostname": "phil-pc", "error": {"level": "severe", "desc": "Disk has run out of space"}}"#
        let documented = try curl(["-d", webhook,
                                   "\(bench.baseURL)/mytopic?tpl=yes&t={{.hostname}}:+A+{{.error.level}}+error+has+occurred&m=Error+message:+{{.error.desc}}"])
        #expect(documented.status == 200, "\(documented.body.serialized)")
        #expect(documented.body["title"]?.text == "phil-pc: A severe error has occurred")
        #expect(documented.body["message"]?.text == "Error message: Disk has run out of space")
        let header = try curl(["-H", "X-Template: yes", "-H", "Message: {{.error.desc}} on {{.hostname}}", "-d", webhook, "\(bench.baseURL)/mytopic"])
        #expect(header.status == 200 && header.body["message"]?.text == "Disk has run out of space on phil-pc", "\(header.body.serialized)")
        let ranged = try curl(["-H", "Template: 1", "-H", "Message: {{range .alerts}}{{.summary}}{{end}}", "-d", #"{"alerts": [{"summary": "x"}]}"#,
                               "\(bench.baseURL)/mytopic"])
        #expect(ranged.status == 400, "\(ranged.body.serialized)")
        #expect(ranged.body.saidError?.field == "message" && ranged.body.saidError?.message.contains("{{range .alerts}}") == true,
                "\(ranged.body.serialized)")
        let notJSON = try curl(["-d", "not json", "\(bench.baseURL)/mytopic?template=yes&m={{.a}}"])
        #expect(notJSON.status == 400 && notJSON.body.saidError?.field == "body", "\(notJSON.body.serialized)")
        #expect(try titlesUpToMarker(bench) == ["phil-pc: A severe error has occurred", "Disk has run out of space on phil-pc"])
    }

    /// publishing.md's Apprise example, as written there, with the board's token: Apprise sends
    /// `Authorization: Basic base64("TOKEN:None")` for `ntfy://TOKEN@host/topic`.
    @Test(.enabled(if: Senders.apprise != nil, "needs Apprise (pip install apprise; Hardware/dev/install-deps)"))
    func h2_publishingMdsAppriseExampleReachesTheBoardWithItsToken() throws {
        let document = try String(contentsOfFile: Built.root + "/docs/publishing.md", encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"`apprise -t "([^"]+)" -b "([^"]+)" "(ntfy://TOKEN@board:8080/([^"]+))"`"#)
        let match = try #require(pattern.firstMatch(in: document, range: NSRange(document.startIndex..., in: document)), "publishing.md has no Apprise ntfy example")
        let part = { (index: Int) in String(document[Range(match.range(at: index), in: document)!]) }
        let (title, body, url, topic) = (part(1), part(2), part(3), part(4))

        let keys = NSTemporaryDirectory() + "nook-apprise-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: keys) }
        let made = try Senders.run(Built.directory + "/nook-http", ["hash-token", "apprise", "publish"])
        let token = try #require(made.error.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        try made.output.write(toFile: keys + "/http.tokens", atomically: true, encoding: .utf8)
        chmod(keys + "/http.tokens", 0o600)
        let bench = try SenderBench(config: "[http]\ntokens = \"\(keys)/http.tokens\"\n[publish]\ntopics = [\"\(topic)\"]\n")
        let apprise = try #require(Senders.apprise)
        let board = Senders.appriseURL(url.replacingOccurrences(of: "board:8080", with: "127.0.0.1:\(bench.port)"))
        let sent = try Senders.run(apprise, ["-vv", "-t", title, "-b", body, board.replacingOccurrences(of: "TOKEN", with: token)])
        #expect(sent.status == 0, "apprise: \(sent.output) \(sent.error)")
        // A token nook-http does not know, in the same form, is refused.
        let wrong = try Senders.run(apprise, ["-t", "wrong", "-b", "x", board.replacingOccurrences(of: "TOKEN", with: "nook_notAToken")])
        #expect(wrong.status != 0)
        let marker = try Senders.run(apprise, ["-t", "marker", "-b", "m", board.replacingOccurrences(of: "TOKEN", with: token)])
        #expect(marker.status == 0, "apprise: \(marker.output) \(marker.error)")
        #expect(try bench.enqueuedTitles(2) == [title, "marker"])
        #expect(try seen(bench).first { $0.title == title }?.subtitle == body)
    }
}
