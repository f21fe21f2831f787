import Foundation
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// H4: unknown tokens are bounded per client address (counted on the access check's own
/// clock, so time here is the test's), and no example of the documentation is a token anyone
/// could present.
@Suite struct TokenGuessingTests {
    static let token = "nook_right-token"
    static let tokens = [HTTPToken(name: "grafana", scopes: [.publish], digest: SHA256.hash(token.utf8))]

    func request(_ token: String?) -> HTTPRequest {
        HTTPRequest(method: "POST", path: "/x", headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }

    @Test func h4_unknownTokensFromOneAddressAre429AfterTheBurstWithoutHoldingUpOtherAddresses() throws {
        let access = HTTPAccess(tokens: Self.tokens, rateLimit: .init(perSecond: 0, burst: 1),
                                failureLimit: .init(burst: 3, every: .seconds(10)))
        func status(_ token: String?, from client: String, at seconds: Int) -> Int {
            switch access.caller(for: request(token), loopback: false, client: client, now: .seconds(seconds)) {
            case .success: 200
            case .failure(let error): error.status
            }
        }
        let first: [Int] = (1...3).map { status("guess-\($0)", from: "192.0.2.1", at: 0) }
        #expect(first == [401, 401, 401])
        guard case .failure(let refused) = access.caller(for: request("guess-4"), loopback: false, client: "192.0.2.1", now: .seconds(1)) else {
            Issue.record("a fourth unknown token was looked at"); return
        }
        #expect(refused.status == 429 && refused.code == "too_many_failures", "\(refused)")
        #expect(refused.headers.contains { $0.name == "Retry-After" && $0.value == "9" }, "\(refused.headers)")
        // The right token from that address is refused alike: a guess that is right must not
        // tell itself apart while the address is held back.
        #expect(status(Self.token, from: "192.0.2.1", at: 1) == 429)
        // No token is no guess: the challenge as ever.
        #expect(status(nil, from: "192.0.2.1", at: 1) == 401)
        // Other addresses: the right token is served, an unknown one has a budget of its own.
        #expect(status(Self.token, from: "192.0.2.2", at: 1) == 200)
        #expect(status("guess", from: "192.0.2.2", at: 1) == 401)
        // One try comes back each `every`.
        #expect(status("guess-5", from: "192.0.2.1", at: 10) == 401)
        #expect(status("guess-6", from: "192.0.2.1", at: 10) == 429)
        #expect(status(Self.token, from: "192.0.2.1", at: 20) == 200)
    }

    @Test func h4_theAddressGuessesAreCountedAgainstIsTheClientsAnIPv6OneByIts64() {
        func key(_ peer: String, _ headers: [(name: String, value: String)] = [], loopback: Bool = false) -> String {
            HTTPAccess.clientAddress(peer: peer, request: HTTPRequest(method: "GET", path: "/", headers: headers), loopback: loopback)
        }
        #expect(key("203.0.113.9:5555") == "203.0.113.9")
        #expect(key("203.0.113.9:5555") == key("203.0.113.9:40000"), "another connection of the same address")
        #expect(key("[2001:db8:1:2::5]:4000") == key("[2001:db8:1:2:aaaa:bbbb:cccc:1]:1"), "one /64")
        #expect(key("[2001:db8:1:2::5]:4000") != key("[2001:db8:1:3::5]:4000"))
        #expect(key("[::ffff:203.0.113.9]:1") == "203.0.113.9")
        // Behind the proxy on loopback: the address nginx appends; not believed from elsewhere.
        let forwarded = [(name: "X-Forwarded-For", value: "198.51.100.7, 203.0.113.5")]
        #expect(key("127.0.0.1:5000", forwarded, loopback: true) == "203.0.113.5")
        #expect(key("192.0.2.8:5000", forwarded) == "192.0.2.8")
        // Whatever a forwarded header holds, what is remembered of it is short.
        #expect(key("127.0.0.1:5000", [(name: "X-Forwarded-For", value: String(repeating: "a", count: 10_000))], loopback: true).count <= 64)
        // A proxy that adds a line of its own (HAProxy) adds it after the client's forged one:
        // the lines are one list, and its last entry is the proxy's.
        let twoLines = [(name: "X-Forwarded-For", value: "192.0.2.66"), (name: "x-forwarded-for", value: "203.0.113.5")]
        #expect(key("127.0.0.1:5000", twoLines, loopback: true) == "203.0.113.5")
        // A proxy that names the client in X-Real-IP only.
        #expect(key("127.0.0.1:5000", [(name: "X-Real-IP", value: "198.51.100.9")], loopback: true) == "198.51.100.9")
    }

    @Test func h4_aRetryAfterIsWholeSecondsFromOneToADayWhateverTheRate() {
        #expect(HTTPAccess.retryAfter(0.2) == 1)
        #expect(HTTPAccess.retryAfter(6.1) == 7)
        // http.rate_limit_per_s = 1e-19 is in the setting's range: its wait is past any Int.
        #expect(HTTPAccess.retryAfter(1 / 1e-19) == 86_400)
        #expect(HTTPAccess.retryAfter(.infinity) == 86_400)
    }

    @Test func h4_theAddressesRememberedForUnknownTokensAreBounded() {
        let access = HTTPAccess(tokens: Self.tokens, failureLimit: .init(burst: 3, every: .seconds(10), addresses: 50))
        for index in 0..<2000 {
            _ = access.caller(for: request("guess"), loopback: false, client: "10.0.\(index / 256).\(index % 256)", now: .seconds(index))
        }
        #expect(access.addressesWithFailures <= 50)
    }

    /// A token line in a document, a man page or an example file that anyone could copy: its
    /// hash is a real one, and the token behind it may be a word (`password`).
    @Test func h4_noTokenLineInTheDocsManPagesOrExampleFilesIsAUsableHash() throws {
        let root = Built.root
        var files = ["README.md"]
        for directory in ["docs", "docs/man", "Hardware"] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + directory)) ?? [] {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: root + "/\(directory)/\(name)", isDirectory: &isDirectory), !isDirectory.boolValue {
                    files.append("\(directory)/\(name)")
                }
            }
        }
        #expect(files.contains("docs/http.md") && files.contains("Hardware/http.toml"))
        for file in files {
            guard let text = try? String(contentsOfFile: root + "/" + file, encoding: .utf8) else { continue }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                guard let start = line.range(of: "sha256:") else { continue }
                let hex = line[start.upperBound...].prefix { $0.isHexDigit }
                #expect(hex.count != 64, "\(file) line \(number + 1) holds a usable token hash: \(line)")
            }
        }
    }
}

/// The same through the built nook-http: one client's unknown tokens end in 429 with
/// `Retry-After`, and another address's right token is served meanwhile. The wrong ones are
/// sent on one connection, many more than the burst, so the bound shows whatever the pace.
@Suite("H4 unknown tokens against the built nook-http", .serialized, .ownThreads)
struct TokenGuessingEndToEndTests {
    @Test func h4_manyUnknownTokensFromOneAddressEndIn429AndAnotherAddressIsServed() throws {
        let owner = "nook_owner-guessing-token"
        let tokens = NSTemporaryDirectory() + "nook-http-guessing-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try "owner admin sha256:\(sha256Hex(owner))\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        chmod(tokens, 0o600)
        defer { try? FileManager.default.removeItem(atPath: tokens) }
        let service = try HTTPService(config: "[http]\ntokens = \"\(tokens)\"\nrate_limit_per_s = 0\n")
        let url = service.url + "/api/v1/status"
        // One line an answer: its status and its Retry-After.
        let guesses = try runProgram("/usr/bin/curl", ["-sS", "--interface", "127.0.0.1", "-w", "%{http_code} %header{retry-after}\n",
                                                       "-H", "Authorization: Bearer nook_a-guess"] + (0..<40).flatMap { _ in ["-o", "/dev/null", url] })
        let answers = guesses.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(answers.count == 40, "\(guesses.output)")
        #expect(answers.prefix(10).allSatisfy { $0 == ["401"] }, "the burst is looked at: \(answers)")
        let held = answers.filter { $0.first == "429" }
        #expect(!held.isEmpty, "40 unknown tokens from one address were all looked at: \(answers)")
        #expect(held.allSatisfy { $0.count == 2 && (Int($0[1]) ?? 0) >= 1 }, "a 429 says when to come back: \(held)")
        let other = try runProgram("/usr/bin/curl", ["-sS", "--interface", "127.0.0.2", "-o", "/dev/null", "-w", "%{http_code}",
                                                     "-H", "Authorization: Bearer \(owner)", url])
        #expect(other.output == "200", "another address's right token: \(other.output)")
    }
}
