#if canImport(Glibc)
import Glibc
#endif
import NookSystem

/// A blocking connection to nookd's socket: request lines out, answer and event lines in.
/// Used by nookctl and by the end-to-end tests; owns its socket and closes it when released.
public final class NookClient {
    private let socket: FileDescriptor
    private var fd: Int32 { socket.rawValue }
    /// Bytes read and not yet returned start at `unread`: lines are taken off the front by
    /// moving the index, not the bytes (a burst of answers would otherwise cost quadratic copying).
    private var buffer: [UInt8] = []
    private var unread = 0
    /// Where the search for the next newline resumes: a long line arrives in many reads, and
    /// searching it again from its start after each one would cost quadratic time.
    private var searchedUpTo = 0
    private var chunk = [UInt8](repeating: 0, count: 65536)
    /// How long ``readLine()`` waits for data before failing; nil waits forever.
    public var readTimeout: Duration?

    /// The socket, for a client's own `poll(2)` (a bridge's event loop); valid while this lives.
    public var descriptor: Int32 { fd }

    /// Whether a whole line has been read and waits in the buffer: `poll` on ``descriptor``
    /// does not report those, so a poll loop reads them before it waits again.
    public var hasBufferedLine: Bool { buffer[unread...].contains(0x0A) }

    /// Connects; the error says what to check (is nookd running, the path, the group).
    public init(path: String) throws(ClientError) {
        guard let address = UnixSocketAddress(path: path) else {
            throw .unreachable("socket path \(path) is too long for a Unix socket (at most \(UnixSocketAddress.maximumPathLength) bytes)")
        }
        do throws(SystemCallError) {
            // Owned from here on: a failed connect closes it exactly once, with its owner.
            let socket = try FileDescriptor.unixSocket(SOCK_STREAM, name: path)
            try socket.connect(to: address)
            self.socket = socket
        } catch {
            let hint = switch error.errno {
            case .noSuchFileOrDirectory, .connectionRefused: "is nookd running? (or pass --socket PATH)"
            case .permissionDenied: "permission denied: is your user in the socket's group (usually 'nook')?"
            default: ""
            }
            throw .unreachable("cannot connect to nookd at \(path): \(SystemCallError.describe(errno: error.errno)) \(hint)")
        }
    }

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
            let sending = bytes.withUnsafeBytes { bytes in
                Result { () throws(SystemCallError) in
                    try System.send(fd, bytes.baseAddress! + sent, bytes.count - sent, flags: Int32(MSG_NOSIGNAL))
                }
            }
            switch sending {
            case .success(let count): sent += count
            case .failure(let error): throw .unreachable("lost the connection to nookd while sending: \(error.errno)")
            }
        }
    }

    /// Closes the sending side only; answers can still be read.
    public func finishSending() {
        try? System.shutdown(fd, SHUT_WR)
    }

    /// The next line nookd sends, or nil when it closes the connection.
    public func readLine() throws(ClientError) -> [UInt8]? {
        while true {
            if let newline = buffer[max(unread, searchedUpTo)...].firstIndex(of: 0x0A) {
                let line = Array(buffer[unread..<newline])
                unread = newline + 1
                return line
            }
            searchedUpTo = buffer.count - unread
            buffer.removeFirst(unread)
            unread = 0
            if let readTimeout {
                var entries = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
                let milliseconds = Int32(readTimeout.components.seconds * 1000 + readTimeout.components.attoseconds / 1_000_000_000_000_000)
                if (try? pollDescriptors(&entries, timeoutMilliseconds: milliseconds)) == 0 {
                    throw .unreachable("nookd sent nothing for \(readTimeout)")
                }
            }
            let count: Int
            do throws(SystemCallError) {
                count = try System.read(fd, &chunk, chunk.count)
            } catch {
                throw .unreachable("lost the connection to nookd: \(error.errno)")
            }
            if count == 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Reads what has arrived, without waiting (a poll loop calls it when ``descriptor`` is
    /// readable): false once nookd has closed the connection. Take the lines with ``bufferedLine()``.
    public func readAvailable() throws(ClientError) -> Bool {
        buffer.removeFirst(unread)
        searchedUpTo = max(0, searchedUpTo - unread)
        unread = 0
        let received: Int?
        do throws(SystemCallError) {
            received = try System.receiveIfReady(fd, &chunk, chunk.count, flags: Int32(MSG_DONTWAIT))
        } catch {
            throw .unreachable("lost the connection to nookd: \(error.errno)")
        }
        guard let count = received else { return true }
        if count == 0 { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    /// The next whole line already read, without waiting; nil if none is complete yet.
    public func bufferedLine() -> [UInt8]? {
        guard let newline = buffer[max(unread, searchedUpTo)...].firstIndex(of: 0x0A) else {
            searchedUpTo = buffer.count
            return nil
        }
        let line = Array(buffer[unread..<newline])
        unread = newline + 1
        return line
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
        warning = nil
        while let line = try readLine() {
            let response: ResponseLine
            do { response = try ResponseLine.decode(line) } catch { throw .daemon(error) }
            switch response {
            case .success(_, let result):
                warning = Self.warning(in: line)
                return result
            case .failure(let id, let error):
                // nookd stopped after it began this request (its last line names it): unknown,
                // not refused.
                if id == nil, let asked = request.id, (try? JSONValue.parse(line)).flatMap(StoppingLine.startedThrough(in:)) == asked {
                    throw .connectionLost("nookd stopped after it began the request and before it answered: it may or may not have been carried out")
                }
                throw .daemon(error)
            case .event: continue
            }
        }
        throw .unreachable("nookd closed the connection without answering")
    }

    /// What nookd said beside the last answer, if anything: an accepted change that its
    /// journal could not save (SPEC J1) is answered with a `warning`.
    public private(set) var warning: String?

    /// The `warning` member of an answer line (looked for before parsing the line again).
    public static func warning(in line: [UInt8]) -> String? {
        guard line.contains(bytes: warningKey) else { return nil }
        return (try? JSONValue.parse(line))?["warning"]?.text
    }

    private static let warningKey = Array("\"warning\"".utf8)

    /// Sends a request and decodes its answer as `Answer`; also returns the result as nookd
    /// sent it (for `--json`, which prints fields this client may not know).
    public func request<Answer: NookAnswer>(_ request: Request, as _: Answer.Type) throws(ClientError) -> (Answer, JSONValue) {
        assert(ObjectIdentifier(request.operation.name.entry.answer) == ObjectIdentifier(Answer.self),
               "\(request.operation.name.rawValue) is answered with \(request.operation.name.entry.answer), not \(Answer.self)")
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
    /// nookd accepted a request, then the connection ended before the request did (nookd
    /// stopped or restarted under `enqueue --wait`): what was asked may still happen.
    case connectionLost(String)

    public var description: String {
        switch self {
        case .unreachable(let message), .connectionLost(let message): message
        case .daemon(let error): error.field.map { "\($0): \(error.message)" } ?? error.message
        }
    }

    public var exitCode: Int32 {
        switch self {
        case .unreachable: ExitCodes.unreachable
        case .connectionLost: ExitCodes.connectionLost
        case .daemon(let error) where error.code == .notFound: ExitCodes.notFound
        // Refused for naming someone else's activity (U3), rather than for using nookd at all.
        case .daemon(let error) where error.code == .forbidden && error.field != nil: ExitCodes.notOwner
        case .daemon: ExitCodes.refused
        }
    }
}

/// What nookctl's exit status means.
public enum ExitCodes {
    public static let refused: Int32 = 1
    /// `sound play`: nookd did not play the sound (no output, volume 0, silenced by the room).
    public static let notPlayed: Int32 = 2
    public static let unreachable: Int32 = 3
    public static let notFound: Int32 = 4
    /// `update`, `cancel`, `dismiss`: the activity was sent by another user (U3).
    public static let notOwner: Int32 = 5
    /// `enqueue --wait`: how the activity ended.
    public static let dismissed: Int32 = 10
    public static let cancelled: Int32 = 11
    public static let coalesced: Int32 = 12
    public static let expired: Int32 = 13
    public static let timedOut: Int32 = 14
    public static let rejected: Int32 = 15
    public static let connectionLost: Int32 = 16
}
