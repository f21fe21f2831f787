import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// The live view through the built nook-http and a real nookd on the mock display, whose home
/// is blank so that nothing changes the glass but the test: what ends a stream or a wait for
/// the glass (SIGTERM, a token withdrawn), what a viewer that stops reading is sent, and who
/// gets a viewer's place.
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
        // The wait ends by itself after nookd's 25 s: on a loaded machine those can pass before
        // the SIGHUP. Then the log says so (the wait's 200 before the SIGHUP), and the withdrawn
        // token is refused on its next request instead.
        let log = service.logText
        let waitEndedFirst = refused.text.statusCodes == [200]
        if waitEndedFirst {
            let answered = try #require(log.range(of: "GET /api/v1/screen.png -> 200"), "\(log.suffix(2000))")
            let reread = try #require(log.range(of: "SIGHUP: 1 token(s) read again"))
            #expect(answered.lowerBound < reread.lowerBound, "a frame went to a token after it was withdrawn: \(log.suffix(2000))")
            let again = try curl(["-H", "Authorization: Bearer nook_dropped-viewer", service.url + "/api/v1/screen.png"])
            #expect(again.output.statusCodes == [401], "\(again.output)")
        } else {
            #expect(refused.closed && refused.text.statusCodes == [401], "\(refused.text)")
        }
        // The token the file kept watches on: the next change reaches it.
        _ = try NookClient(path: service.socket).request(Request(id: .number(1), operation: .enqueue(
            NookActivity(title: "Still watched", presentation: .blocker(timeout: nil)), module: nil, wait: false)))
        let next = kept.read(until: { Self.generations($0).contains { $0 > generation } })
        #expect(!next.closed && Self.generations(next.text).contains { $0 > generation }, "\(next.text.prefix(400)) \(service.logText.suffix(2000))")
        // The stream, and the wait unless it had ended by itself.
        #expect(service.logText.contains("SIGHUP: ended \(waitEndedFirst ? 1 : 2) live view(s)"), "\(service.logText.suffix(2000))")
    }

    /// One address opens viewers up to the whole table (256) and never reads them; it gets its
    /// share, its token gets no more from another address, and another token there is served.
    @Test func v1_oneAddressOrTokenCannotTakeEveryViewersPlace() throws {
        let tokens = try Self.tokenFile(["nook_hog-viewer", "nook_other-viewer"])
        defer { try? FileManager.default.removeItem(atPath: tokens) }
        let service = try HTTPService(config: "[http]\ntokens = \"\(tokens)\"\nrate_limit_per_s = 0\n", nookdConfig: Self.blankHome)
        func open(from source: String, token: String) throws -> (connection: RawConnection, text: String) {
            let connection = try RawConnection(port: service.port, from: source)
            try Self.stream(connection, token: token)
            let text = connection.read(until: { !Self.generations($0).isEmpty || $0.contains("too_many_viewers") }).text
            return (connection, text)
        }
        var held: [RawConnection] = []
        var served = 0
        var refusals: [String] = []
        for _ in 0..<256 {
            let (connection, text) = try open(from: "127.0.0.1", token: "nook_hog-viewer")
            held.append(connection)
            if text.statusCodes == [200] && !Self.generations(text).isEmpty { served += 1 } else { refusals.append(text) }
        }
        #expect(served == 64, "one address's share: \(served) served")
        #expect(refusals.count == 192 && refusals.allSatisfy { $0.statusCodes == [503] && $0.contains("from this address") && $0.contains("Retry-After") },
                "\(refusals.first?.prefix(600) ?? "")")
        let sameToken = try open(from: "127.0.0.2", token: "nook_hog-viewer")
        #expect(sameToken.text.statusCodes == [503] && sameToken.text.contains("with this token"), "\(sameToken.text.prefix(600))")
        let other = try open(from: "127.0.0.2", token: "nook_other-viewer")
        #expect(other.text.statusCodes == [200] && !Self.generations(other.text).isEmpty, "\(other.text.prefix(600)) \(service.logText.suffix(1000))")
    }

    /// A viewer that stops reading while the card changes 40 times or more is sent, when it reads
    /// again, a few parts and then the newest frame, not every frame it missed.
    @Test func v1_aViewerThatStopsReadingGetsTheNewestFrameWhenItReadsAgainNotAQueueOfOldOnes() throws {
        let service = try HTTPService(nookdConfig: Self.blankHome)
        let nookd = try NookClient(path: service.socket)
        let card = NookActivity(coalescingKey: "live", title: "Change 0", subtitle: "a viewer that stops reading",
                                systemImage: "bell", presentation: .blocker(timeout: nil))
        _ = try nookd.request(Request(id: .number(1), operation: .enqueue(card, module: nil, wait: false)))
        let viewer = try RawConnection(port: service.port, receiveBuffer: 4096)
        try Self.stream(viewer)
        let first = viewer.read(until: { !Self.generations($0).isEmpty }).text
        let before = try #require(Self.generations(first).last, "\(first.prefix(400))")

        // The viewer reads nothing while the card changes until the glass has shown 40 frames
        // more (a loaded nookd may draw two updates as one frame).
        var change = 0
        var settled = try Self.glass(service)
        let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
        while settled.generation - before < 40, Date() < deadline {
            for _ in 0..<10 {
                change += 1
                _ = try nookd.request(Request(id: .number(2), operation: .update(
                    .key("live", module: nil), changes: ActivityChanges(members: [("title", .string("Change \(change) of the card"))]), restartDwell: false)))
                usleep(10_000)
            }
            settled = try Self.glass(service)
        }
        let missed = settled.generation - before
        try #require(missed >= 40, "the glass changed \(missed) times")

        let rest = viewer.read(until: { Self.generations($0).contains { $0 >= settled.generation } }, seconds: 30)
        let parts = Self.generations(rest.text)
        // Which way it failed, if it does (once, beside a soak and a release build): nook-http closed
        // the connection (its write timeout), or the stream ended or stalled (its log says why).
        #expect(parts.contains { $0 >= settled.generation },
                "the newest frame (\(settled.generation)) never came: \(parts); closed \(rest.closed), ending \(rest.text.suffix(200).debugDescription); \(service.logText.suffix(2000))")
        // What can come before the newest: what the kernel's buffers held (both sides' about
        // two frames' worth) and the part being written when the viewer stopped.
        let bound = 4 + (128 * 1024) / max(1, settled.png.count)
        #expect(parts.count <= bound, "\(parts.count) parts for \(missed) changes (frames of \(settled.png.count) bytes): \(parts)")
        #expect(parts == parts.sorted(), "\(parts)")
    }
}
