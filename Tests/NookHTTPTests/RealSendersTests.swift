import Foundation
import NookActivities
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// The senders themselves, installed by `Hardware/dev/install-deps`: curl, Apprise (PyPI) and
/// Debian's prometheus-alertmanager with amtool.
enum Senders {
    static func path(_ name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/bin", "/usr/local/bin", "/bin"]
        return directories.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    static let curl = path("curl")
    static let apprise = path("apprise")
    static let alertmanager = path("prometheus-alertmanager")
    static let amtool = path("amtool")

    /// `url` with Apprise's socket bounds raised (`cto` and `rto`, 4 s each by default): a
    /// loaded test machine (the sanitizer pass, with the packages built beside it) can take that
    /// long to answer, and Apprise then fails the send as a connection error. A bound on a hang,
    /// never a judge, as every bound of these tests is (TestBounds).
    static func appriseURL(_ url: String) -> String {
        let seconds = Int(TestBounds.seconds(30))
        return url + (url.contains("?") ? "&" : "?") + "cto=\(seconds)&rto=\(seconds)"
    }

    /// Runs a sender to its end: exit status, output and error.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe.closedOnExec(), error = Pipe.closedOnExec()
        process.standardOutput = output
        process.standardError = error
        try process.runAlone()
        let out = output.fileHandleForReading.readToEndOfFile()
        let err = error.fileHandleForReading.readToEndOfFile()
        // A child whose exit Foundation never saw (killed by waitForExit, which records why)
        // has no status: reading it would trap and take every later test with it.
        let status = process.waitForExit() ? process.terminationStatus : -1
        return (status, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}

/// The built nook-http on a loopback port with a real nookd (httpcore's `HTTPService`), and a
/// watch on nookd's events: what the senders' requests became is read from nookd itself.
final class SenderBench {
    let service: HTTPService
    let watch: EventWatch

    init(config: String? = nil, nookdConfig: String? = nil) throws {
        service = try HTTPService(config: config, nookdConfig: nookdConfig)
        let client = try NookClient(path: service.socket)
        client.readTimeout = TestBounds.duration(.seconds(30))
        watch = try EventWatch(client)
    }

    var port: UInt16 { service.port }
    var baseURL: String { service.url }
    var directory: String { service.directory }

    /// nookd's own answer to `operation` (its `result`).
    @discardableResult
    func request(_ operation: NookOperation) throws -> JSONValue {
        let client = try NookClient(path: service.socket)
        client.readTimeout = TestBounds.duration(.seconds(10))
        return try client.request(Request(id: .number(1), operation: operation))
    }

    /// Every card nookd holds, on the glass and pending.
    func cards() throws -> [NookActivity] {
        try ListAnswer(json: request(.list(module: nil))).modules.flatMap { ($0.current.map { [$0] } ?? []) + $0.pending }
    }

    /// The titles of the cards nookd queued until `count` were, in order.
    func enqueuedTitles(_ count: Int) throws -> [String] {
        var titles: [String] = []
        _ = try watch.events { event in
            if event.name == "enqueued" { titles.append(event.title) }
            return titles.count == count
        }
        return titles
    }
}

@Suite(.serialized, .ownThreads) struct RealSendersTests {
    @Test(.enabled(if: Senders.curl != nil, "needs curl"))
    func h2_curlWithNtfysDocumentedExamplesMakesTheirCards() throws {
        let bench = try SenderBench()
        let base = "127.0.0.1:\(bench.port)"
        let curl = try #require(Senders.curl)
        let examples: [[String]] = [
            ["-d", "Backup successful 😀", "\(base)/mytopic"],
            ["-H", "Title: Unauthorized access detected", "-H", "Priority: urgent", "-H", "Tags: warning,skull",
             "-d", "Remote access to phils-laptop detected. Act right away.", "\(base)/phil_alerts"],
            ["-H", "X-Title: Dogs are better than cats", "-d", "Oh my ...", "\(base)/controversial"],
            ["-H", "p:4", "-d", "A high priority message", "\(base)/phil_alerts"],
            [base, "-d", #"{"topic": "mytopic", "message": "Disk space is low at 5.1 GB", "title": "Low disk space alert", "tags": ["warning","cd"], "priority": 4, "attach": "https://filesrv.lan/space.jpg", "filename": "diskspace.jpg", "click": "https://homecamera.lan/xasds1h2xsSsa/", "actions": [{ "action": "view", "label": "Admin panel", "url": "https://filesrv.lan/admin" }]}"#],
        ]
        for example in examples {
            let result = try Senders.run(curl, ["-sS", "--fail-with-body"] + example)
            #expect(result.status == 0, "curl \(example): \(result.output) \(result.error)")
            #expect((try? JSONValue.parse(Array(result.output.utf8)))?["event"]?.text == "message", "\(result.output)")
        }
        #expect(try bench.enqueuedTitles(5) == ["Backup successful 😀", "Unauthorized access detected", "Dogs are better than cats",
                                               "A high priority message", "Low disk space alert"])
    }

    @Test(.enabled(if: Senders.curl != nil, "needs curl"))
    func h2_curlWithGotifysAndAWTRIXsDocumentedRequestsMakesTheirCards() throws {
        let bench = try SenderBench()
        let curl = try #require(Senders.curl)
        let gotify = try Senders.run(curl, ["-sS", "--fail-with-body", "\(bench.baseURL)/message?token=<apptoken>",
                                            "-F", "title=my title", "-F", "message=my message", "-F", "priority=5"])
        #expect(gotify.status == 0, "\(gotify.output) \(gotify.error)")
        #expect((try? JSONValue.parse(Array(gotify.output.utf8)))?["id"]?.numberValue == 1)
        let awtrix = try Senders.run(curl, ["-sS", "--fail-with-body", "-X", "POST", "-H", "Content-Type: application/json",
                                           "-d", ##"{"text": "Hello, AWTRIX 3!", "color": "#FF0000", "duration": 10}"##, "\(bench.baseURL)/api/notify"])
        #expect(awtrix.status == 0 && awtrix.output == "OK", "\(awtrix.output) \(awtrix.error)")
        #expect(try bench.enqueuedTitles(2) == ["my title", "Hello, AWTRIX 3!"])
        let awtrixCard = try bench.cards().first { $0.title == "Hello, AWTRIX 3!" }
        #expect(awtrixCard?.dwell == .seconds(10))
    }

    @Test(.enabled(if: Senders.curl != nil, "needs curl"))
    func h2_throughNookHTTPAnUnknownTopicIsA404NamingItAndOwnPathsAreNoTopics() throws {
        let bench = try SenderBench(config: "[publish]\ntopics = [\"home\"]\n")
        let curl = try #require(Senders.curl)
        let unknown = try Senders.run(curl, ["-sS", "-w", "\n%{http_code}", "-d", "open", "\(bench.baseURL)/garage"])
        #expect(unknown.output.hasSuffix("\n404"), "\(unknown.output)")
        #expect(unknown.output.contains("'garage'") && unknown.output.contains("home"))
        let healthz = try Senders.run(curl, ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-d", "x", "\(bench.baseURL)/healthz"])
        #expect(healthz.output == "405")
        #expect(try bench.cards().isEmpty)
    }

    @Test(.enabled(if: Senders.apprise != nil, "needs Apprise (pip install apprise; Hardware/dev/install-deps)"))
    func h2_appriseNtfyGotifyAndJSONTargetsReachTheBoard() throws {
        let bench = try SenderBench(config: "[publish]\ntopics = [\"home\"]\n")
        let apprise = try #require(Senders.apprise)
        let host = "127.0.0.1:\(bench.port)"
        for (title, url) in [("Apprise ntfy", "ntfy://\(host)/home"), ("Apprise Gotify", "gotify://\(host)/AbCdEf0123456"),
                             ("Apprise JSON", "json://\(host)/?:topic=home")] {
            let result = try Senders.run(apprise, ["-vv", "-t", title, "-b", "sent by Apprise", Senders.appriseURL(url)])
            #expect(result.status == 0, "apprise \(url): \(result.output) \(result.error)")
        }
        #expect(try bench.enqueuedTitles(3) == ["Apprise ntfy", "Apprise Gotify", "Apprise JSON"])
        // Apprise's body is each card's subtitle: read from the cards still held, then from the
        // history (a card that ends in between is in the second).
        let held = try bench.request(.list(module: nil)).serialized
        let ended = try bench.request(.history(HistoryQuery())).serialized
        #expect((held + ended).components(separatedBy: "\"subtitle\":\"sent by Apprise\"").count - 1 >= 3)
    }
}

@Suite(.serialized, .ownThreads) struct SenderTokenTests {
    @Test(.enabled(if: Senders.apprise != nil && Senders.curl != nil, "needs Apprise and curl"))
    func h2_theBoardsTokenGoesWhereEachSenderPutsItAndAWrongOneQueuesNothing() throws {
        let keys = NSTemporaryDirectory() + "nook-publish-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: keys) }
        let made = try Senders.run(Built.directory + "/nook-http", ["hash-token", "senders", "publish"])
        let token = try #require(made.error.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        let tokens = keys + "/http.tokens"
        try made.output.write(toFile: tokens, atomically: true, encoding: .utf8)
        chmod(tokens, 0o600)
        let bench = try SenderBench(config: "[http]\ntokens = \"\(tokens)\"\n[publish]\ntopics = [\"home\"]\n")
        let apprise = try #require(Senders.apprise), curl = try #require(Senders.curl)
        let host = "127.0.0.1:\(bench.port)"
        // ntfy's Bearer token, Gotify's X-Gotify-Key, ntfy's Basic with the token as password.
        for (title, url) in [("Token ntfy", "ntfy://\(token)@\(host)/home?auth=token"), ("Token Gotify", "gotify://\(host)/\(token)")] {
            let result = try Senders.run(apprise, ["-t", title, "-b", "with the board's token", Senders.appriseURL(url)])
            #expect(result.status == 0, "apprise \(url): \(result.output) \(result.error)")
        }
        let basic = try Senders.run(curl, ["-sS", "--fail-with-body", "-u", ":\(token)", "-H", "Title: Token curl", "-d", "basic", "\(bench.baseURL)/home"])
        #expect(basic.status == 0, "\(basic.output)")
        #expect(try bench.enqueuedTitles(3) == ["Token ntfy", "Token Gotify", "Token curl"])
        let wrong = try Senders.run(apprise, ["-t", "Wrong", "-b", "x", Senders.appriseURL("ntfy://nook_wrong@\(host)/home?auth=token")])
        #expect(wrong.status != 0)
        let none = try Senders.run(curl, ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-d", "x", "\(bench.baseURL)/home"])
        #expect(none.output == "401")
        #expect(!(try bench.cards().contains { $0.title == "Wrong" || $0.title == "x" }))
        #expect(!(try bench.request(.history(HistoryQuery())).serialized.contains("\"Wrong\"")))
    }
}

@Suite(.serialized, .ownThreads) struct AlertmanagerSenderTests {
    @Test(.enabled(if: Senders.alertmanager != nil && Senders.amtool != nil, "needs prometheus-alertmanager and amtool (Hardware/dev/install-deps)"))
    func h3_alertmanagersGroupIsOneCardThatCountsUpdatesAndEndsWhenResolved() throws {
        let bench = try SenderBench()
        let alertmanager = try startAlertmanager(for: bench)
        defer { alertmanager.stop() }
        func add(_ instance: String, end: String? = nil) throws {
            _ = try alertmanager.amtool(["alert", "add", "alertname=HighLoad", "instance=\(instance)", "severity=critical",
                                         "--annotation=summary=Load above 8 on \(instance)"] + (end.map { ["--end=\($0)"] } ?? []))
        }
        try add("web1")
        let shown = try bench.watch.events { $0.name == "enqueued" }
        let id = try #require(shown.last?.id)
        #expect(shown.last?.title == "Load above 8 on web1")
        try add("web2")
        try add("web3")
        _ = try bench.watch.events { $0.id == id && $0.name == "updated" && $0.title == "HighLoad: 3 firing" }
        let cards = try bench.cards()
        #expect(cards.map(\.id) == [id], "one card for the group, never one per alert")
        let past = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-60))
        for instance in ["web1", "web2", "web3"] { try add(instance, end: past) }
        let ending = try bench.watch.events { $0.id == id && $0.ending != nil }
        #expect(ending.last?.reason == "cancelled")
        #expect(!ending.contains { $0.name == "enqueued" }, "no second card")
        #expect(try bench.cards().isEmpty)
    }

    /// The issue's own run: two alerts of one group with `resolve_timeout` 5 s, both resolved by
    /// `amtool alert add … --end=<10 s ago>` (an end before they started, so Alertmanager
    /// replaces them rather than merging). Whatever order Alertmanager's notifications and
    /// retries arrive in, once it holds no alert and the group's card has ended, no card keyed
    /// `alertmanager/…` is live.
    @Test(.enabled(if: Senders.alertmanager != nil && Senders.amtool != nil, "needs prometheus-alertmanager and amtool (Hardware/dev/install-deps)"))
    func h3_twoAlertsResolvedWithAnEndInThePastLeaveNoCardLive() throws {
        let bench = try SenderBench()
        let alertmanager = try startAlertmanager(for: bench, global: "resolve_timeout: 5s")
        defer { alertmanager.stop() }
        let run = alertmanager.amtool
        func add(_ instance: String, end: String? = nil) throws {
            _ = try run(["alert", "add", "alertname=DiskFull", "instance=\(instance)", "severity=critical",
                            "--annotation=summary=Disk full on \(instance)"] + (end.map { ["--end=\($0)"] } ?? []))
        }
        // Firing until an end ten minutes away: without one each would resolve itself five
        // seconds after it was added (`resolve_timeout`), and a loaded machine's amtool calls
        // came further apart than that, so the group never had two firing.
        let later = ISO8601DateFormatter().string(from: Date().addingTimeInterval(600))
        try add("nas1", end: later)
        try add("nas2", end: later)
        do {
            _ = try bench.watch.events { $0.name == "updated" && $0.title == "DiskFull: 2 firing" || $0.name == "enqueued" && $0.title == "DiskFull: 2 firing" }
        } catch {
            // (Once in an AddressSanitizer pass nookd heard nothing for the watch's whole bound:
            // what Alertmanager and nook-http said then is what tells why.)
            let said = (try? String(contentsOfFile: bench.directory + "/alertmanager.log", encoding: .utf8)) ?? ""
            throw HarnessFailure("\(error)\nalertmanager.log:\n\(said.suffix(3000))\n\(bench.service.logs)")
        }
        let past = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-10))
        try add("nas1", end: past)
        try add("nas2", end: past)
        func live() throws -> [NookActivity] { try bench.cards().filter { $0.coalescingKey?.hasPrefix("alertmanager/") == true } }
        // Until Alertmanager holds no alert and no card of it is live, or the bound.
        _ = try Waiting.until(seconds: 30) {
            try run(["alert", "query", "-o", "simple"]).split(separator: "\n").count <= 1 && live().isEmpty
        }
        #expect(try run(["alert", "query", "-o", "simple"]).split(separator: "\n").count <= 1, "Alertmanager still holds alerts")
        let left = try live()
        #expect(left.isEmpty, "\(left.map { "\($0.title) \($0.coalescingKey ?? "")" })")
    }

    /// A running Alertmanager whose one receiver is the bench's nook-http, and amtool aimed at it.
    struct RunningAlertmanager {
        let process: Process
        let amtoolPath: String
        let url: String

        /// amtool's output; it fails while Alertmanager is still starting, which takes seconds.
        func amtool(_ arguments: [String]) throws -> String {
            let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
            while true {
                let result = try Senders.run(amtoolPath, [url] + arguments)
                if result.status == 0 { return result.output }
                guard Date() < deadline else { throw HarnessFailure("amtool: \(result.error)") }
                usleep(200_000)
            }
        }

        func stop() {
            kill(process.processIdentifier, SIGKILL)
            _ = process.waitForExit()
        }
    }

    /// Alertmanager grouping by alert name, one second to wait and between notifications, sending
    /// resolves to the bench's `/api/v1/alertmanager`; `global`, a line of its global settings.
    func startAlertmanager(for bench: SenderBench, global: String? = nil) throws -> RunningAlertmanager {
        let alertmanager = try #require(Senders.alertmanager), amtool = try #require(Senders.amtool)
        let config = bench.directory + "/alertmanager.yml"
        try ((global.map { "global:\n  \($0)\n" } ?? "") + """
            route:
              receiver: nook
              group_by: [alertname]
              group_wait: 1s
              group_interval: 1s
              repeat_interval: 1h
            receivers:
              - name: nook
                webhook_configs:
                  - url: \(bench.baseURL)/api/v1/alertmanager
                    send_resolved: true
            """).write(toFile: config, atomically: true, encoding: .utf8)
        let (process, port) = try startAlertmanager(alertmanager, config: config, directory: bench.directory)
        return RunningAlertmanager(process: process, amtoolPath: amtool, url: "--alertmanager.url=http://127.0.0.1:\(port)")
    }

    /// Alertmanager on a loopback port once it listens there itself; started again on
    /// another port when another process took the first before it bound it.
    func startAlertmanager(_ binary: String, config: String, directory: String) throws -> (Process, Int) {
        let log = directory + "/alertmanager.log"
        for attempt in 1...5 {
            let port = try LoopbackPort.unused()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["--config.file=\(config)", "--storage.path=\(directory)/am-data",
                                 "--web.listen-address=127.0.0.1:\(port)", "--cluster.listen-address=", "--log.level=warn"]
            process.standardOutput = FileHandle.nullDevice
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: log)
            try process.runAlone()
            let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
            while process.isRunning, !LoopbackPort.isListening(pid: process.processIdentifier, port: port), Date() < deadline {
                usleep(50_000)
            }
            if LoopbackPort.isListening(pid: process.processIdentifier, port: port) { return (process, port) }
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let seen = LoopbackPort.explain(pid: process.processIdentifier, port: port)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            _ = process.waitForExit()
            guard attempt < 5, said.contains("address already in use") else {
                throw HarnessFailure("Alertmanager did not listen on 127.0.0.1:\(port): \(seen)\n\(said)")
            }
        }
        throw HarnessFailure("Alertmanager found no free port")
    }
}

/// Home Assistant as docs/publishing.md says it works today: its `rest_command` example, read from
/// the page and sent as Home Assistant sends it (a POST with the YAML's headers and payload, the
/// templates filled in, the secret a Bearer token); and its ntfy integration, whose setup asks
/// `GET /v1/account` first, which the page says is not served yet.
@Suite(.serialized, .ownThreads) struct HomeAssistantSenderTests {
    /// The `rest_command` block of publishing.md: url, method, headers and payload as written.
    static func restCommand() throws -> (url: String, method: String, headers: [(String, String)], payload: String) {
        let document = try String(contentsOfFile: Built.root + "/docs/publishing.md", encoding: .utf8)
        // (Into a plain optional first: Swift 6.0.3's #require cannot expand an optional chain of calls.)
        let found = document.components(separatedBy: "```yaml\nrest_command:\n").dropFirst().first?.components(separatedBy: "```").first
        let block = try #require(found, "publishing.md has a rest_command example")
        var url = "", method = "", payload = "", headers: [(String, String)] = [], inHeaders = false
        for line in block.split(separator: "\n").map(String.init) {
            let text = line.components(separatedBy: "     #").first!.trimmingCharacters(in: .whitespaces)
            func value(_ key: String) -> String? {
                guard text.hasPrefix(key + ":") else { return nil }
                var value = text.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
                if value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
                return value
            }
            if let value = value("url") { url = value; inHeaders = false } else if let value = value("method") { method = value; inHeaders = false }
            else if let value = value("payload") { payload = value; inHeaders = false } else if text == "headers:" { inHeaders = true }
            else if inHeaders, let colon = text.firstIndex(of: ":") {
                headers.append((String(text[..<colon]), text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))))
            }
        }
        return (url, method, headers, payload)
    }

    /// Home Assistant's templates, as it renders them for `title`, `message` and no `tags`.
    static func rendered(_ template: String, token: String) -> String {
        template.replacingOccurrences(of: "{{ title }}", with: "Washer done")
            .replacingOccurrences(of: "{{ message }}", with: "The laundry is ready")
            .replacingOccurrences(of: "{{ tags | default('bell') }}", with: "bell")
            .replacingOccurrences(of: "!secret nook_bearer", with: "Bearer " + token)
    }

    @Test(.enabled(if: Senders.curl != nil, "needs curl"))
    func h2_publishingMdsHomeAssistantRestCommandReachesTheBoard() throws {
        let keys = NSTemporaryDirectory() + "nook-ha-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: keys) }
        let made = try Senders.run(Built.directory + "/nook-http", ["hash-token", "homeassistant", "publish"])
        let token = try #require(made.error.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        let tokens = keys + "/http.tokens"
        try made.output.write(toFile: tokens, atomically: true, encoding: .utf8)
        chmod(tokens, 0o600)
        let bench = try SenderBench(config: "[http]\ntokens = \"\(tokens)\"\n")
        let command = try Self.restCommand()
        #expect(command.method == "POST" && command.url.hasPrefix("http://board:8080/"), "\(command)")
        #expect(command.headers.map(\.0) == ["Title", "Tags", "Authorization"], "\(command.headers)")
        let url = command.url.replacingOccurrences(of: "http://board:8080", with: bench.baseURL)
        let curl = try #require(Senders.curl)
        let headers = command.headers.flatMap { ["-H", "\($0.0): \(Self.rendered($0.1, token: token))"] }
        let sent = try Senders.run(curl, ["-sS", "--fail-with-body", "-X", command.method] + headers + ["--data-binary", Self.rendered(command.payload, token: token), url])
        #expect(sent.status == 0, "\(sent.output) \(sent.error)")
        #expect(try bench.enqueuedTitles(1) == ["Washer done"])
        let card = try #require(try bench.cards().first { $0.title == "Washer done" })
        #expect(card.subtitle == "The laundry is ready" && card.systemImage == "bell", "\(card)")
    }
}
