import Foundation
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// M5 through the built nook-http: what ntfy's clients ask before they publish (`/v1/account`,
/// `POST /v1/account/token`, `/TOPIC/auth`), the subscriptions the board refuses, and ntfy's
/// error body on every ntfy route, the shared checks' errors too, with Nook's words kept.
@Suite(.serialized, .ownThreads) struct NtfyAccountTests {
    /// A bench whose token file holds a publish token, an admin token and a read token.
    static func bench(extra: String = "") throws -> (bench: SenderBench, tokens: [String: String], folder: String) {
        let folder = NSTemporaryDirectory() + "nook-ntfy-account-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var lines = "", tokens: [String: String] = [:]
        for (who, scopes) in [("phone", "publish"), ("boss", "admin"), ("viewer", "read")] {
            let made = try Senders.run(Built.directory + "/nook-http", ["hash-token", who, scopes])
            lines += made.output
            let token = try #require(made.error.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
            tokens[who] = token
        }
        try lines.write(toFile: folder + "/http.tokens", atomically: true, encoding: .utf8)
        chmod(folder + "/http.tokens", 0o600)
        return (try SenderBench(config: "[http]\ntokens = \"\(folder)/http.tokens\"\n" + extra), tokens, folder)
    }

    /// curl's answer: the status and the body as JSON (null when it is none), and the headers.
    static func ask(_ arguments: [String]) throws -> (status: Int, json: JSONValue, head: String) {
        let curl = try #require(Senders.curl)
        let result = try Senders.run(curl, ["-sS", "-i"] + arguments)
        let parts = result.output.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        let body = parts.dropFirst().joined(separator: "\r\n\r\n")
        return (status, (try? JSONValue.parse(Array(body.utf8))) ?? .null, head)
    }

    /// ntfy's error body: exactly its four fields, ntfy's code, and Nook's words in `error`.
    static func expectNtfyError(_ answer: (status: Int, json: JSONValue, head: String), status: Int, code: Int, saying words: String,
                                sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .object(let members) = answer.json else {
            Issue.record("\(answer.status): no JSON object: \(answer.head)", sourceLocation: sourceLocation); return
        }
        #expect(answer.status == status && answer.json["http"]?.numberValue == Double(status), "\(answer.json)", sourceLocation: sourceLocation)
        #expect(answer.json["code"]?.numberValue == Double(code), "\(answer.json)", sourceLocation: sourceLocation)
        #expect(answer.json["error"]?.text?.contains(words) == true, "\(answer.json)", sourceLocation: sourceLocation)
        #expect(Set(members.map(\.0)).isSubset(of: ["code", "http", "error", "link"]), "\(answer.json)", sourceLocation: sourceLocation)
    }

    @Test(.enabled(if: Senders.curl != nil, "needs curl"))
    func m5_v1AccountAnswersTheTokensNameAndRoleAndAWrongTokenGetsNtfys401() throws {
        let (bench, tokens, folder) = try Self.bench()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let url = bench.baseURL + "/v1/account"
        let phone = try Self.ask(["-H", "Authorization: Bearer \(tokens["phone"]!)", url])
        #expect(phone.status == 200 && phone.json["username"]?.text == "phone" && phone.json["role"]?.text == "user", "\(phone.json)")
        #expect(phone.json["limits"]?["messages"]?.numberValue == 0 && phone.json["stats"]?["messages_remaining"]?.numberValue == 0, "\(phone.json)")
        // Home Assistant's setup sends the token as Basic's password, with a user name of its own.
        let boss = try Self.ask(["-u", "homeassistant:\(tokens["boss"]!)", url])
        #expect(boss.json["username"]?.text == "boss" && boss.json["role"]?.text == "admin", "\(boss.json)")
        let viewer = try Self.ask(["-H", "Authorization: Bearer \(tokens["viewer"]!)", url])
        #expect(viewer.json["username"]?.text == "viewer" && viewer.json["role"]?.text == "user", "\(viewer.json)")
        let wrong = try Self.ask(["-H", "Authorization: Bearer nook_notAToken", url])
        Self.expectNtfyError(wrong, status: 401, code: 40101, saying: "not one nook-http knows")
        #expect(wrong.json["link"]?.text == "https://ntfy.sh/docs/publish/#authentication" && wrong.head.contains("WWW-Authenticate"), "\(wrong.head)")
        // ntfy's new token for the caller: the board makes none and gives back the one presented.
        let issued = try Self.ask(["-u", "homeassistant:\(tokens["phone"]!)", "-d", #"{"label": "Home Assistant"}"#, url + "/token"])
        #expect(issued.status == 200 && issued.json["token"]?.text == tokens["phone"] && issued.json["label"]?.text == "Home Assistant",
                "\(issued.json)")
        #expect(issued.json["last_access"]?.numberValue ?? 0 > 0, "\(issued.json)")
    }

    @Test(.enabled(if: Senders.curl != nil, "needs curl"))
    func m5_withoutATokenFileTheLoopbackCallerIsNtfysAnonymousAndGetsNoToken() throws {
        let bench = try SenderBench()
        let account = try Self.ask([bench.baseURL + "/v1/account"])
        #expect(account.status == 200 && account.json["username"]?.text == "*" && account.json["role"]?.text == "anonymous", "\(account.json)")
        Self.expectNtfyError(try Self.ask(["-X", "POST", bench.baseURL + "/v1/account/token"]), status: 401, code: 40101,
                             saying: "the board makes no tokens")
    }

    @Test(.enabled(if: Senders.curl != nil, "needs curl"))
    func m5_topicAuthIsSuccessForATopicTheBoardTakesAndNtfys404ForOneItDoesNot() throws {
        let (bench, tokens, folder) = try Self.bench(extra: "[publish]\ntopics = [\"home\", \"door\"]\n")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for who in ["phone", "viewer", "boss"] {
            let home = try Self.ask(["-H", "Authorization: Bearer \(tokens[who]!)", bench.baseURL + "/home,door/auth"])
            #expect(home.status == 200 && home.json == .object([("success", .bool(true))]), "\(who): \(home.json)")
        }
        let garage = try Self.ask(["-H", "Authorization: Bearer \(tokens["phone"]!)", bench.baseURL + "/home,garage/auth"])
        Self.expectNtfyError(garage, status: 404, code: 40401, saying: "the topic 'garage' is not one this board takes")
    }

    /// `v1` is ntfy's API, not a topic (ntfy refuses it as one): `/v1/webpush` published a card
    /// to a topic `v1`, and `/v1/auth` said a client might use it.
    @Test(.enabled(if: Senders.curl != nil, "needs curl"))
    func m5_v1IsNtfysOwnPathAndNoTopic() throws {
        let (bench, tokens, folder) = try Self.bench()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let phone = ["-H", "Authorization: Bearer \(tokens["phone"]!)"]
        for path in ["/v1/webpush", "/v1/health", "/v1"] {
            Self.expectNtfyError(try Self.ask(phone + ["-d", "{}", bench.baseURL + path]), status: 404, code: 40401, saying: "own paths")
        }
        Self.expectNtfyError(try Self.ask(phone + [bench.baseURL + "/v1/auth"]), status: 404, code: 40401, saying: "own paths")
        let account = try Self.ask(phone + [bench.baseURL + "/v1/account"])
        #expect(account.status == 200, "\(account.json)")
    }

    @Test(.enabled(if: Senders.curl != nil, "needs curl"))
    func m5_subscriptionsAreRefusedInNtfysWordsNeverA404() throws {
        let (bench, tokens, folder) = try Self.bench()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for word in ["ws", "json", "sse", "raw"] {
            let answer = try Self.ask(["-H", "Authorization: Bearer \(tokens["viewer"]!)", bench.baseURL + "/home/\(word)"])
            Self.expectNtfyError(answer, status: 501, code: 50100, saying: "relays none to subscribers")
        }
    }

    /// The shared checks on ntfy's routes (the token, its scope, the body's size, the path's
    /// methods, nookd's absence) and the routes' own refusals answer ntfy's body; Nook's own
    /// routes keep Nook's.
    @Test(.enabled(if: Senders.curl != nil, "needs curl"))
    func m5_everyErrorOnAnNtfyRouteIsNtfysBodyKeepingNooksWords() throws {
        let (bench, tokens, folder) = try Self.bench(extra: "max_body_bytes = 1024\n")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let phone = ["-H", "Authorization: Bearer \(tokens["phone"]!)"], boss = ["-H", "Authorization: Bearer \(tokens["boss"]!)"]
        let home = bench.baseURL + "/home"
        Self.expectNtfyError(try Self.ask(phone + ["-H", "Priority: 9", "-d", "x", home]), status: 400, code: 40007, saying: "invalid_field (priority)")
        Self.expectNtfyError(try Self.ask(["-H", "Authorization: Bearer nook_notAToken", "-d", "x", home]), status: 401, code: 40101,
                             saying: "not one nook-http knows")
        Self.expectNtfyError(try Self.ask(["-H", "Authorization: Bearer \(tokens["viewer"]!)", "-d", "x", home]), status: 403, code: 40301,
                             saying: "it needs the 'publish' scope")
        Self.expectNtfyError(try Self.ask(boss + ["-d", "x", bench.baseURL + "/healthz/x"]), status: 404, code: 40401, saying: "own paths")
        let get = try Self.ask(boss + [home])
        Self.expectNtfyError(get, status: 405, code: 40500, saying: "does not take GET")
        #expect(get.head.contains("Allow: POST, PUT"), "\(get.head)")
        Self.expectNtfyError(try Self.ask(boss + ["-d", String(repeating: "x", count: 2048), home]), status: 413, code: 41301,
                             saying: "more than 1024 bytes")
        // Nook's own routes keep Nook's body.
        let native = try Self.ask(boss + [bench.baseURL + "/api/v1/nothing-here"])
        #expect(native.status == 404 && native.json["error"]?["code"]?.text == "not_found", "\(native.json)")
        kill(bench.service.nookd.processIdentifier, SIGKILL)
        _ = bench.service.nookd.waitForExit()
        // nook-http may learn that nookd is gone as it calls (a 504: the call may have been read)
        // or before (a 503): either is ntfy's body.
        let gone = try Self.ask(boss + ["-d", "x", home])
        #expect([503, 504].contains(gone.status), "\(gone.json)")
        Self.expectNtfyError(gone, status: gone.status, code: gone.status * 100, saying: gone.status == 503 ? "nookd_unavailable" : "outcome_unknown")
    }

    /// The rate limit's 429 on an ntfy route, ntfy's code for it.
    @Test(.enabled(if: Senders.curl != nil, "needs curl"))
    func m5_theRateLimitOnAnNtfyRouteIsNtfys42901() throws {
        let (bench, tokens, folder) = try Self.bench(extra: "rate_limit_per_s = 0.001\nrate_limit_burst = 1\n")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let phone = ["-H", "Authorization: Bearer \(tokens["phone"]!)"]
        let first = try Self.ask(phone + ["-d", "first", bench.baseURL + "/home"])
        #expect(first.status == 200, "\(first.json)")
        Self.expectNtfyError(try Self.ask(phone + ["-d", "over", bench.baseURL + "/home"]), status: 429, code: 42901, saying: "rate_limited")
    }

    /// docs/ntfy-clients.md prints the mapping table as the code has it, row for row.
    @Test func m5_ntfyClientsMdPrintsNtfysErrorCodesAsTheTableHasThem() throws {
        let text = try String(contentsOfFile: Built.root + "/docs/ntfy-clients.md", encoding: .utf8)
        let section = DocumentedLists.markdownSection(text, heading: "ntfy's error body")
        let printed = section.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| Status") && !$0.hasPrefix("| ---") }.map {
            $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        }
        let rows = NtfyErrorBody.table.map { row in
            ["\(row.status)", row.nookCode.map { "`\($0)`" } ?? "any", row.field.map { "`\($0)`" } ?? "any", "\(row.ntfyCode)", row.words]
                .joined(separator: " ")
        }
        #expect(printed == rows, "ntfy-clients.md:\n\(printed.joined(separator: "\n"))\nthe table:\n\(rows.joined(separator: "\n"))")
    }
}
