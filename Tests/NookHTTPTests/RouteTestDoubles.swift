import NookHTTP
import NookProtocol
import NookTestSupport
import Testing

/// `NookdCalls` over one blocking connection to a real nookd: each call is sent and its answer
/// read before `done` runs, on the test's thread (the server's link does the same on its loop,
/// without blocking), and `done` gets the whole answer line, as the link hands it.
final class BlockingNookdCalls: NookdCalls {
    private let path: String
    private var client: NookClient?
    private(set) var sent: [Request] = []

    init(socket: String) { path = socket }

    func call(_ request: Request, done: @escaping (Result<JSONValue, NookdCallError>) -> Void) {
        sent.append(request)
        do {
            if client == nil {
                client = try NookClient(path: path)
                client?.readTimeout = .seconds(TestBounds.seconds(30))
            }
            guard let client else { return }
            try client.send(request.encoded())
            while let line = try client.readLine() {
                let value = try JSONValue.parse(line)
                if value["event"] != nil { continue }
                if case .bool(true)? = value["ok"] { done(.success(value)) } else { done(.failure(.refused(value["error"] ?? .null))) }
                return
            }
            self.client = nil
            done(.failure(.unavailable("nookd closed the connection without answering")))
        } catch {
            client = nil
            done(.failure(.unavailable("\(error)")))
        }
    }
}

/// One request as the server would hand it to a route; keeps what the route answered.
final class RecordingExchange: HTTPExchange {
    let request: HTTPRequest
    let caller: HTTPCaller
    var isOpen: Bool { true }
    private(set) var responses: [HTTPResponse] = []

    init(request: HTTPRequest, caller: HTTPCaller = HTTPCaller(name: "test", scopes: Set(HTTPScope.allCases))) {
        (self.request, self.caller) = (request, caller)
    }

    func respond(_ response: HTTPResponse) { responses.append(response) }

    func startStream(status: Int, headers: [(name: String, value: String)]) -> any HTTPStreamWriter {
        Issue.record("\(request.method) \(request.path) started a stream where one answer was expected")
        return NoStream()
    }

    final class NoStream: HTTPStreamWriter {
        func send(_ bytes: [UInt8]) -> Bool { false }
        func finish() {}
    }
}
