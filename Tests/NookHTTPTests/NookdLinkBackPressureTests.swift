import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// H1 and H4 through the built nook-http and a real nookd on the mock display: a burst of large
/// reads is served whole without cutting nook-http off from nookd, and a change nookd may have
/// carried out before its link was lost is never answered 503 ("nothing was done").
@Suite("H1 H4 nook-http's link to nookd under a burst of large reads, and when nookd dies mid-call", .serialized, .ownThreads)
struct NookdLinkBackPressureTests {
    /// 500 history entries of about 400 bytes: a page of `limit=500` is about 200 KB.
    static func fillHistory(_ service: HTTPService, entries: Int) throws {
        let client = try NookClient(path: service.socket)
        client.readTimeout = TestBounds.duration(.seconds(120))
        try HistoryBurst.send(entries: entries, to: client)
        try nativeAPIEventually("the history holds \(entries) entries", timeout: 60) {
            let answer = try NookClient(path: service.socket).request(Request(id: .number(1), operation: .history(HistoryQuery(limit: 1))))
            return try HistoryAnswer(json: answer).total >= entries
        }
    }

    @Test func h1_h4_sixtyConcurrentLargeHistoryReadsAreEachServedWholeWithNo503AndTheLinkKept() throws {
        // A call waiting its turn past the bounds is refused (503, nothing done) after
        // http.nookd_timeout_s: at its longest here, so a machine slow enough to stretch the
        // burst past 15 s (a debug nook-http at load 30 did) does not fail it; cutting the link
        // or dropping the answers still would.
        let service = try HTTPService(config: "[http]\nnookd_timeout_s = 600\n")
        try Self.fillHistory(service, entries: 500)
        let directory = service.directory + "/answers"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // One curl, 60 transfers at once: the issue's burst, inside the default rate limit's burst.
        var arguments = ["-sS", "--max-time", "\(Int(TestBounds.seconds(600)))", "-Z", "--parallel-immediate", "--parallel-max", "60",
                         "-w", "%{http_code}\n"]
        for number in 0..<60 { arguments += ["-o", "\(directory)/\(number).json", service.url + "/api/v1/history?limit=500"] }
        let burst = try runProgram("/usr/bin/curl", arguments)
        #expect(burst.status == 0, "\(burst.error)")
        let codes = burst.output.split(separator: "\n")
        #expect(codes.count == 60 && codes.allSatisfy { $0 == "200" }, "\(codes)\n\(service.logs)")
        for number in 0..<60 {
            let body = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(number).json"))
            let entries = try JSONValue.parse(Array(body))["entries"]?.items ?? []
            #expect(entries.count == 500, "answer \(number) holds \(entries.count) entries (\(body.count) bytes)")
        }
        #expect(!service.logText.contains("lost nookd"), "\(service.logs)")
        let nookdLog = (try? String(contentsOfFile: service.nookdLog, encoding: .utf8)) ?? ""
        #expect(!nookdLog.contains("dropped connection"), "\(nookdLog)")
        // The link still serves a change at once.
        let created = try curl(["-H", "Content-Type: application/json", "-d", #"{"title":"after the burst"}"#, service.url + "/api/v1/activities"])
        #expect(created.output.statusCodes == [201], "\(created.output)")
    }

    /// Bytes nookd has not yet read on its side of connections to `socket` (``UnreadBytes``).
    static func unreadByNookd(_ socket: String) throws -> Int { try UnreadBytes.accepted(on: socket) }

    @Test func h1_h4_aCardSentWhenNookdIsKilledBeforeItAnswersIsA504OutcomeUnknownNeverA503() throws {
        let service = try HTTPService()
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200], "\(service.logs)")
        let nookd = service.nookd.processIdentifier
        // Stopped, nookd reads nothing: the POST's bytes wait in its socket, then it dies.
        ProcessStop.stop(nookd)
        var stopped = true
        defer { if stopped { kill(nookd, SIGCONT) } }
        let post = Process()
        post.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        post.arguments = ["-sS", "-i", "--max-time", "\(Int(TestBounds.seconds(60)))", "-H", "Content-Type: application/json",
                          "-d", #"{"title":"maybe shown"}"#, service.url + "/api/v1/activities"]
        let output = Pipe.closedOnExec()
        post.standardOutput = output
        try post.runAlone()
        try nativeAPIEventually("the POST's call written to nookd's socket") { try Self.unreadByNookd(service.socket) > 0 }
        service.stopNookd()
        stopped = false
        let answer = String(decoding: output.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        _ = post.waitForExit()
        #expect(answer.statusCodes == [504], "\(answer)\n\(service.logs)")
        #expect(answer.contains("\"code\":\"outcome_unknown\"") && !answer.contains("Retry-After"), "\(answer)")
        #expect(service.logText.contains("answer 504 (outcome unknown)"), "\(service.logs)")
        // A read asks nothing of nookd that could have been done: with nookd gone it is a 503.
        let read = try curl([service.url + "/api/v1/status"])
        #expect(read.output.statusCodes == [503] && read.output.contains("Retry-After:"), "\(read.output)")
    }

    @Test func h4_aCardStillWaitingForNookdWhenNookHTTPStopsIsAnswered504NotCutOff() throws {
        let service = try HTTPService()
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200], "\(service.logs)")
        let nookd = service.nookd.processIdentifier
        ProcessStop.stop(nookd)
        defer { kill(nookd, SIGCONT) }
        let post = Process()
        post.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        post.arguments = ["-sS", "-i", "--max-time", "\(Int(TestBounds.seconds(60)))", "-H", "Content-Type: application/json",
                          "-d", #"{"title":"maybe shown"}"#, service.url + "/api/v1/activities"]
        let output = Pipe.closedOnExec()
        post.standardOutput = output
        try post.runAlone()
        try nativeAPIEventually("the POST's call written to nookd's socket") { try Self.unreadByNookd(service.socket) > 0 }
        kill(service.server.processIdentifier, SIGTERM)
        let answer = String(decoding: output.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        _ = post.waitForExit()
        #expect(answer.statusCodes == [504], "\(answer)\n\(service.logs)")
        #expect(answer.contains("\"code\":\"outcome_unknown\""), "\(answer)")
        #expect(service.server.exited(within: TestBounds.seconds(10)), "\(service.logText)")
    }

    /// A second stop signal while nook-http stops (here held by a call nookd, stopped, never
    /// answers) ends it at once, with the signal's exit status, instead of waiting out the calls.
    @Test func n2_aSecondStopSignalWhileNookHTTPStopsEndsItAtOnce() throws {
        let service = try HTTPService()
        #expect(try curl([service.url + "/healthz"]).output.statusCodes == [200], "\(service.logs)")
        let nookd = service.nookd.processIdentifier
        ProcessStop.stop(nookd)
        defer { kill(nookd, SIGCONT) }
        let post = Process()
        post.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        post.arguments = ["-sS", "-o", "/dev/null", "--max-time", "\(Int(TestBounds.seconds(60)))", "-H", "Content-Type: application/json",
                          "-d", #"{"title":"held"}"#, service.url + "/api/v1/activities"]
        post.standardError = FileHandle.nullDevice
        try post.runAlone()
        defer { post.terminate(); _ = post.waitForExit() }
        try nativeAPIEventually("the POST's call written to nookd's socket") { try Self.unreadByNookd(service.socket) > 0 }
        kill(service.server.processIdentifier, SIGTERM)
        try nativeAPIEventually("nook-http stopping") { service.logText.contains("stopping: no new connections") }
        kill(service.server.processIdentifier, SIGTERM)
        #expect(service.server.exited(within: TestBounds.seconds(10)), "\(service.logText)")
        #expect(service.server.terminationStatus == 128 + SIGTERM, "\(service.logText)")
        #expect(!service.logText.contains("] stopped"), "the second signal waited for the stop to finish: \(service.logText)")
    }

    /// `/healthz` asks nookd for its status and reads only whether it was accepted (the answer is
    /// a kilobyte it need not parse). Mixed on the one link with calls whose answers are read
    /// whole and with refusals, each answer still goes to its own call.
    @Test func h1_healthzCallsThatReadOnlyTheOutcomeInterleaveWithWholeAnswersAndRefusals() throws {
        let service = try HTTPService()
        let directory = service.directory + "/mixed"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let paths = ["/healthz", "/api/v1/status", "/api/v1/activities/no-such-card"]
        var arguments = ["-sS", "--max-time", "\(Int(TestBounds.seconds(60)))", "-Z", "--parallel-immediate", "--parallel-max", "45",
                         "-w", "%{http_code}\n"]
        for number in 0..<45 { arguments += ["-o", "\(directory)/\(number).json", service.url + paths[number % 3]] }
        let burst = try runProgram("/usr/bin/curl", arguments)
        #expect(burst.status == 0, "\(burst.error)")
        #expect(burst.output.split(separator: "\n").count == 45)
        for number in 0..<45 {
            let body = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(number).json"))))
            switch number % 3 {
            case 0: #expect(body["ok"] == .bool(true) && body["nookd"]?.text == "reachable", "healthz \(number): \(body)")
            case 1: #expect(body["display"]?["backend"]?.text == "mock", "status \(number): \(body)")
            default: #expect(body["error"]?["code"]?.text == "not_found", "missing card \(number): \(body)")
            }
        }
        #expect(!service.logText.contains("lost nookd") && !service.logText.contains("when call"), "\(service.logs)")
    }
}

