import Foundation
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// A nook-http serving LaMetric's local API over its own TLS listener (M4): the certificate is
/// made here as the package makes it at install, the tokens as `nook-http hash-token` makes them.
struct LaMetricBench {
    let bench: SenderBench
    /// A token with the read and publish scopes, LaMetric's API key; a read token.
    let key: String
    let read: String
    let folder: String
    /// `HOST:PORT` of the TLS listener.
    let tlsAddress: String

    static let openssl = ["/usr/bin/openssl", "/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// - Parameter listen: the TLS listener's address: `127.0.0.1:0` (the kernel's port) for
    ///   clients that take a port, `127.A.B.C:4343` for LaMetric's, which call port 4343 only.
    init(listen: String, nookdConfig: String? = nil) throws {
        folder = NSTemporaryDirectory() + "nook-lametric-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let openssl = try #require(Self.openssl)
        let made = try Senders.run(openssl, ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                                             "-subj", "/CN=nook", "-keyout", folder + "/nook-http.key", "-out", folder + "/nook-http.crt"])
        guard made.status == 0 else { throw TestFailure("openssl req: \(made.error)") }
        var lines = "", tokens: [String] = []
        for (who, scopes) in [("lametric", "read,publish"), ("viewer", "read")] {
            let hashed = try Senders.run(Built.directory + "/nook-http", ["hash-token", who, scopes])
            lines += hashed.output
            tokens.append(try #require(hashed.error.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }))
        }
        try lines.write(toFile: folder + "/http.tokens", atomically: true, encoding: .utf8)
        chmod(folder + "/http.tokens", 0o600)
        bench = try SenderBench(config: "[http]\ntokens = \"\(folder)/http.tokens\"\n[lametric]\nlisten = \"\(listen)\"\n"
                                + "certificate = \"\(folder)/nook-http.crt\"\nkey = \"\(folder)/nook-http.key\"\nname = \"Nook test\"\n", nookdConfig: nookdConfig)
        (key, read) = (tokens[0], tokens[1])
        tlsAddress = try #require(bench.service.tlsAddress, "nook-http names its TLS listener: \(bench.service.logText)")
    }

    /// On port 4343 of a loopback address of its own (127.A.B.C): another test's or program's
    /// 4343 is on another address. A start that finds its address taken tries another.
    static func onPort4343(nookdConfig: String? = nil) throws -> LaMetricBench {
        var lastError: (any Error)?
        for _ in 0..<6 {
            let host = "127.\(UInt8.random(in: 1...254)).\(UInt8.random(in: 1...254)).\(UInt8.random(in: 1...254))"
            do { return try LaMetricBench(listen: host + ":4343", nookdConfig: nookdConfig) } catch { lastError = error }
        }
        throw lastError ?? TestFailure("no loopback address had port 4343 free")
    }

    /// curl against the TLS listener: `-k`, the certificate is self-signed.
    func curl(_ arguments: [String], key: String? = nil) throws -> (status: Int32, output: String, error: String) {
        let curl = try #require(Senders.curl)
        return try Senders.run(curl, ["-sS", "-k", "-u", "dev:\(key ?? self.key)", "-w", "\n%{http_code}"] + arguments)
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }
}

/// nook-http's own TLS (M4): the LaMetric listener is served by the same loop as the plain one,
/// with the same table, tokens and bounds.
@Suite(.serialized, .ownThreads) struct LaMetricTLSTests {
    static let ready = Senders.curl != nil && LaMetricBench.openssl != nil

    @Test(.enabled(if: ready, "needs curl and openssl"))
    func m4_theTLSListenerAnswersLaMetricsDeviceOverTLSAndKeepsTheConnection() throws {
        let lametric = try LaMetricBench(listen: "127.0.0.1:0")
        defer { lametric.remove() }
        let url = "https://\(lametric.tlsAddress)/api/v2/device"
        // Two requests on one connection: the session carries on after the first answer.
        let result = try lametric.curl(["-v", url, url])
        let parts = result.output.split(separator: "\n")
        #expect(result.status == 0 && parts.count == 3 && parts.last == "200", "\(result.output) \(result.error)")
        #expect(result.error.contains("Re-using existing connection"), "\(result.error)")
        let device = try JSONValue.parse(Array(parts[0].utf8))
        #expect(device["model"]?.text == "LM 37X8" && device["name"]?.text == "Nook test", "\(parts[0])")
        #expect(device["wifi"]?["ipv4"]?.text == "127.0.0.1" && device["display"]?["brightness"]?.numberValue != nil, "\(parts[0])")
        // Plain HTTP on the TLS port is no request: the connection ends, the log says why.
        let plain = try Senders.run(try #require(Senders.curl), ["-sS", "--max-time", "20", "http://\(lametric.tlsAddress)/api/v2/device"])
        #expect(plain.status != 0)
        #expect(lametric.bench.service.waitForLog("TLS: 'SSL_read_ex' failed"), "\(lametric.bench.service.logText.suffix(2000))")
    }

    /// A body and an answer of several TLS records each (at most 16 KiB a record): what OpenSSL has
    /// read past one record, which no poll announces, is read too, and a long answer is written
    /// whole across the socket's turns.
    @Test(.enabled(if: ready, "needs curl and openssl"))
    func m4_aBodyAndAnAnswerOfSeveralTLSRecordsCrossTheListenerWhole() throws {
        let lametric = try LaMetricBench(listen: "127.0.0.1:0")
        defer { lametric.remove() }
        let body = lametric.folder + "/body"
        try String(repeating: "0123456789abcdef", count: 3900).write(toFile: body, atomically: true, encoding: .utf8)
        let posted = try lametric.curl(["--data-binary", "@" + body, "https://\(lametric.tlsAddress)/tls-topic"])
        #expect(posted.output.hasSuffix("\n200") && posted.output.contains(#""event":"message""#), "\(posted.output.prefix(400)) \(posted.error)")
        let file = lametric.folder + "/page.js"
        let fetched = try lametric.curl(["-o", file, "https://\(lametric.tlsAddress)/page/page.js"])
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let expected = try #require(PageAssets.all.first { $0.path == "/page/page.js" }?.bytes)
        #expect(fetched.status == 0 && fetched.output.hasSuffix("\n200"), "\(fetched.output) \(fetched.error)")
        #expect(expected.count > 16384 && bytes == expected, "\(bytes.count) bytes of \(expected.count)")
    }

    @Test(.enabled(if: ready, "needs curl and openssl"))
    func m4_aWrongKeyIsAnswered401InLaMetricsErrorBody() throws {
        let lametric = try LaMetricBench(listen: "127.0.0.1:0")
        defer { lametric.remove() }
        let result = try lametric.curl(["https://\(lametric.tlsAddress)/api/v2/device"], key: "nook_notAToken")
        let parts = result.output.split(separator: "\n")
        #expect(parts.last == "401", "\(result.output)")
        let body = try JSONValue.parse(Array(parts[0].utf8))
        #expect(body["errors"]?.items.first?["message"]?.text == "the token is not one nook-http knows", "\(parts[0])")
        // A read token may look but not notify: 403, LaMetric's body naming the scope.
        let posted = try lametric.curl(["-H", "Content-Type: application/json", "-d", #"{"model":{"frames":[{"text":"x"}]}}"#,
                                        "https://\(lametric.tlsAddress)/api/v2/device/notifications"], key: lametric.read)
        #expect(posted.output.hasSuffix("\n403") && posted.output.contains("'publish' scope") && posted.output.hasPrefix(#"{"errors":"#),
                "\(posted.output)")
    }

    @Test(.enabled(if: LaMetricBench.openssl != nil, "needs openssl"))
    func m4_aCertificateThatCannotBeReadStopsTheStartNamingTheKeyAndTheFile() throws {
        let folder = NSTemporaryDirectory() + "nook-lametric-bad-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cases = [
            ("certificate = \"\(folder)/missing.crt\"", "lametric.certificate = \"\(folder)/missing.crt\" cannot be read: 'open' failed: (2) No such file or directory"),
            ("certificate = \"\(folder)/http.toml\"\nkey = \"\(folder)/http.toml\"", "'SSL_CTX_use_certificate_chain_file' failed for \(folder)/http.toml"),
        ]
        for (lines, said) in cases {
            try "[lametric]\nlisten = \"127.0.0.1:0\"\n\(lines)\n".write(toFile: folder + "/http.toml", atomically: true, encoding: .utf8)
            let run = try Senders.run(Built.directory + "/nook-http", ["--config", folder + "/http.toml", "--listen", "127.0.0.1:0",
                                                                       "--socket", folder + "/nookd.sock"])
            #expect(run.status == 78 && run.error.contains(said), "\(run.status) \(run.error)")
        }
    }
}
