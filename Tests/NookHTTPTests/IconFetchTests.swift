import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// A local HTTPS icon source for the icon fetcher's tests (M3): Python's `http.server` behind
/// TLS with a certificate for `localhost` made here, serving `/icons/ID` from a folder, every
/// request it answered written to its log. Stopped (SIGKILL) when released.
final class IconSourceServer {
    let folder: String
    let port: Int
    let process = Process()
    /// The certificate, the only one the fetcher trusts when `SSL_CERT_FILE` names it.
    var certificate: String { folder + "/source.crt" }
    var requestLog: String { folder + "/requests.log" }

    static let ready = LaMetricBench.openssl != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")

    /// 1x1, one opaque pixel.
    static let png = [UInt8](Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!)

    init(icons: [String: [UInt8]]) throws {
        folder = NSTemporaryDirectory() + "nook-icon-source-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder + "/icons", withIntermediateDirectories: true)
        for (name, bytes) in icons { try Data(bytes).write(to: URL(fileURLWithPath: folder + "/icons/" + name)) }
        let openssl = try #require(LaMetricBench.openssl)
        let (certificate, requestLog) = (folder + "/source.crt", folder + "/requests.log")
        let made = try Senders.run(openssl, [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", folder + "/source.key", "-out", certificate,
        ])
        guard made.status == 0 else { throw TestFailure("openssl req: \(made.error)") }
        let script = """
            import http.server, ssl, sys, os
            folder = sys.argv[1]
            class Icons(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    with open(folder + "/requests.log", "a") as log: log.write(self.path + "\\n")
                    path = folder + "/icons/" + os.path.basename(self.path)
                    if not os.path.isfile(path):
                        self.send_error(404, "Not Found")
                        return
                    body = open(path, "rb").read()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                def log_message(self, *args): pass
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Icons)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(folder + "/source.crt", folder + "/source.key")
            server.socket = context.wrap_socket(server.socket, server_side=True)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        try script.write(toFile: folder + "/serve.py", atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: requestLog, contents: nil)
        let output = Pipe.closedOnExec()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [folder + "/serve.py", folder]
        process.standardOutput = output
        try process.runAlone()
        let line = output.firstLine(until: Date().addingTimeInterval(TestBounds.seconds(30)))
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw TestFailure("the icon source did not start: '\(line)'") }
        self.port = port
    }

    /// The paths asked of the source, in order.
    var requests: [String] { ((try? String(contentsOfFile: requestLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitForExit() }
        try? FileManager.default.removeItem(atPath: folder)
    }
}

/// nook-http's icon fetcher (M3): a LaMetric id nookd finds in no icon directory is fetched
/// over HTTPS from `icons.source` into the cache, off the request's path, and drawn for what is
/// sent after; what fails is said in the log, and the cache keeps its bounds. The real nookd and
/// nook-http against a local HTTPS server; the cards are read from nookd.
@Suite(.serialized, .ownThreads, .enabled(if: Senders.curl != nil && IconSourceServer.ready, "needs curl, openssl and python3"))
struct IconFetchTests {
    static let animated = TestGIF.encode(width: 8, height: 8, palette: [0xFF0000, 0x00FF00], frames: [
        .init(indices: [UInt8](repeating: 0, count: 64), width: 8, height: 8),
        .init(indices: [UInt8](repeating: 1, count: 64), width: 8, height: 8),
    ])

    static func service(_ source: IconSourceServer, cache: String, trusting: Bool = true, maxCount: Int = 100) throws -> HTTPService {
        // A fetch is never cut off by a timeout here: what a test sees follows from what it did, however loaded the machine.
        try HTTPService(config: "[icons]\nsource = \"https://localhost:\(source.port)/icons/{id}\"\ndirectory = \"\(cache)\"\nmax_count = \(maxCount)\n"
                            + "timeout_s = 600\n",
                        nookdConfig: "[daemon]\nicon_directories = [\"\(cache)\"]\n",
                        environment: trusting ? ["SSL_CERT_FILE": source.certificate] : ["SSL_CERT_FILE": source.folder + "/none.pem", "SSL_CERT_DIR": source.folder])
    }

    static func send(_ service: HTTPService, title: String, icon: String) throws -> (status: Int, warnings: String) {
        // Bounded: an answer that waited for a fetch from a stopped source would never come.
        let created = try SaidNotDroppedTests.curl(["-m", "\(Int(TestBounds.seconds(60)))", "-d", #"{"title": "\#(title)", "icon": "\#(icon)", "blocker": true}"#,
                                                    service.url + "/api/v1/activities"])
        let warnings = SaidNotDroppedTests.json(created.body)["warnings"]?.items.compactMap(\.text).joined(separator: "; ") ?? ""
        return (created.status, warnings)
    }

    @Test func m3_anIDFoundNowhereIsFetchedOffTheRequestPathAndDrawnForTheCardsAfter() throws {
        let source = try IconSourceServer(icons: ["1234": IconSourceServer.png, "5678": Self.animated, "999": IconSourceServer.png,
                                                  "888": Array("<html>no icon here</html>".utf8), "777": [UInt8](repeating: 0x47, count: 100_000),
                                                  "555": Array(IconSourceServer.png.prefix(40))])
        let cache = source.folder + "/cache"
        let service = try Self.service(source, cache: cache, maxCount: 2)
        #expect(service.waitForLog("following nookd's wanted icons"), "\(service.logs)")
        // The first card shows the generic glyph and says the fetcher was asked.
        let first = try Self.send(service, title: "Door", icon: "1234")
        #expect(first.status == 201 && first.warnings.contains("unknown icon '1234'")
                && first.warnings.contains("the icon fetcher was asked for 1234"), "\(first)")
        #expect(service.waitForLog("fetched icon 1234 from https://localhost:\(source.port)/icons/1234: 1x1 PNG"), "\(service.logs)")
        let second = try Self.send(service, title: "Door again", icon: "1234")
        #expect(second.status == 201 && second.warnings.isEmpty, "\(second)")
        // An animated id with its letter: the file is named by its digits.
        _ = try Self.send(service, title: "Washer", icon: "a5678")
        #expect(service.waitForLog("fetched icon 5678 from https://localhost:\(source.port)/icons/5678: 8x8 GIF, 2 frames"), "\(service.logs)")
        _ = try Self.send(service, title: "Washer done", icon: "a5678")
        var cards = try SaidNotDroppedTests.cards(service)
        #expect(cards.first { $0.title == "Door again" }?.systemImage == cache + "/1234.png", "\(cards)")
        #expect(cards.first { $0.title == "Washer done" }?.systemImage == cache + "/5678.gif", "\(cards)")
        #expect(cards.first { $0.title == "Door" }?.systemImage == "1234", "the card sent before stays as it was drawn")
        // What a source answers that is no icon is said, once: a second card asks nobody.
        for (id, said) in [("404", "failed: the server answered 404"), ("888", "is neither a PNG nor a GIF"),
                           ("777", "failed: the answer is 100000 bytes; an icon may have at most 65536"),
                           // Its header is right: written, it would have nookd refuse every card with the id.
                           ("555", "is a PNG that cannot be drawn: it ends inside a chunk")] {
            _ = try Self.send(service, title: "Bad \(id)", icon: id)
            _ = try Self.send(service, title: "Bad \(id) again", icon: id)
            #expect(service.waitForLog("icon \(id) from https://localhost:\(source.port)/icons/\(id) \(said)"), "\(id): \(service.logs)")
        }
        // The bounds: a third icon in a cache of two removes the one fetched first.
        _ = try Self.send(service, title: "Third", icon: "999")
        #expect(service.waitForLog("removed 1234.png from \(cache): over icons.max_count 2"), "\(service.logs)")
        let files = try FileManager.default.contentsOfDirectory(atPath: cache).sorted()
        #expect(files == ["5678.gif", "999.png"], "\(files)")
        #expect(source.requests == ["/icons/1234", "/icons/5678", "/icons/404", "/icons/888", "/icons/777", "/icons/555", "/icons/999"], "\(source.requests)")
        // nookd reads what nook-http wrote (another user on a board: the files are readable by all).
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: cache + "/999.png")[.posixPermissions] as? Int)
        #expect(mode == 0o644, "\(String(mode, radix: 8))")
        cards = try SaidNotDroppedTests.cards(service)
        #expect(cards.first { $0.title == "Third" }?.systemImage == "999")
    }

    /// A source that stops answering holds the fetcher, never a sender: cards are answered while
    /// the source is stopped and the first fetch is still under way (no outcome logged: it cannot
    /// end before the source answers), and the fetches go on when it answers again.
    @Test func m3_aStoppedSourceHoldsNoRequest() throws {
        let source = try IconSourceServer(icons: ["4321": IconSourceServer.png, "4322": IconSourceServer.png])
        let service = try Self.service(source, cache: source.folder + "/cache")
        #expect(service.waitForLog("following nookd's wanted icons"), "\(service.logs)")
        #expect(ProcessStop.stop(source.process.processIdentifier))
        defer { kill(source.process.processIdentifier, SIGCONT) }
        for (title, icon) in [("One", "4321"), ("Two", "4322"), ("Three", "4321")] {
            let sent = try Self.send(service, title: title, icon: icon)
            #expect(sent.status == 201 && sent.warnings.contains("unknown icon '\(icon)'"), "\(sent)")
        }
        #expect(!service.logText.contains("icon 4321 from"), "the first fetch ended while its source was stopped: \(service.logs)")
        kill(source.process.processIdentifier, SIGCONT)
        #expect(service.waitForLog("fetched icon 4322 from"), "\(service.logs)")
        #expect(service.logText.contains("fetched icon 4321 from"), "\(service.logs)")
    }

    /// A source whose certificate is not trusted is refused, and the log says why.
    @Test func m3_aSourceWhoseCertificateIsNotTrustedIsRefusedAndSaid() throws {
        let source = try IconSourceServer(icons: ["1111": IconSourceServer.png])
        let cache = source.folder + "/cache"
        let service = try Self.service(source, cache: cache, trusting: false)
        #expect(service.waitForLog("following nookd's wanted icons"), "\(service.logs)")
        _ = try Self.send(service, title: "Untrusted", icon: "1111")
        #expect(service.waitForLog("icon 1111 from https://localhost:\(source.port)/icons/1111 failed: 'SSL_connect' failed for localhost: "
                                   + "the certificate was refused: self-signed certificate"), "\(service.logs)")
        #expect(!FileManager.default.fileExists(atPath: cache + "/1111.png"))
    }
}
