import Foundation
import NookHTTP
import NookProtocol
import Testing

/// Whether `body` throws an error whose text passes `check`.
func checkError(_ body: () throws -> Any, _ check: (String) -> Bool) -> Bool {
    do { _ = try body(); return false } catch { return check("\(error)") }
}

/// Tokens, scopes and rate limits (H4).
@Suite struct HTTPAccessTests {
    static let token = "nook_secret-token"
    static let tokens = [HTTPToken(name: "grafana", scopes: [.publish], digest: SHA256.hash(token.utf8)),
                         HTTPToken(name: "owner", scopes: [.admin], digest: SHA256.hash("owner-token".utf8))]

    func request(headers: [(name: String, value: String)] = [], query: [(name: String, value: String)] = []) -> HTTPRequest {
        HTTPRequest(method: "POST", path: "/x", query: query, headers: headers)
    }

    @Test func h4_withoutATokenFileOnlyLoopbackIsServedAsLocalWithEveryScope() throws {
        let access = HTTPAccess(tokens: nil)
        let caller = try access.caller(for: request(), loopback: true, now: .zero).get()
        #expect(caller.name == "local" && caller.scopes == Set(HTTPScope.allCases))
        guard case .failure(let error) = access.caller(for: request(), loopback: false, now: .zero) else { Issue.record("served"); return }
        #expect(error.status == 403)
    }

    /// Without tokens a browser on the board would carry any site's requests with every scope.
    @Test func h4_withoutATokenFileAPageOfAnotherSiteOrARebindingNameIsRefused() throws {
        let access = HTTPAccess(tokens: nil)
        for (name, value) in [("Host", "127.0.0.1:8722"), ("Host", "localhost"), ("Host", "[::1]:8722"),
                              ("Origin", "http://127.0.0.1:8722"), ("Origin", "http://localhost:8722")] {
            #expect((try? access.caller(for: request(headers: [(name, value)]), loopback: true, now: .zero).get())?.name == "local", "\(name): \(value)")
        }
        for (name, value) in [("Host", "rebind.evil.example:8722"), ("Host", "127.0.0.1.evil.example"), ("Host", "[::2]"),
                              ("Origin", "http://evil.example"), ("Origin", "https://127.0.0.1.evil.example")] {
            guard case .failure(let error) = access.caller(for: request(headers: [(name, value)]), loopback: true, now: .zero) else {
                Issue.record("\(name): \(value) was served"); continue
            }
            #expect(error.status == 403 && error.field == name, "\(name): \(value)")
        }
    }

    /// A browser sends the Basic credentials it saved with another site's simple request: with
    /// tokens, what changes something is refused from another site's page whatever it presents;
    /// a read is not, and neither is the page behind a proxy that names the address asked for.
    @Test func h4_withTokensAnotherSitesPageChangesNothingWhateverItPresents() throws {
        let access = HTTPAccess(tokens: Self.tokens, rateLimit: .init(perSecond: 0, burst: 1))
        let basic = "Basic " + Base64.encode(Array(":owner-token".utf8))
        for headers in [[("Origin", "http://evil.example")], [("Origin", "null")], [("Origin", "http://board.lan:8080")],
                        [("Sec-Fetch-Site", "cross-site")], [("Sec-Fetch-Site", "same-site")],
                        [("Origin", "https://evil.example"), ("X-Forwarded-Host", "board.lan")]] {
            for credentials in [("Authorization", basic), ("Authorization", "Bearer owner-token")] {
                let asked = request(headers: [("Host", "board.lan")] + headers + [credentials])
                guard case .failure(let error) = access.caller(for: asked, loopback: false, now: .zero) else {
                    Issue.record("\(headers) with \(credentials.1) was served"); continue
                }
                #expect(error.status == 403 && error.field == headers[0].0 && error.message.contains("another site"), "\(error)")
            }
        }
        for headers in [[], [("Origin", "http://board.lan")], [("Origin", "http://board.lan"), ("Sec-Fetch-Site", "same-origin")],
                        [("Origin", "https://board.lan:8443"), ("X-Forwarded-Host", "board.lan:8443")]] {
            let asked = request(headers: [("Host", "board.lan")] + headers + [("Authorization", basic)])
            #expect((try? access.caller(for: asked, loopback: false, now: .zero).get())?.name == "owner", "\(headers)")
        }
        let read = HTTPRequest(method: "GET", path: "/api/v1/status", headers: [("Host", "board.lan"), ("Origin", "http://evil.example"), ("Authorization", basic)])
        #expect((try? access.caller(for: read, loopback: false, now: .zero).get())?.name == "owner")
    }

    /// A page of any site makes an opaque origin with a sandboxed frame or a redirect.
    @Test func h4_withoutATokenFileAnOpaqueOriginIsRefusedAsAnotherSites() throws {
        let access = HTTPAccess(tokens: nil)
        guard case .failure(let error) = access.caller(for: request(headers: [("Host", "127.0.0.1:8722"), ("Origin", "null")]), loopback: true, now: .zero) else {
            Issue.record("Origin: null was served as local with every scope"); return
        }
        #expect(error.status == 403 && error.field == "Origin", "\(error)")
    }

    /// Another web server on the board (another port) is another site, whatever its page runs.
    @Test func h4_withoutATokenFileAPageOfAnotherLoopbackServerIsRefused() throws {
        let access = HTTPAccess(tokens: nil)
        let own = request(headers: [("Host", "127.0.0.1:8722"), ("Origin", "http://127.0.0.1:8722")])
        #expect((try? access.caller(for: own, loopback: true, now: .zero).get())?.name == "local", "nook-http's own page")
        for origin in ["http://127.0.0.1:8123", "http://localhost:8722"] {
            let other = request(headers: [("Host", "127.0.0.1:8722"), ("Origin", origin)])
            guard case .failure(let error) = access.caller(for: other, loopback: true, now: .zero) else {
                Issue.record("a page of \(origin) was served as local with every scope"); continue
            }
            #expect(error.status == 403 && error.field == "Origin", "\(error)")
        }
    }

    @Test func h4_everyWayASenderPresentsATokenNamesTheSameCaller() throws {
        let access = HTTPAccess(tokens: Self.tokens, rateLimit: .init(perSecond: 0, burst: 1))
        let basic = Base64.encode(Array(":\(Self.token)".utf8))
        let ntfyAuth = Base64.encode(Array("Bearer \(Self.token)".utf8)).replacingOccurrences(of: "=", with: "")
        let forms = [
            request(headers: [("Authorization", "Bearer \(Self.token)")]),
            request(headers: [("authorization", "basic \(basic)")]),
            request(headers: [("X-Gotify-Key", Self.token)]),
            request(query: [("token", Self.token)]),
            request(query: [("auth", ntfyAuth)]),
        ]
        for form in forms {
            let caller = try access.caller(for: form, loopback: false, now: .zero).get()
            #expect(caller == HTTPCaller(name: "grafana", scopes: [.publish]))
        }
    }

    /// Apprise's `ntfy://TOKEN@host/topic` sends Basic `TOKEN:None` (Python's None as the
    /// password); a browser's prompt, `TOKEN:` with the password left empty. The user is then the
    /// token; with any other password the password is.
    @Test func h4_basicWithTheTokenAsUserAndAnEmptyOrNonePasswordIsThatToken() throws {
        let access = HTTPAccess(tokens: Self.tokens, rateLimit: .init(perSecond: 0, burst: 1))
        for pair in ["\(Self.token):None", "\(Self.token):", ":\(Self.token)", "anyone:\(Self.token)"] {
            let asked = request(headers: [("Authorization", "Basic " + Base64.encode(Array(pair.utf8)))])
            #expect((try? access.caller(for: asked, loopback: false, now: .zero).get())?.name == "grafana", "\(pair)")
        }
        for pair in ["\(Self.token):wrong", "None:None", "\(Self.token):none "] {
            let asked = request(headers: [("Authorization", "Basic " + Base64.encode(Array(pair.utf8)))])
            guard case .failure(let error) = access.caller(for: asked, loopback: false, client: pair, now: .zero) else { Issue.record("\(pair) was served"); continue }
            #expect(error.status == 401, "\(pair): \(error)")
        }
    }

    @Test func h4_aMissingOrWrongTokenIs401WithAChallengeEvenFromLoopback() {
        let access = HTTPAccess(tokens: Self.tokens)
        for form in [request(), request(headers: [("Authorization", "Bearer wrong")]), request(headers: [("Authorization", "Digest x")]),
                     request(query: [("auth", "!!!")])] {
            guard case .failure(let error) = access.caller(for: form, loopback: true, now: .zero) else { Issue.record("served \(form)"); continue }
            #expect(error.status == 401)
            #expect(error.headers.contains { $0.name == "WWW-Authenticate" })
        }
    }

    @Test func h4_adminMayDoAllAndOtherScopesOnlyThemselves() {
        let publisher = HTTPCaller(name: "p", scopes: [.publish])
        #expect(HTTPAccess.allows(publisher, .publish) && !HTTPAccess.allows(publisher, .read) && !HTTPAccess.allows(publisher, .admin))
        #expect(HTTPScope.allCases.allSatisfy { HTTPAccess.allows(HTTPCaller(name: "a", scopes: [.admin]), $0) })
    }

    @Test func h4_eachTokenHasItsOwnBucketAnd429SaysWhenToComeBack() throws {
        let access = HTTPAccess(tokens: Self.tokens, rateLimit: .init(perSecond: 2, burst: 3))
        let grafana = request(headers: [("Authorization", "Bearer \(Self.token)")])
        let owner = request(headers: [("Authorization", "Bearer owner-token")])
        for _ in 0..<3 { #expect((try? access.caller(for: grafana, loopback: true, now: .zero).get()) != nil) }
        guard case .failure(let error) = access.caller(for: grafana, loopback: true, now: .zero) else { Issue.record("not limited"); return }
        #expect(error.status == 429 && error.headers.contains { $0.name == "Retry-After" && $0.value == "1" })
        // Another token is not held up; the first may go again once its bucket refilled.
        #expect((try? access.caller(for: owner, loopback: true, now: .zero).get()) != nil)
        #expect((try? access.caller(for: grafana, loopback: true, now: .milliseconds(600)).get()) != nil)
    }

    @Test func h4_theTokenFileIsReadAsNameScopesAndHashAndRefusedWhenOthersCanReadIt() throws {
        let directory = NSTemporaryDirectory() + "nook-http-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/tokens"
        let line = HTTPTokenFile.line(name: "grafana", scopes: [.publish, .read], token: Self.token)
        #expect(line.hasPrefix("grafana read,publish sha256:"))
        try "# senders\n\(line)\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        #expect(checkError({ try HTTPTokenFile.load(path: path) }) { $0.contains(path) && $0.contains("mode 644") })
        chmod(path, 0o600)
        let tokens = try HTTPTokenFile.load(path: path)
        #expect(tokens == [HTTPToken(name: "grafana", scopes: [.publish, .read], digest: SHA256.hash(Self.token.utf8))])
        // A FIFO given as the path is an error at once, not a read that never ends.
        let fifo = directory + "/fifo"
        mkfifo(fifo, 0o600)
        #expect(checkError({ try HTTPTokenFile.load(path: fifo) }) { $0.contains("a FIFO") })
        #expect(checkError({ try HTTPTokenFile.load(path: "/dev/zero") }) { $0.contains("character device") })
        #expect(checkError({ try HTTPTokenFile.parse("grafana publish sha256:abcd\n", path: "t") }) { $0.contains("t line 1") })
        #expect(checkError({ try HTTPTokenFile.parse("grafana write sha256:\(String(repeating: "a", count: 64))\n", path: "t") }) { $0.contains("unknown scope 'write'") })
    }

    /// Another user who owns the file may add a token with every scope; a mode is refused for
    /// what it lets others do, said as it is.
    @Test func h4_aTokenFileOwnedByAnotherUserOrThatOthersCanWriteIsRefusedSayingWhy() throws {
        let directory = NSTemporaryDirectory() + "nook-http-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/tokens"
        try "\(HTTPTokenFile.line(name: "grafana", scopes: [.publish], token: Self.token))\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        // As if nook-http ran as another user than the file's owner (uid 65534, nobody).
        let mine = geteuid()
        if mine != 0 {
            #expect(checkError({ try HTTPTokenFile.load(path: path, ownerUID: 65534) }) { $0.contains(path) && $0.contains("is owned by") && $0.contains("uid \(mine)") && $0.contains("uid 65534") })
        } else {
            // Root's file is accepted by any user (root may do all already); another user's is not.
            #expect(try HTTPTokenFile.load(path: path, ownerUID: 65534).count == 1)
            chown(path, 65534, 65534)
            #expect(checkError({ try HTTPTokenFile.load(path: path) }) { $0.contains(path) && $0.contains("is owned by") && $0.contains("uid 65534") && $0.contains("chown root") })
            #expect(try HTTPTokenFile.load(path: path, ownerUID: 65534).count == 1)
            chown(path, 0, 0)
        }
        for (mode, says) in [(0o622, "its group and others can write it, so they could add a token of their own"),
                             (0o640, "its group can read it, so they could learn"), (0o604, "others can read it"),
                             (0o660, "its group can read and write it")] {
            chmod(path, mode_t(mode))
            #expect(checkError({ try HTTPTokenFile.load(path: path) }) { $0.contains("mode \(String(mode, radix: 8)), so \(says)") }, "\(String(mode, radix: 8))")
        }
    }

    /// One token on two lines: the first would win, the second name never be any request's.
    @Test func h4_twoLinesWithTheSameTokenHashAreRefusedNamingBoth() {
        let hash = String(repeating: "ab", count: 32)
        let text = "# senders\ngrafana publish sha256:\(hash)\nphone read sha256:\(String(repeating: "cd", count: 32))\nowner admin sha256:\(hash.uppercased())\n"
        #expect(checkError({ try HTTPTokenFile.parse(text, path: "t") }) { $0.contains("t line 4") && $0.contains("line 2") && $0.contains("'grafana'") })
    }
}
