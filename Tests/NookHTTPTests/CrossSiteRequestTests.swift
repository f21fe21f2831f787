import Foundation
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// H4 with V2: a browser keeps the Basic credentials it was asked for (`WWW-Authenticate:
/// Basic`) and sends them with any site's simple request. A request that changes something is
/// refused when its `Origin` (or, without one, `Sec-Fetch-Site`) says another site made it,
/// whatever it presents; nook-http's own page and clients that are no browser are served.
/// A real nook-http with a token file and a real nookd, with curl.
@Suite("H4 requests of another site's page with saved credentials", .serialized, .ownThreads)
struct CrossSiteRequestTests {
    let owner = "nook_owner-cross-site-token"

    func service() throws -> HTTPService {
        let tokens = NSTemporaryDirectory() + "nook-http-cross-site-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try "owner admin sha256:\(sha256Hex(owner))\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        chmod(tokens, 0o600)
        let service = try HTTPService(config: "[http]\ntokens = \"\(tokens)\"\nrate_limit_per_s = 0\n")
        try? FileManager.default.removeItem(atPath: tokens)
        return service
    }

    /// curl with the owner's token as Basic's password, as a browser sends what it saved.
    func post(_ url: String, _ headers: [String], body: String = "x", method: String = "POST") throws -> (status: Int, body: String) {
        var arguments = ["-sS", "-o", "-", "-w", "\n%{http_code}", "-X", method, "-u", ":\(owner)", "-H", "Content-Type: text/plain", "--data-binary", body]
        for header in headers { arguments += ["-H", header] }
        let result = try runProgram("/usr/bin/curl", arguments + [url])
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// Every card nookd was given: those it holds and those that ended (a loaded machine may
    /// have let a card run its course before it is looked for).
    func titles(_ service: HTTPService) throws -> [String] {
        let nookd = try NookClient(path: service.socket)
        let list = try nookd.request(Request(id: .number(1), operation: .list(module: nil)))
        let held = (list["modules"]?.items ?? []).flatMap { module in (module["current"].map { [$0] } ?? []) + (module["pending"]?.items ?? []) }
        let ended = try nookd.request(Request(id: .number(2), operation: .history(HistoryQuery())))["entries"]?.items.compactMap { $0["activity"] } ?? []
        return (held + ended).compactMap { $0["subtitle"]?.text ?? $0["title"]?.text }
    }

    @Test func h4_v2_anotherSitesPageCannotChangeAnythingWithTheBrowsersSavedBasicCredentials() throws {
        let service = try service()
        let url = service.url
        // curl sends no Origin: a sender that is no browser is served as before.
        #expect(try post(url + "/home", [], body: "from curl").status == 200)
        #expect(try titles(service).contains("from curl"))
        for (headers, field) in [(["Origin: https://evil.example"], "Origin"), (["Origin: null"], "Origin"),
                                 (["Origin: http://127.0.0.1:1"], "Origin"),
                                 (["Sec-Fetch-Site: cross-site"], "Sec-Fetch-Site"), (["Sec-Fetch-Site: same-site"], "Sec-Fetch-Site")] {
            for path in ["/home", "/api/v1/suspend", "/api/v1/resume", "/api/v1/activities/some-card/dismiss"] {
                let answer = try post(url + path, headers, body: "from another site")
                #expect(answer.status == 403, "\(headers) \(path): \(answer)")
                let error = try? JSONValue.parse(Array(answer.body.utf8))
                #expect(error?.saidError?.field == field && error?.saidError?.message.contains("another site") == true,
                        "\(headers) \(path): \(answer.body)")
            }
        }
        #expect(try !titles(service).contains("from another site"), "a card of another site's page reached nookd")
        // The answer says nothing of the token, and asks for no credentials.
        let unknown = try runProgram("/usr/bin/curl", ["-sS", "-i", "-X", "POST", "-H", "Origin: https://evil.example", "-d", "x", url + "/home"])
        #expect(unknown.output.statusCodes == [403] && !unknown.output.contains("WWW-Authenticate"), "\(unknown.output)")
        // nook-http's own page (its origin is the address asked for) is served.
        #expect(try post(url + "/home", ["Origin: \(url)"], body: "from the page").status == 200)
        #expect(try post(url + "/home", ["Origin: \(url)", "Sec-Fetch-Site: same-origin"], body: "from the page again").status == 200)
        // Reading is no change: another site's page may still show the glass in an <img>.
        let read = try runProgram("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-u", ":\(owner)",
                                                    "-H", "Origin: https://evil.example", url + "/api/v1/status"])
        #expect(read.output == "200", "\(read)")
        let shown = try titles(service)
        #expect(shown.contains("from the page") && shown.contains("from the page again") && shown.contains("from curl"), "\(shown)")
    }
}
