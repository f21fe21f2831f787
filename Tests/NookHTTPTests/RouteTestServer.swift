import Foundation
import NookHTTP
import NookProtocol

/// A minimal HTTP/1.1 listener on a loopback port that hands each request to the publishing
/// routes, so real senders (curl, Apprise, Alertmanager) can be pointed at them: one request
/// per connection, `Content-Length` bodies, answered on one thread in arrival order. It stands
/// in for nook-http's own server, which has its own tests; what is tested here is what the
/// senders send and what the routes make of it, through a real nookd.
final class RouteTestServer {
    let port: Int
    private let listener: Int32
    private let routes: [HTTPRoute]
    private let nookd: any NookdCalls
    private let thread: Thread
    private let stopped = NSLock()
    nonisolated(unsafe) private var isStopped = false
    /// Requests handled, in order (method and path).
    nonisolated(unsafe) private(set) var handled: [String] = []

    init(routes: [HTTPRoute], nookd: any NookdCalls) throws {
        self.routes = routes
        self.nookd = nookd
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        guard listener >= 0 else { throw HarnessFailure("socket failed: \(errno)") }
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        guard bound == 0, listen(listener, 16) == 0 else { throw HarnessFailure("bind/listen failed: \(errno)") }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        let box = Unchecked(value: nil as RouteTestServer?)
        thread = Thread { box.value?.serve() }
        box.value = self
        thread.start()
    }

    final class Unchecked<Value>: @unchecked Sendable {
        var value: Value
        init(value: Value) { self.value = value }
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    func stop() {
        stopped.lock()
        isStopped = true
        stopped.unlock()
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            stopped.lock()
            let done = isStopped
            stopped.unlock()
            if done { if connection >= 0 { close(connection) }; return }
            guard connection >= 0 else { continue }
            handle(connection)
            close(connection)
        }
    }

    private func readAll(_ fd: Int32, until complete: ([UInt8]) -> Bool) -> [UInt8] {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while !complete(data) {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            data += chunk[0..<count]
        }
        return data
    }

    private func handle(_ fd: Int32) {
        var headerEnd = 0
        var contentLength = 0
        let data = readAll(fd) { data in
            if headerEnd == 0, let end = find([0x0D, 0x0A, 0x0D, 0x0A], in: data) {
                headerEnd = end + 4
                let head = String(decoding: data[0..<end], as: UTF8.self).lowercased()
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    contentLength = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            return headerEnd > 0 && data.count >= headerEnd + contentLength
        }
        guard headerEnd > 0 else { return }
        let lines = String(decoding: data[0..<(headerEnd - 4)], as: UTF8.self).components(separatedBy: "\r\n")
        let start = lines[0].split(separator: " ")
        guard start.count >= 2 else { return }
        let target = String(start[1])
        let pathPart = String(target.split(separator: "?", maxSplits: 1).first ?? "")
        let query = target.contains("?") ? String(target.split(separator: "?", maxSplits: 1)[1]) : ""
        let path = pathPart.removingPercentEncoding ?? pathPart
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let parameters = query.split(separator: "&").map { pair -> (name: String, value: String) in
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0) }
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
        let request = HTTPRequest(method: String(start[0]), path: path, query: parameters, headers: headers,
                                  body: Array(data[headerEnd..<min(data.count, headerEnd + contentLength)]))
        handled.append("\(request.method) \(path)")
        let response = respond(to: request)
        var head = "HTTP/1.1 \(response.status) \(response.status == 200 ? "OK" : "Error")\r\nContent-Length: \(response.body.count)\r\nConnection: close\r\n"
        for header in response.headers { head += "\(header.name): \(header.value)\r\n" }
        let bytes = Array((head + "\r\n").utf8) + response.body
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }

    /// The route whose pattern matches with the fewest parameters (literal paths first).
    private func respond(to request: HTTPRequest) -> HTTPResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        var best: (route: HTTPRoute, parameters: [String: String])?
        for route in routes where route.method == request.method {
            let pattern = route.pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
            guard pattern.count == segments.count else { continue }
            var parameters: [String: String] = [:]
            var matched = true
            for (part, segment) in zip(pattern, segments) {
                if part.hasPrefix("{") { if segment.isEmpty { matched = false; break }; parameters[String(part.dropFirst().dropLast())] = segment }
                else if part != segment { matched = false; break }
            }
            if matched, best == nil || parameters.count < best!.parameters.count { best = (route, parameters) }
        }
        guard let best else { return HTTPAPIError(status: 404, code: "not_found", message: "no route").response }
        let exchange = RecordingExchange(request)
        best.route.handler(exchange, best.parameters, nookd)
        return exchange.responses.first ?? HTTPResponse(status: 500)
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
        return nil
    }
}
