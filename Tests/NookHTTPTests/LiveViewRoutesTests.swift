import Foundation
import NookActivities
import NookHTTP
import NookProtocol
import NookSystem
import NookTestSupport
import NookTestTraits
import Testing

/// V1 over HTTP: the screen routes' handlers against a real nookd on the mock display, through
/// a test exchange (the server that carries them is httpcore's) and `NookdCalls` over nookd's socket.
@Suite("V1 the live view's HTTP routes", .serialized, .ownThreads)
struct LiveViewRoutesTests {
    /// nookd on its own socket, with nothing on the home screen that changes by itself.
    final class Nookd {
        let directory: String
        let socket: String
        let process = Process()

        init() throws {
            directory = NSTemporaryDirectory() + "nook-liveview-http-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            socket = directory + "/nookd.sock"
            let config = directory + "/nook.toml"
            try Data("[home]\ncontent = \"blank\"\n".utf8).write(to: URL(fileURLWithPath: config))
            process.executableURL = URL(fileURLWithPath: BuiltProducts.program("nookd"))
            process.arguments = ["--socket", socket, "--display", "mock", "--config", config]
            process.standardError = FileHandle.nullDevice
            try process.runAlone()
            let deadline = Date().addingTimeInterval(TestBounds.seconds(60))
            while (try? NookClient(path: socket)) == nil {
                guard Date() < deadline, process.isRunning else { throw ClientError.unreachable("nookd did not start") }
                usleep(20_000)
            }
        }

        @discardableResult
        func request(_ operation: NookOperation) throws -> JSONValue {
            try NookClient(path: socket).request(Request(id: .number(1), operation: operation))
        }

        deinit {
            if process.isRunning { process.terminate() }
            process.waitForExit(seconds: 60)
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Each call on a thread of its own through a blocking client; `done` runs on `loop`, one
    /// at a time, as the server runs every handler and answer on its one loop thread (the
    /// routes share state between viewers and rely on that). Tests call handlers with `run`.
    final class SocketCalls: NookdCalls, @unchecked Sendable {
        let socket: String
        let loop = DispatchQueue(label: "test.loop")
        init(socket: String) { self.socket = socket }

        func run(_ body: () throws -> Void) rethrows { try loop.sync(execute: body) }

        func call(_ request: Request, done: @escaping (Result<JSONValue, NookdCallError>) -> Void) {
            let box = UncheckedBox(done)
            let (socket, loop) = (self.socket, self.loop)
            startThread(named: "test.nookd") {
                do throws(ClientError) {
                    let client = try NookClient(path: socket)
                    // As the link hands it over: nookd's whole answer line.
                    let result = try client.request(request)
                    let line = JSONValue.object([("id", .number(1)), ("ok", .bool(true)), ("result", result)])
                    loop.async { box.value(.success(line)) }
                } catch {
                    let failure: NookdCallError
                    if case .daemon(let refusal) = error { failure = .refused(refusal.json) } else { failure = .unavailable(error.description) }
                    loop.async { box.value(.failure(failure)) }
                }
            }
        }
    }

    final class UncheckedBox<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// Collects what a handler answers; `close()` is the client going.
    final class TestExchange: HTTPExchange, HTTPStreamWriter, @unchecked Sendable {
        let request: HTTPRequest
        let caller = HTTPCaller(name: "test", scopes: [.read])
        private let lock = NSCondition()
        private var open = true
        private(set) var response: HTTPResponse?
        private(set) var streamHeaders: [(name: String, value: String)]?
        private(set) var streamed: [UInt8] = []
        private(set) var finished = false

        init(_ request: HTTPRequest) { self.request = request }

        var isOpen: Bool { lock.lock(); defer { lock.unlock() }; return open }
        func close() { lock.lock(); open = false; lock.unlock() }

        func respond(_ response: HTTPResponse) { lock.lock(); self.response = response; lock.broadcast(); lock.unlock() }

        func startStream(status: Int, headers: [(name: String, value: String)]) -> any HTTPStreamWriter {
            lock.lock(); streamHeaders = headers; lock.unlock()
            return self
        }

        func send(_ bytes: [UInt8]) -> Bool { lock.lock(); streamed += bytes; lock.broadcast(); lock.unlock(); return true }
        func finish() { lock.lock(); finished = true; lock.broadcast(); lock.unlock() }

        /// Waits until `condition` holds of the exchange (bounded).
        func wait(_ what: String, _ condition: (TestExchange) -> Bool) throws {
            let deadline = Date().addingTimeInterval(TestBounds.seconds(30))
            lock.lock(); defer { lock.unlock() }
            while !condition(self) {
                guard lock.wait(until: deadline) else { throw ClientError.unreachable("timed out waiting for \(what)") }
            }
        }
    }

    static func route(_ pattern: String) throws -> HTTPRoute {
        try #require(LiveViewRoutes.routes().first { $0.pattern == pattern })
    }

    static func header(_ name: String, _ headers: [(name: String, value: String)]?) -> String? {
        headers?.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    @Test func v1_screenPNGIsTheGlassWithItsGenerationAndAfterWaitsForTheNextFrame() throws {
        let nookd = try Nookd()
        let calls = SocketCalls(socket: nookd.socket)
        let route = try Self.route("/api/v1/screen.png")
        #expect(route.method == "GET" && route.scope == .read)
        let now = TestExchange(HTTPRequest(method: "GET", path: "/api/v1/screen.png"))
        calls.run { route.handler(now, [:], calls) }
        try now.wait("the PNG") { $0.response != nil }
        let first = try #require(now.response)
        #expect(first.status == 200)
        #expect(Self.header("Content-Type", first.headers) == "image/png")
        #expect(Self.header("Cache-Control", first.headers) == "no-store")
        let generation = try #require(Self.header("X-Nook-Frame", first.headers).flatMap { Int($0) })
        #expect(Array(first.body.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let direct = try FrameAnswer(json: try nookd.request(.frame(after: nil)))
        let unchanged = direct.png == first.body
        #expect(direct.generation == generation && unchanged, "the PNG nookd hands out, unchanged")

        let waiting = TestExchange(HTTPRequest(method: "GET", path: "/api/v1/screen.png", query: [("after", String(generation))]))
        calls.run { route.handler(waiting, [:], calls) }
        usleep(300_000)
        #expect(waiting.response?.status == nil, "answered before the glass changed")
        try nookd.request(.enqueue(NookActivity(title: "Next frame", presentation: .blocker(timeout: nil)), module: nil, wait: false))
        try waiting.wait("the next frame") { $0.response != nil }
        let next = try #require(Self.header("X-Nook-Frame", waiting.response?.headers).flatMap { Int($0) })
        let changed = waiting.response?.body != first.body
        #expect(next > generation && changed)

        for bad in ["-1", "x", "1.5", "", "99999999999999999999"] {
            let refused = TestExchange(HTTPRequest(method: "GET", path: "/api/v1/screen.png", query: [("after", bad)]))
            calls.run { route.handler(refused, [:], calls) }
            #expect(refused.response?.status == 400, "after=\(bad)")
            #expect(try JSONValue.parse(refused.response?.body ?? [])["error"]?["field"]?.text == "after")
        }
    }

    /// A page holding a generation from before nookd restarted asks past the glass: answered at
    /// once with the glass now, as nookd answers it, even while another viewer's wait is in flight.
    @Test func v1_afterBeyondTheNewestFrameIsAnsweredAtOnceWithTheGlassWhileAnotherViewerWaits() throws {
        let nookd = try Nookd()
        let calls = SocketCalls(socket: nookd.socket)
        let route = try Self.route("/api/v1/screen.png")
        let generation = try FrameAnswer(json: try nookd.request(.frame(after: nil))).generation
        let waiting = TestExchange(HTTPRequest(method: "GET", path: "/api/v1/screen.png", query: [("after", String(generation))]))
        calls.run { route.handler(waiting, [:], calls) }
        let beyond = TestExchange(HTTPRequest(method: "GET", path: "/api/v1/screen.png", query: [("after", String(generation + 1000))]))
        calls.run { route.handler(beyond, [:], calls) }
        try beyond.wait("the glass for a number beyond it") { $0.response != nil }
        // Nothing changed on the glass: the viewer waiting for a change is still waiting, so
        // the answer did not wait for its call to run out.
        calls.run { #expect(waiting.response == nil, "answered only when the other viewer's wait ran out") }
        #expect(beyond.response?.status == 200)
        #expect(Self.header("X-Nook-Frame", beyond.response?.headers) == String(generation))
        try nookd.request(.enqueue(NookActivity(title: "Next frame", presentation: .blocker(timeout: nil)), module: nil, wait: false))
        try waiting.wait("the next frame") { $0.response != nil }
        #expect(Self.header("X-Nook-Frame", waiting.response?.headers).flatMap { Int($0) } ?? 0 > generation)
    }

    @Test func v1_theStreamSendsAPartPerChangeAndStopsWhenTheClientGoes() throws {
        let nookd = try Nookd()
        let calls = SocketCalls(socket: nookd.socket)
        let stream = TestExchange(HTTPRequest(method: "GET", path: "/api/v1/screen/stream"))
        let route = try Self.route("/api/v1/screen/stream")
        calls.run { route.handler(stream, [:], calls) }
        try stream.wait("the first part") { $0.streamed.count > 0 }
        #expect(Self.header("Content-Type", stream.streamHeaders)?.hasPrefix("multipart/x-mixed-replace; boundary=") == true)
        func parts() -> [Int] {
            let text = String(decoding: stream.streamed.filter { $0 < 0x80 }, as: UTF8.self)
            return text.components(separatedBy: "X-Nook-Frame: ").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
        }
        let first = parts()
        #expect(first.count == 1, "one part while the glass stands still: \(first)")
        try nookd.request(.enqueue(NookActivity(title: "Streamed", presentation: .blocker(timeout: nil)), module: nil, wait: false))
        try stream.wait("parts for the card's slide") { _ in parts().count >= 3 }
        let generations = parts()
        #expect(generations == generations.sorted() && Set(generations).count == generations.count, "each part a newer frame: \(generations)")
        stream.close()
        try nookd.request(.dismiss(nil))
        try stream.wait("the stream finished") { $0.finished }
    }
}
