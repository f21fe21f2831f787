import Foundation
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// A real nookd on the mock display with a private socket, journal and history in a scratch
/// directory; killed and removed when released.
final class NativeAPINookd {
    let directory: String
    let socket: String
    let process = Process()

    init(config: String = "") throws {
        directory = NSTemporaryDirectory() + "nook-http-api-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        socket = directory + "/nookd.sock"
        let configPath = directory + "/nook.toml"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: Built.directory + "/nookd")
        process.arguments = ["--socket", socket, "--display", "mock", "--journal", directory + "/journal", "--config", configPath,
                             "--log-level", "warning"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runAlone()
        let deadline = Date().addingTimeInterval(TestBounds.seconds(60))
        while (try? NookClient(path: socket)) == nil {
            guard Date() < deadline, process.isRunning else { throw TestFailure("nookd did not start") }
            usleep(20_000)
        }
    }

    /// A request over the socket, as nookctl sends it.
    func request(_ operation: NookOperation) throws -> JSONValue {
        try NookClient(path: socket).request(Request(id: .number(1), operation: operation))
    }

    /// Where nookd holds the activity `id`: on the glass or pending; nil if it holds none.
    func holds(_ id: String) throws -> (onScreen: Bool, activity: JSONValue)? {
        for module in try request(.list(module: nil))["modules"]?.items ?? [] {
            if let current = module["current"], current["id"]?.text == id { return (true, current) }
            if let pending = module["pending"]?.items.first(where: { $0["id"]?.text == id }) { return (false, pending) }
        }
        return nil
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); _ = process.waitForExit() }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// One answer as a test reads it.
struct APIAnswer {
    let response: HTTPResponse
    var status: Int { response.status }
    var json: JSONValue { (try? JSONValue.parse(response.body)) ?? .null }
    func header(_ name: String) -> String? { response.headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    /// The error's field and code, for an error answer.
    var error: (code: String?, field: String?, message: String?) { (json["error"]?["code"]?.text, json["error"]?["field"]?.text, json["error"]?["message"]?.text) }
}

/// The native routes run the way the server runs them: the route is found by method and
/// pattern, and its handler gets the pattern's parameters and a `NookdCalls`.
struct NativeAPIClient {
    let nookd: any NookdCalls
    var caller = HTTPCaller(name: "tester", scopes: Set(HTTPScope.allCases))
    let routes = NativeAPIRoutes.routes()

    init(socket: String) { nookd = BlockingNookdCalls(socket: socket) }

    static func match(_ pattern: String, _ path: String) -> [String: String]? {
        let want = pattern.split(separator: "/", omittingEmptySubsequences: false), have = path.split(separator: "/", omittingEmptySubsequences: false)
        guard want.count == have.count else { return nil }
        var parameters: [String: String] = [:]
        for (part, given) in zip(want, have) {
            if part.hasPrefix("{") && part.hasSuffix("}") {
                guard !given.isEmpty else { return nil }
                parameters[String(part.dropFirst().dropLast())] = String(given)
            } else if part != given {
                return nil
            }
        }
        return parameters
    }

    func send(_ method: String, _ path: String, query: [(name: String, value: String)] = [], body: String? = nil,
              sourceLocation: SourceLocation = #_sourceLocation) throws -> APIAnswer {
        guard let (route, parameters) = routes.lazy.compactMap({ route in
            route.method == method ? Self.match(route.pattern, path).map { (route, $0) } : nil
        }).first else { throw TestFailure("no route for \(method) \(path)") }
        let exchange = RecordingExchange(request: HTTPRequest(method: method, path: path, query: query,
                                                              headers: [("Content-Type", "application/json")], body: Array((body ?? "").utf8)),
                                         caller: caller)
        route.handler(exchange, parameters, nookd)
        #expect(exchange.responses.count == 1, "\(method) \(path) answered \(exchange.responses.count) times", sourceLocation: sourceLocation)
        guard let response = exchange.responses.first else { throw TestFailure("\(method) \(path) gave no answer") }
        return APIAnswer(response: response)
    }
}

/// Waits for `condition`, bounded generously: the bound only matters when it never holds.
func nativeAPIEventually(_ what: String, timeout: Double = 30, _ condition: () throws -> Bool) throws {
    if try Waiting.until(seconds: timeout, condition) { return }
    throw TestFailure("\(what): not within \(timeout) s")
}
