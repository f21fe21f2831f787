import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// The live view through the built nook-http and a real nookd on the mock display, whose home
/// is blank so that nothing changes the glass but the test: what ends a stream or a wait for
/// the glass (SIGTERM, a token withdrawn).
@Suite("V1 and H4 the live view through nook-http", .serialized, .ownThreads)
struct LiveViewServerTests {
    static let blankHome = "[home]\ncontent = \"blank\"\n"

    /// The generations of the stream's parts in `text`, in order.
    static func generations(_ text: String) -> [Int] {
        text.components(separatedBy: "X-Nook-Frame: ").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
    }

    static func glass(_ service: HTTPService) throws -> FrameAnswer {
        try FrameAnswer(json: try NookClient(path: service.socket).request(Request(id: .number(1), operation: .frame(after: nil))))
    }

    static func stream(_ connection: RawConnection, token: String? = nil) throws {
        let authorization = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
        try connection.send("GET /api/v1/screen/stream HTTP/1.1\r\nHost: localhost\r\n\(authorization)\r\n")
    }

    /// A token file with these names, each a read token whose secret is its name.
    static func tokenFile(_ names: [String]) throws -> String {
        let path = NSTemporaryDirectory() + "nook-http-live-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try names.map { "\($0) read sha256:\(sha256Hex($0))\n" }.joined().write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        return path
    }

    @Test func h4_sigtermEndsTheLiveStreamsAndWaitsForTheGlassAtOnce() throws {
        let service = try HTTPService(nookdConfig: Self.blankHome)
        let generation = try Self.glass(service).generation
        let waiting = try RawConnection(port: service.port)
        try waiting.send("GET /api/v1/screen.png?after=\(generation) HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let stream = try RawConnection(port: service.port)
        try Self.stream(stream)
        let first = stream.read(until: { !Self.generations($0).isEmpty }).text
        #expect(Self.generations(first) == [generation], "\(first.prefix(400)) \(service.logText.suffix(2000))")

        // The glass stands still: without being ended, both would wait up to nookd's 25 s.
        kill(service.server.processIdentifier, SIGTERM)
        try #require(service.server.exited(within: TestBounds.seconds(10)), "still running: \(service.logText.suffix(3000))")
        #expect(service.server.terminationStatus == 0 && service.server.terminationReason == .exit)
        let answer = waiting.read(seconds: 5)
        #expect(answer.closed && answer.text.statusCodes == [503] && answer.text.contains("\"stopping\""), "\(answer.text)")
        let rest = stream.read(seconds: 5)
        #expect(rest.closed && rest.text.hasSuffix("0\r\n\r\n"), "the stream ends with its last chunk: \(rest.text.suffix(200))")
        #expect(service.logText.contains("stopping: ended 2 live view(s)"), "\(service.logText.suffix(2000))")
    }

    @Test func h4_aTokenTheFileNoLongerHasLosesItsOpenStreamAndItsWaitWhileOthersWatchOn() throws {
        let tokens = try Self.tokenFile(["nook_dropped-viewer", "nook_kept-viewer"])
        defer { try? FileManager.default.removeItem(atPath: tokens) }
        let service = try HTTPService(config: "[http]\ntokens = \"\(tokens)\"\nrate_limit_per_s = 0\n", nookdConfig: Self.blankHome)
        let generation = try Self.glass(service).generation
        let dropped = try RawConnection(port: service.port), kept = try RawConnection(port: service.port)
        try Self.stream(dropped, token: "nook_dropped-viewer")
        try Self.stream(kept, token: "nook_kept-viewer")
        for connection in [dropped, kept] {
            let first = connection.read(until: { !Self.generations($0).isEmpty }).text
            #expect(Self.generations(first) == [generation], "\(first.prefix(400))")
        }
        let waiting = try RawConnection(port: service.port)
        try waiting.send("GET /api/v1/screen.png?after=\(generation) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer nook_dropped-viewer\r\n\r\n")
        // The wait is in place once a request sent after it on another connection is answered.
        #expect(try curl(["-H", "Authorization: Bearer nook_kept-viewer", service.url + "/healthz"]).output.statusCodes == [200])

        try "nook_kept-viewer read sha256:\(sha256Hex("nook_kept-viewer"))\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        chmod(tokens, 0o600)
        kill(service.server.processIdentifier, SIGHUP)
        #expect(service.waitForLog("SIGHUP: 1 token(s) read again"), "\(service.logText.suffix(2000))")

        let ended = dropped.read(seconds: 10)
        #expect(ended.closed && ended.text.hasSuffix("0\r\n\r\n"), "the withdrawn token's stream goes on: \(ended.text.suffix(200))")
        let refused = waiting.read(seconds: 10)
        #expect(refused.closed && refused.text.statusCodes == [401], "\(refused.text)")
        // The token the file kept watches on: the next change reaches it.
        _ = try NookClient(path: service.socket).request(Request(id: .number(1), operation: .enqueue(
            NookActivity(title: "Still watched", presentation: .blocker(timeout: nil)), module: nil, wait: false)))
        let next = kept.read(until: { Self.generations($0).contains { $0 > generation } })
        #expect(!next.closed && Self.generations(next.text).contains { $0 > generation }, "\(next.text.prefix(400)) \(service.logText.suffix(2000))")
        #expect(service.logText.contains("SIGHUP: ended 2 live view(s)"), "\(service.logText.suffix(2000))")
    }
}
