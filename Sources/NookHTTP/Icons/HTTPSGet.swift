#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookSystem

/// One HTTPS GET on the calling thread, the icon fetcher's own (M3): the host resolved, its
/// addresses tried in turn, the server's certificate verified for the host, the answer read
/// within bounds. Blocking: each connect, read and write is bounded by ``timeout``, and the
/// exchange after the connect (the handshake, the request, the answer) by ``exchangeLimit``
/// (`icons.timeout_s`, and four of it),
/// past which a thread of its own shuts the socket down: a server that trickles bytes cannot
/// hold the fetcher. HTTP/1.1 with `Connection: close`; a body by `Content-Length`, chunked,
/// or to the end.
struct HTTPSGet {
    struct Answer: Equatable {
        var status: Int
        var reason: String
        var body: [UInt8]
    }

    /// Why the GET failed, naming the failing call or what the server did.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    let client: HTTPTLSClient
    var timeout = Duration.seconds(15)
    var exchangeLimit = Duration.seconds(60)
    /// An answer's status line and headers at most.
    static let largestHead = 16 << 10

    func get(host: String, port: UInt16, path: String, bodyLimit: Int) throws(Failure) -> Answer {
        let socket = try connect(host: host, port: port)
        let deadline = ExchangeDeadline(socket: socket.rawValue, after: exchangeLimit)
        var phase = "the TLS handshake"
        do throws(Failure) {
            let answer = try exchange(on: socket, host: host, port: port, path: path, bodyLimit: bodyLimit, phase: &phase)
            _ = deadline.finish()
            return answer
        } catch {
            // Finished before the socket is closed: the deadline's thread never shuts down a descriptor reused since.
            guard !deadline.finish() else { throw Failure("the exchange took longer than \(exchangeLimit): nook-http hung up during \(phase)") }
            throw error
        }
    }

    private func exchange(on socket: FileDescriptor, host: String, port: UInt16, path: String, bodyLimit: Int,
                          phase: inout String) throws(Failure) -> Answer {
        let session: HTTPTLSSession
        do { session = try client.session(on: socket.rawValue, host: host) } catch { throw Failure(error.description) }
        phase = "the request"
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
        phase = "the answer"
        var reader = HTTPAnswerReader(bodyLimit: bodyLimit)
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let outcome = buffer.withUnsafeMutableBytes { session.read(into: $0) }
            switch outcome {
            case .bytes(let count):
                if let answer = try reader.take(buffer[..<count]) { return answer }
            case .wouldBlock: throw Failure("'SSL_read_ex' timed out after \(timeout)")
            case .ended: return try reader.ended()
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

/// An HTTP/1.1 answer read as its bytes arrive (``HTTPSGet``): each byte is looked at a bounded
/// number of times however the server splits it (a body sent a byte a record costs no more than
/// one sent whole), a `1xx` head is skipped, and the body is bounded as it grows.
struct HTTPAnswerReader {
    let bodyLimit: Int
    private var raw: [UInt8] = []
    /// Where the search for the head's end goes on.
    private var searched = 0
    private var head: (status: Int, reason: String)?
    private var framing = Framing.toTheEnd
    private var body: [UInt8] = []

    private enum Framing {
        case length(Int)
        case toTheEnd
        /// In a chunked body: the chunk's bytes still to come (then its CRLF), or nil between chunks.
        case chunked(left: Int?)
    }

    init(bodyLimit: Int) { self.bodyLimit = bodyLimit }

    /// The answer once it is whole, nil while more is needed.
    mutating func take(_ bytes: some Collection<UInt8>) throws(HTTPSGet.Failure) -> HTTPSGet.Answer? {
        raw += bytes
        while head == nil {
            guard let end = raw[searched...].firstRange(of: [13, 10, 13, 10]) else {
                guard raw.count <= HTTPSGet.largestHead else { throw .init("the answer's head is larger than \(HTTPSGet.largestHead) bytes") }
                searched = max(0, raw.count - 3)
                return nil
            }
            try readHead(raw[..<end.lowerBound])
            raw.removeSubrange(..<end.upperBound)
            searched = 0
            // `100 Continue` and the like come before the answer; a few, not a flood.
            if let status = head?.status, status < 200 {
                interimHeads += 1
                guard interimHeads <= Self.interimHeadsAllowed else {
                    throw .init("the server sent more than \(Self.interimHeadsAllowed) interim (1xx) answers")
                }
                head = nil
            }
        }
        return try advance(ended: false)
    }

    /// `1xx` heads skipped before the answer at most.
    static let interimHeadsAllowed = 8
    private var interimHeads = 0

    /// The answer when the server closed the connection.
    mutating func ended() throws(HTTPSGet.Failure) -> HTTPSGet.Answer {
        guard head != nil else { throw .init("the server closed the connection before the answer's head was whole") }
        guard let answer = try advance(ended: true) else { throw .init("the server closed the connection before the answer was whole") }
        return answer
    }

    private mutating func readHead(_ bytes: ArraySlice<UInt8>) throws(HTTPSGet.Failure) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusWords = lines[0].split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard statusWords.count >= 2, statusWords[0].hasPrefix("HTTP/1."), statusWords[1].utf8.count == 3, let status = Int(statusWords[1]),
              (100...599).contains(status) else {
            throw .init("the server's answer is not HTTP/1.x: '\(SaidText.shown(String(lines[0]), scalars: 80))'")
        }
        var lengths: Set<String> = [], chunked = false
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let (name, value) = (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingSpaces)
            if name == "content-length" { lengths.insert(value) }
            if name == "transfer-encoding", value.lowercased().contains("chunked") { chunked = true }
        }
        head = (status, statusWords.count > 2 ? SaidText.shown(String(statusWords[2]), scalars: 80) : "")
        if chunked {
            framing = .chunked(left: nil)
        } else if let text = lengths.first {
            guard lengths.count == 1 else { throw .init("the answer has \(lengths.count) different Content-Length headers") }
            guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let length = Int(text) else {
                throw .init("the answer's Content-Length is not a number: '\(SaidText.shown(text, scalars: 40))'")
            }
            guard length <= bodyLimit else { throw .init("the answer is \(length) bytes; an icon may have at most \(bodyLimit)") }
            framing = .length(length)
        } else {
            framing = .toTheEnd
        }
    }

    /// Moves what arrived into the body; the answer once it is whole.
    private mutating func advance(ended: Bool) throws(HTTPSGet.Failure) -> HTTPSGet.Answer? {
        guard let head else { return nil }
        func answer() -> HTTPSGet.Answer { HTTPSGet.Answer(status: head.status, reason: head.reason, body: body) }
        switch framing {
        case .length(let length):
            body += raw.prefix(length - body.count)
            raw.removeAll()
            if body.count == length { return answer() }
            if ended { throw .init("the server closed the connection after \(body.count) of \(length) bytes") }
            return nil
        case .toTheEnd:
            guard body.count + raw.count <= bodyLimit else { throw .init("the answer is larger than \(bodyLimit) bytes of icon") }
            body += raw
            raw.removeAll()
            return ended ? answer() : nil
        case .chunked:
            if try chunks() { return answer() }
            if ended { throw .init("the server closed the connection inside a chunked body") }
            return nil
        }
    }

    /// Decodes the chunks that arrived; whether the last one has.
    private mutating func chunks() throws(HTTPSGet.Failure) -> Bool {
        var offset = 0
        defer { raw.removeSubrange(..<offset) }
        while case .chunked(let left) = framing {
            if let left {
                let available = min(left, raw.count - offset)
                body += raw[offset..<(offset + available)]
                offset += available
                guard available == left else { framing = .chunked(left: left - available); return false }
                // The chunk's own CRLF.
                guard raw.count - offset >= 2 else { framing = .chunked(left: 0); return false }
                guard raw[offset] == 13, raw[offset + 1] == 10 else { throw .init("a chunk is longer than its size says") }
                offset += 2
                framing = .chunked(left: nil)
                continue
            }
            guard let lineEnd = raw[offset...].firstRange(of: [13, 10]) else {
                guard raw.count - offset <= 1024 else { throw .init("a chunk's size line is longer than 1024 bytes") }
                return false
            }
            let sizeText = String(decoding: raw[offset..<lineEnd.lowerBound], as: UTF8.self).prefix { $0 != ";" }.trimmingSpaces
            // At most 16 hex digits, checked against what is left before it is added: no overflow.
            guard (1...16).contains(sizeText.utf8.count), sizeText.allSatisfy({ $0.isASCII && $0.isHexDigit }), let size = UInt64(sizeText, radix: 16) else {
                throw .init("a chunk's size is not hexadecimal: '\(SaidText.shown(sizeText, scalars: 20))'")
            }
            guard size <= UInt64(bodyLimit - body.count) else { throw .init("the answer is larger than \(bodyLimit) bytes of icon") }
            offset = lineEnd.upperBound
            if size == 0 { return true }
            framing = .chunked(left: Int(size))
        }
        return false
    }
}

/// Shuts a socket down when an exchange on it runs past its deadline, from a thread of its own:
/// a blocking read, or a handshake a server trickles, then returns at once.
final class ExchangeDeadline: @unchecked Sendable {
    private let condition = ThreadCondition()
    /// Both guarded by `condition`'s mutex.
    private var finished = false
    private var expired = false

    private let deadline: UInt64

    init(socket fd: Int32, after limit: Duration) {
        let deadline = ThreadCondition.nowNanoseconds + UInt64(limit.components.seconds) * 1_000_000_000
        self.deadline = deadline
        startThread(named: "icon deadline") { [self] in
            condition.withLock {
                while !finished, ThreadCondition.nowNanoseconds < deadline { condition.wait(untilNanoseconds: deadline) }
                guard !finished else { return }
                expired = true
                try? System.shutdown(fd, Int(SHUT_RDWR), subject: "icon source")
            }
        }
    }

    /// Ends the watch, before the socket is closed; whether the deadline had passed (its thread
    /// may not have run yet on a loaded machine: the exchange took longer all the same).
    func finish() -> Bool {
        condition.withLock {
            finished = true
            condition.signal()
            return expired || ThreadCondition.nowNanoseconds >= deadline
        }
    }
}
