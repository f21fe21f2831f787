import Foundation
import NookLogging
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// A real nookd on the mock display with its own socket in a scratch directory, for the
/// publishing routes' tests; stopped when released.
final class PublishNookd {
    static let root = BuiltProducts.repository
    static let binaries = BuiltProducts.directory

    let directory: String
    let socket: String
    private let process = Process()

    init() throws {
        directory = "/tmp/nook-publish-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        socket = directory + "/nookd.sock"
        process.executableURL = URL(fileURLWithPath: Self.binaries + "/nookd")
        process.arguments = ["--socket", socket, "--display", "mock", "--log-level", "debug"]
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        process.standardOutput = FileHandle.nullDevice
        try process.runAlone()
        let listening = try Waiting.until(seconds: 60) {
            if (try? NookClient(path: socket)) != nil { return true }
            guard process.isRunning else { throw HarnessFailure("nookd exited early (\(process.terminationStatus))") }
            return false
        }
        if listening { return }
        throw HarnessFailure("nookd did not listen on \(socket)")
    }

    func client() throws -> NookClient {
        let client = try NookClient(path: socket)
        client.readTimeout = TestBounds.duration(.seconds(10))
        return client
    }

    /// nookd's own answer to `operation` (its `result`).
    @discardableResult
    func request(_ operation: NookOperation) throws -> JSONValue {
        try client().request(Request(id: .number(1), operation: operation))
    }

    /// Every card nookd holds, on the glass and pending, in every module.
    func cards() throws -> [NookActivity] {
        let answer = try ListAnswer(json: request(.list(module: nil)))
        return answer.modules.flatMap { ($0.current.map { [$0] } ?? []) + $0.pending }
    }

    /// A `watch` subscription: events are read from it in order.
    func watch() throws -> EventWatch { try EventWatch(client()) }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            _ = process.waitForExit(seconds: 30)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

struct HarnessFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// nookd's event stream, read up to a marker card: what happened before the marker is all
/// that happened (nookd delivers events in order), so "nothing changed" is checked without
/// waiting on a clock.
final class EventWatch {
    let client: NookClient

    init(_ client: NookClient) throws {
        self.client = client
        try client.send(Request(id: .string("watch"), operation: .watch).encoded())
        _ = try client.readLine()
    }

    /// Events until one `stop` accepts (included).
    func events(until stop: (EventMessage) -> Bool) throws -> [EventMessage] {
        var events: [EventMessage] = []
        func read() throws -> [UInt8]? {
            // A read that fails says what came before it: the events the test did not stop at.
            do { return try client.readLine() } catch {
                throw HarnessFailure("\(error), after \(events.map { "\($0.name) \"\($0.title)\"" })")
            }
        }
        while let line = try read() {
            guard let value = try JSONValue.parse(line)["event"], let event = try? EventMessage(json: value) else { continue }
            events.append(event)
            if stop(event) { return events }
        }
        throw HarnessFailure("the watch ended after \(events.map(\.name))")
    }

    /// The events a request to nookd makes (an enqueue, an update, an end, a refusal, an
    /// action run) up to the enqueue of a marker card sent now through `nookd`. A card's own
    /// progress on the glass (sliding in, presented, sliding out, put back) goes on by nookd's
    /// clock whatever was asked, and may land on either side of the marker, so it is left out:
    /// "nookd saw nothing" is judged by what a request would have changed.
    func changesBeforeMarker(_ nookd: PublishNookd) throws -> [EventMessage] {
        let marker = NookActivity(title: "marker \(UUID().uuidString)")
        try nookd.request(.enqueue(marker, module: nil, wait: false))
        let progress: Set<String> = ["animateIn", "presented", "animateOut", "requeued"]
        return try events { $0.id == marker.id && $0.name == "enqueued" }.filter { $0.id != marker.id && !progress.contains($0.name) }
    }
}

/// Routes called as the server's table would call them.
struct RouteCaller {
    let routes: [HTTPRoute]
    let nookd: any NookdCalls

    /// The one answer of the route `method pattern` to `request`.
    func call(_ method: String, _ pattern: String, _ request: HTTPRequest, parameters: [String: String] = [:]) throws -> HTTPResponse {
        guard let route = routes.first(where: { $0.method == method && $0.pattern == pattern }) else {
            throw HarnessFailure("no route \(method) \(pattern)")
        }
        let exchange = RecordingExchange(request: request)
        route.handler(exchange, parameters, nookd)
        guard exchange.responses.count == 1, let response = exchange.responses.first else {
            throw HarnessFailure("the route answered \(exchange.responses.count) times")
        }
        return response
    }

    static let logger = Logger(label: "test")
}

extension HTTPResponse {
    var json: JSONValue { (try? JSONValue.parse(body)) ?? .null }
}

func httpRequest(_ method: String, _ path: String, query: [(name: String, value: String)] = [], headers: [(String, String)] = [], body: String = "") -> HTTPRequest {
    HTTPRequest(method: method, path: path, query: query, headers: headers.map { (name: $0.0, value: $0.1) }, body: Array(body.utf8))
}
