#if canImport(Glibc)
import Glibc
#endif
import NookSystem

/// One HTTPS GET on the calling thread, the icon fetcher's own (M3): the host resolved, its
/// addresses tried in turn, the server's certificate verified for the host, the answer read
/// within bounds. Blocking, with each connect, read and write bounded by ``timeout`` and the
/// whole exchange by four of them: a server that trickles bytes cannot hold the fetcher.
/// HTTP/1.1 with `Connection: close`; a body by `Content-Length`, chunked, or to the end.
struct HTTPSGet {
    struct Answer {
        var status: Int
        var reason: String
        var contentType: String?
        var body: [UInt8]
    }

    /// Why the GET failed, naming the failing call or what the server did.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    let client: HTTPTLSClient
    var timeout = Duration.seconds(15)
    /// An answer's status line and headers at most.
    static let largestHead = 16 << 10

    func get(host: String, port: UInt16, path: String, bodyLimit: Int) throws(Failure) -> Answer {
        let started = MonotonicClock.now
        let socket = try connect(host: host, port: port)
        let session: HTTPTLSSession
        do { session = try client.session(on: socket.rawValue, host: host) } catch { throw Failure(error.description) }
        defer { session.closeNotify() }
        let authority = host.contains(":") ? "[\(host)]" : host
        let request = "GET \(path) HTTP/1.1\r\nHost: \(authority)\(port == 443 ? "" : ":\(port)")\r\nUser-Agent: nook-http\r\n"
            + "Accept: image/png, image/gif\r\nConnection: close\r\n\r\n"
        var bytes = Array(request.utf8)[...]
        while !bytes.isEmpty {
            let outcome = bytes.withUnsafeBytes { session.write($0.baseAddress!, count: $0.count) }
            switch outcome {
            case .bytes(let count): bytes = bytes.dropFirst(count)
            case .wouldBlock: throw Failure("'SSL_write_ex' timed out after \(timeout)")
            case .ended: throw Failure("the server closed the connection before the request was sent")
            case .failed(let why): throw Failure(why)
            }
        }
        var raw: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        // Chunked framing and the head add to the body; beyond this the body is too large anyway.
        let rawLimit = Self.largestHead + bodyLimit + bodyLimit / 4 + 1024
        while true {
            if let answer = try HTTPAnswerReading.answer(in: raw, ended: false, bodyLimit: bodyLimit) { return answer }
            guard MonotonicClock.now - started < timeout * 4 else { throw Failure("the answer took longer than \(timeout * 4)") }
            let outcome = buffer.withUnsafeMutableBytes { session.read(into: $0) }
            switch outcome {
            case .bytes(let count):
                raw += buffer[..<count]
                guard raw.count <= rawLimit else { throw Failure("the answer is larger than \(bodyLimit) bytes of icon") }
            case .wouldBlock: throw Failure("'SSL_read_ex' timed out after \(timeout)")
            case .ended:
                guard let answer = try HTTPAnswerReading.answer(in: raw, ended: true, bodyLimit: bodyLimit) else {
                    throw Failure("the server closed the connection before the answer was whole")
                }
                return answer
            case .failed(let why): throw Failure(why)
            }
        }
    }

    /// A connected, blocking socket to one of `host`'s addresses, with ``timeout`` on its
    /// connect (Linux bounds a blocking connect by `SO_SNDTIMEO`), reads and writes.
    private func connect(host: String, port: UInt16) throws(Failure) -> FileDescriptor {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0 else {
            let reason = resolved == EAI_SYSTEM ? Errno.current.description : String(cString: gai_strerror(resolved))
            throw Failure("'getaddrinfo' failed for \(host): \(reason)")
        }
        defer { freeaddrinfo(list) }
        let wait = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        var failures: [String] = []
        var next = list
        while let entry = next?.pointee {
            next = entry.ai_next
            let address = Self.numeric(entry)
            let socket: FileDescriptor
            do throws(SystemCallError) {
                socket = FileDescriptor(owning: try System.socket(entry.ai_family, SOCK_STREAM, flags: UInt32(SOCK_CLOEXEC.rawValue), subject: address),
                                        name: "icon source \(host)")
                try System.setSocketOption(socket.rawValue, SOL_SOCKET, SO_RCVTIMEO, to: wait, name: "SO_RCVTIMEO", subject: address)
                try System.setSocketOption(socket.rawValue, SOL_SOCKET, SO_SNDTIMEO, to: wait, name: "SO_SNDTIMEO", subject: address)
                try System.connect(socket.rawValue, entry.ai_addr, entry.ai_addrlen, subject: address)
                return socket
            } catch {
                var failure = error
                // A blocking connect past SO_SNDTIMEO ends with EINPROGRESS: it timed out.
                if failure.call == "connect", failure.errno == .wouldBlock || failure.errno == .inProgress { failure.errno = .timedOut }
                // systemd's IPAddressDeny= refuses a connect with EPERM.
                let hint = failure.call == "connect" && failure.errno == .notPermitted
                    ? " (nook-http.service reaches loopback alone: widen IPAddressAllow= with a drop-in)" : ""
                failures.append(failure.description + hint)
            }
        }
        throw Failure(failures.isEmpty ? "'getaddrinfo' found no address for \(host)" : failures.joined(separator: "; "))
    }

    /// The address as digits, for the error.
    private static func numeric(_ entry: addrinfo) -> String {
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(entry.ai_addr, entry.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// An HTTP/1.1 answer read from the bytes received so far (``HTTPSGet``): the status, the
/// content type and the body, when they are whole.
enum HTTPAnswerReading {
    /// The answer, nil when more bytes are needed; `ended`: nothing more comes.
    static func answer(in raw: [UInt8], ended: Bool, bodyLimit: Int) throws(HTTPSGet.Failure) -> HTTPSGet.Answer? {
        guard let headEnd = raw.firstRange(of: [13, 10, 13, 10]) else {
            guard raw.count <= HTTPSGet.largestHead else { throw .init("the answer's head is larger than \(HTTPSGet.largestHead) bytes") }
            return nil
        }
        let lines = String(decoding: raw[..<headEnd.lowerBound], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusWords = lines[0].split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard statusWords.count >= 2, statusWords[0].hasPrefix("HTTP/1."), let status = Int(statusWords[1]), (100...599).contains(status) else {
            throw .init("the server's answer is not HTTP/1.x: '\(lines[0].prefix(80))'")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingSpaces
        }
        var answer = HTTPSGet.Answer(status: status, reason: statusWords.count > 2 ? String(statusWords[2]) : "", contentType: headers["content-type"], body: [])
        let rest = raw[headEnd.upperBound...]
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            guard let body = try chunks(rest, bodyLimit: bodyLimit) else {
                if ended { throw .init("the server closed the connection inside a chunked body") }
                return nil
            }
            answer.body = body
        } else if let lengthText = headers["content-length"] {
            guard let length = Int(lengthText), length >= 0 else { throw .init("the answer's Content-Length is not a number: '\(lengthText.prefix(40))'") }
            guard length <= bodyLimit else { throw .init("the answer is \(length) bytes; an icon may have at most \(bodyLimit)") }
            guard rest.count >= length else {
                if ended { throw .init("the server closed the connection after \(rest.count) of \(length) bytes") }
                return nil
            }
            answer.body = Array(rest.prefix(length))
        } else {
            guard ended else { return nil }
            guard rest.count <= bodyLimit else { throw .init("the answer is larger than \(bodyLimit) bytes of icon") }
            answer.body = Array(rest)
        }
        return answer
    }

    /// A chunked body decoded, nil while its last chunk has not come.
    private static func chunks(_ bytes: ArraySlice<UInt8>, bodyLimit: Int) throws(HTTPSGet.Failure) -> [UInt8]? {
        var body: [UInt8] = [], rest = bytes
        while true {
            guard let lineEnd = rest.firstRange(of: [13, 10]) else { return nil }
            let sizeText = String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self).prefix { $0 != ";" }.trimmingSpaces
            guard let size = Int(sizeText, radix: 16), size >= 0 else { throw .init("a chunk's size is not hexadecimal: '\(sizeText.prefix(20))'") }
            rest = rest[lineEnd.upperBound...]
            if size == 0 { return body }
            guard body.count + size <= bodyLimit else { throw .init("the answer is larger than \(bodyLimit) bytes of icon") }
            guard rest.count >= size + 2 else { return nil }
            body += rest.prefix(size)
            rest = rest.dropFirst(size + 2)
        }
    }
}
