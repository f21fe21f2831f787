import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// M2 end to end: every payload of Tests/Fixtures/awtrix (AWTRIX's API document, community
/// blueprints, the forms AWTRIX's parser takes), sent as its README's table says through the
/// built nook-http (`/api/custom?name=`, `/api/notify`) and nook-mqtt (`PREFIX/custom/NAME`,
/// `PREFIX/notify`, through Debian's mosquitto) to a real nookd. Each is shown (an app in
/// nookd's list, a card in its queue), never refused, and every key Nook does not act on is
/// named: in the HTTP answer, on the MQTT error topic.
@Suite("M2 AWTRIX's documented payloads through both bridges", .serialized, .ownThreads, .enabled(if: MQTTTools.available, MQTTTools.skipReason))
struct AWTRIXFixturesTests {
    static let directory = Built.root + "/Tests/Fixtures/awtrix"

    struct Fixture {
        let file: String
        let kinds: Set<String>
        let source: String
        var stem: String { String(file.dropLast(".json".count)) }
        var body: String { (try? String(contentsOfFile: AWTRIXFixturesTests.directory + "/" + file, encoding: .utf8)) ?? "" }
    }

    /// The README's table: `| `FILE` | app, notify | <URL> | what |`.
    static func fixtures() throws -> [Fixture] {
        let readme = try String(contentsOfFile: directory + "/README.md", encoding: .utf8)
        return readme.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3, cells[0].hasPrefix("`"), cells[0].hasSuffix(".json`") else { return nil }
            return Fixture(file: String(cells[0].dropFirst().dropLast()), kinds: Set(cells[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }),
                           source: cells[2].trimmingCharacters(in: CharacterSet(charactersIn: "<>")))
        }
    }

    /// Top-level keys Nook acts on; every other key must be named where the sender looks.
    static let appTaken = AWTRIXApp.takenFields
    static let notificationTaken: Set<String> = ["text", "color", "icon", "duration", "hold", "progress", "bar", "line"]

    /// The keys of a body (of each app of an array) that Nook does not act on, and those given twice.
    static func mustBeNamed(_ body: String, taken: Set<String>) throws -> Set<String> {
        let (value, duplicates) = try JSONValue.parseKeepingLast(Array(body.utf8))
        let objects = value.items.isEmpty ? [value] : value.items
        var keys = Set(duplicates)
        for case .object(let members) in objects { keys.formUnion(members.map(\.0).filter { !taken.contains($0) }) }
        return keys
    }

    /// The words of `text`, so `effect` is not found in `effectSettings`.
    static func words(_ text: String) -> Set<String> {
        Set(text.split { !($0.isLetter || $0.isNumber) }.map(String.init))
    }

    @Test func m2_everyFixtureIsAFileOfTheTableWithItsSource() throws {
        let listed = try Self.fixtures()
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory).filter { $0.hasSuffix(".json") }
        #expect(Set(listed.map(\.file)) == Set(files) && listed.count == files.count, "README: \(listed.map(\.file).sorted()), files: \(files.sorted())")
        #expect(listed.count >= 20)
        for fixture in listed {
            #expect(fixture.source.hasPrefix("https://github.com/") && !fixture.kinds.isEmpty && fixture.kinds.isSubset(of: ["app", "notify"]),
                    "\(fixture.file): \(fixture.kinds) \(fixture.source)")
            do { _ = try JSONValue.parseKeepingLast(Array(fixture.body.utf8)) } catch { Issue.record("\(fixture.file) is not JSON as AWTRIX reads it: \(error)") }
        }
    }

    @Test func m2_everyDocumentedPayloadIsShownOverHTTPAndMQTTWithWhatWasIgnoredNamed() throws {
        let scratch = Scratch()
        // Every fixture is an app of each bridge's: more than one sender's default share.
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", scratch.file("nook.toml", "[apps]\nper_sender = 0\n")])
        let broker = try Broker(scratch: scratch)
        let bridge = try MQTTBridgeProcess(broker: broker, socket: daemon.socket, scratch: scratch)
        let http = try HTTPBridgeProcess(scratch: scratch, socket: daemon.socket)
        let errors = try Subscriber(broker: broker, topics: ["nook/b1/error"])
        // Cards wait in the queue rather than come and go, so each can be counted there.
        _ = try daemon.request(.suspend(module: nil))

        func apps() throws -> Set<String> { Set(try AppListAnswer(json: daemon.request(.appList)).apps.map(\.app.name)) }
        /// The titles of every card nookd holds, page by page.
        func titles() throws -> [String] {
            var answer = try ListAnswer(json: daemon.request(.list(module: nil)))
            var found: [String] = []
            while true {
                found += answer.modules.flatMap { ($0.current.map { [$0] } ?? []) + $0.pending }.map(\.title)
                guard let text = answer.cursor else { return found }
                answer = try ListAnswer(json: daemon.request(.list(module: nil, after: ListCursor(text: text))))
            }
        }
        /// What the error topic said about `topic` after its first `from` messages.
        func said(on topic: String, from: Int) -> (warnings: String, refusals: [JSONValue]) {
            let about = errors.json("nook/b1/error").dropFirst(from).filter { $0["topic"]?.text == topic }
            return (about.filter { $0["code"]?.text == "warning" }.compactMap { $0["message"]?.text }.joined(separator: "\n"),
                    about.filter { $0["code"]?.text != "warning" })
        }

        for fixture in try Self.fixtures() {
            let body = fixture.body
            if fixture.kinds.contains("app") {
                let value = try JSONValue.parseKeepingLast(Array(body.utf8)).value
                let count = value.items.count
                func made(_ name: String) -> Set<String> { count == 0 ? [name] : Set((0..<count).map { name + String($0) }) }
                let appNames = try Self.mustBeNamed(body, taken: Self.appTaken)

                let answer = try http.post("/api/custom?name=h-" + fixture.stem, body)
                #expect(answer.status == 200 && answer.text.hasPrefix("OK"), "\(fixture.file) over HTTP: \(answer)")
                #expect(appNames.isSubset(of: Self.words(answer.text)), "\(fixture.file) over HTTP: \(appNames) not all named in \(answer.text)")
                #expect(try made("h-" + fixture.stem).isSubset(of: apps()), "\(fixture.file) over HTTP: not set")

                let before = errors.json("nook/b1/error").count
                try broker.publish("nook/b1/custom/m-" + fixture.stem, body)
                try eventually("\(fixture.file) set over MQTT") { try made("m-" + fixture.stem).isSubset(of: apps()) }
                let topic = "nook/b1/custom/m-" + fixture.stem
                try? eventually("\(fixture.file)'s keys named on the error topic") { appNames.isSubset(of: Self.words(said(on: topic, from: before).warnings)) }
                #expect(appNames.isSubset(of: Self.words(said(on: topic, from: before).warnings)), "\(fixture.file) over MQTT: \(said(on: topic, from: before))")
                #expect(said(on: topic, from: before).refusals.isEmpty, "\(fixture.file) over MQTT: \(said(on: topic, from: before).refusals)")
            }
            if fixture.kinds.contains("notify") {
                let notificationNames = try Self.mustBeNamed(body, taken: Self.notificationTaken)
                var notes: [String] = []
                let title = try AWTRIXNotification.parse(Array(body.utf8)).activity(id: NookActivityID(), notes: &notes).title
                let queued = try titles().filter { $0 == title }.count

                let answer = try http.post("/api/notify", body)
                #expect(answer.status == 200 && answer.text.hasPrefix("OK"), "\(fixture.file) to /api/notify: \(answer)")
                #expect(notificationNames.isSubset(of: Self.words(answer.text)), "\(fixture.file) to /api/notify: \(notificationNames) not all named in \(answer.text)")
                #expect(try titles().filter { $0 == title }.count == queued + 1, "\(fixture.file) to /api/notify: no card '\(title)'")

                let before = errors.json("nook/b1/error").count
                try broker.publish("nook/b1/notify", body)
                try eventually("\(fixture.file)'s card over MQTT") { try titles().filter { $0 == title }.count == queued + 2 }
                try? eventually("\(fixture.file)'s keys named on the error topic") {
                    notificationNames.isSubset(of: Self.words(said(on: "nook/b1/notify", from: before).warnings))
                }
                let mqttSaid = said(on: "nook/b1/notify", from: before)
                #expect(notificationNames.isSubset(of: Self.words(mqttSaid.warnings)) && mqttSaid.refusals.isEmpty, "\(fixture.file) to PREFIX/notify: \(mqttSaid)")
            }
        }
        #expect(bridge.process.isRunning && http.process.isRunning && daemon.process.isRunning, "\(bridge.log.suffix(2000))\n\(http.log.suffix(2000))")
    }
}

/// The built nook-http on a port the kernel chose, with one publishing token.
final class HTTPBridgeProcess {
    let process = Process()
    let logPath: String
    let token = "nook_fixtures-token"
    private(set) var port = 0

    init(scratch: Scratch, socket: String) throws {
        let digest = try run("/usr/bin/sha256sum", [scratch.file("token", token)]).output.prefix(64)
        let tokens = scratch.file("tokens", "fixtures read,publish sha256:\(digest)\n")
        chmod(tokens, 0o600)
        let config = scratch.file("http.toml", "[http]\ntokens = \"\(tokens)\"\nrate_limit_per_s = 0\nnookd_timeout_s = \(Int(TestBounds.seconds(15)))\n")
        logPath = scratch.path + "/nook-http.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let output = Pipe.closedOnExec()
        process.executableURL = URL(fileURLWithPath: Built.directory + "/nook-http")
        process.arguments = ["--socket", socket, "--listen", "127.0.0.1:0", "--log-level", "debug", "--config", config]
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: logPath)
        try process.runAlone()
        // Its first line says where it listens.
        let text = output.firstLine()
        guard let last = text.split(separator: "\n").first?.split(separator: ":").last, let port = Int(last) else {
            throw DaemonFailure("nook-http did not say where it listens: '\(text)' \(log)")
        }
        self.port = port
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// curl's POST of `body` as the token: the status and the answer's text.
    func post(_ path: String, _ body: String) throws -> (status: Int, text: String) {
        let result = try run("/usr/bin/curl", ["-sS", "--max-time", "\(Int(TestBounds.seconds(20)))", "-o", "-", "-w", "\n%{http_code}",
                                               "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json",
                                               "--data-binary", body, "http://127.0.0.1:\(port)\(path)"])
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    deinit { stopProcess(process) }
}
