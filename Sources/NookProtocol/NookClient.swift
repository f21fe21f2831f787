#if canImport(Glibc)
import Glibc
#endif

/// A blocking connection to nookd's socket: request lines out, answer and event lines in.
/// Used by nookctl and by the end-to-end tests; owns its socket and closes it when released.
public final class NookClient {
    private let fd: Int32
    /// Bytes read and not yet returned start at `unread`: lines are taken off the front by
    /// moving the index, not the bytes (a burst of answers would otherwise cost quadratic copying).
    private var buffer: [UInt8] = []
    private var unread = 0
    private var chunk = [UInt8](repeating: 0, count: 65536)
    /// How long ``readLine()`` waits for data before failing; nil waits forever.
    public var readTimeout: Duration?

    /// Connects; the error says what to check (is nookd running, the path, the group).
    ///
    /// The socket is held in a local until connected: once `fd` is set the object is whole, and
    /// a throw after that would run `deinit`, closing the descriptor a second time (a number
    /// another thread may have been given meanwhile: end-to-end tests running side by side saw
    /// their sockets closed under them).
    public init(path: String) throws(ClientError) {
        let socketFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketFD >= 0 else { throw .unreachable("'socket' failed: (\(errno)) \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(socketFD)
            throw .unreachable("socket path \(path) is too long for a Unix socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(socketFD)
            let hint = switch code {
            case ENOENT, ECONNREFUSED: "is nookd running? (or pass --socket PATH)"
            case EACCES: "permission denied: is your user in the socket's group (usually 'nook')?"
            default: ""
            }
            throw .unreachable("cannot connect to nookd at \(path): (\(code)) \(String(cString: strerror(code))) \(hint)")
        }
        fd = socketFD
    }

    deinit { close(fd) }

    /// Sends one line; a newline is added.
    public func send(_ line: String) throws(ClientError) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        try sendRaw(bytes)
    }

    /// Sends bytes exactly as given (tests use it for malformed input).
    public func sendRaw(_ bytes: [UInt8]) throws(ClientError) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreachable("lost the connection to nookd while sending: (\(errno)) \(String(cString: strerror(errno)))")
            }
            sent += count
        }
    }

    /// Closes the sending side only; answers can still be read.
    public func finishSending() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// The next line nookd sends, or nil when it closes the connection.
    public func readLine() throws(ClientError) -> [UInt8]? {
        while true {
            if let newline = buffer[unread...].firstIndex(of: 0x0A) {
                let line = Array(buffer[unread..<newline])
                unread = newline + 1
                return line
            }
            buffer.removeFirst(unread)
            unread = 0
            if let readTimeout {
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let milliseconds = Int32(readTimeout.components.seconds * 1000 + readTimeout.components.attoseconds / 1_000_000_000_000_000)
                let ready = poll(&entry, 1, milliseconds)
                if ready == 0 { throw .unreachable("nookd sent nothing for \(readTimeout)") }
            }
            let count = read(fd, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreachable("lost the connection to nookd: (\(errno)) \(String(cString: strerror(errno)))")
            }
            if count == 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Sends a request and returns the result of the first line answering it.
    public func request(_ request: Request) throws(ClientError) -> JSONValue {
        do {
            try send(request.encoded())
        } catch {
            // nookd may have refused the connection (not allowed) and closed it before we
            // wrote: its answer is already waiting and says why, better than "broken pipe".
            if let line = try? readLine(), case .failure(_, let refusal)? = try? ResponseLine.decode(line) {
                throw .daemon(refusal)
            }
            throw error
        }
        while let line = try readLine() {
            let response: ResponseLine
            do { response = try ResponseLine.decode(line) } catch { throw .daemon(error) }
            switch response {
            case .success(_, let result): return result
            case .failure(_, let error): throw .daemon(error)
            case .event: continue
            }
        }
        throw .unreachable("nookd closed the connection without answering")
    }

    /// Sends a request and decodes its answer as `Answer`; also returns the result as nookd
    /// sent it (for `--json`, which prints fields this client may not know).
    public func request<Answer: NookAnswer>(_ request: Request, as _: Answer.Type) throws(ClientError) -> (Answer, JSONValue) {
        let result = try self.request(request)
        do {
            return (try Answer(json: result), result)
        } catch {
            throw .daemon(ProtocolError(error.code, field: error.field, "nookd's answer cannot be read: \(error.message)"))
        }
    }
}

/// Why a request failed, and the nookctl exit code that says so (see `nookctl --help`).
public enum ClientError: Error, CustomStringConvertible {
    case unreachable(String)
    case daemon(ProtocolError)

    public var description: String {
        switch self {
        case .unreachable(let message): message
        case .daemon(let error): error.field.map { "\($0): \(error.message)" } ?? error.message
        }
    }

    public var exitCode: Int32 {
        switch self {
        case .unreachable: ExitCodes.unreachable
        case .daemon(let error) where error.code == .notFound: ExitCodes.notFound
        case .daemon: ExitCodes.refused
        }
    }
}

/// What nookctl's exit status means.
public enum ExitCodes {
    public static let refused: Int32 = 1
    public static let unreachable: Int32 = 3
    public static let notFound: Int32 = 4
    /// `enqueue --wait`: how the activity ended.
    public static let dismissed: Int32 = 10
    public static let cancelled: Int32 = 11
    public static let coalesced: Int32 = 12
    public static let expired: Int32 = 13
    public static let timedOut: Int32 = 14
    public static let rejected: Int32 = 15
    public static let connectionLost: Int32 = 16
}
