import Foundation
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// The repository and the built executables (BuiltProducts says which build).
enum Built {
    static let root = BuiltProducts.repository
    static let directory = BuiltProducts.directory
    /// A sanitizer's build: its memory figures mean nothing (AddressSanitizer keeps freed memory
    /// in quarantine).
    static var isInstrumented: Bool { BuiltProducts.isInstrumented }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A scratch directory with a real nookd on the mock display (its socket private to the test)
/// and the built nook-http on a port the kernel chose; both are killed when this is released.
final class HTTPService {
    let directory: String
    let socket: String
    var nookd = Process()
    let server = Process()
    let log: String
    /// nookd's standard error (warnings and above, and a sanitizer's report if it dies).
    let nookdLog: String
    private(set) var port: UInt16 = 0
    /// The TLS listener's address (`lametric.listen`), when the config sets one.
    private(set) var tlsAddress: String?

    /// nookd's config file, when the test gave one.
    private var nookdConfig: String?
    /// nookd's `--display`: the mock panel unless a test drives mock LEDs (`led-mock`).
    private var nookdDisplay = "mock"
    /// nookd's journal, kept across its restarts, when the test asked for one.
    private var nookdJournal: String?

    /// - Parameter nookdStopped: nookd is stopped (SIGSTOP) before nook-http starts, so nook-http's
    ///   links wait in its listen backlog; the test sends SIGCONT.
    /// - Parameter journaled: nookd keeps a journal in the directory (else none), so a restart shows
    ///   what it had carried out.
    init(config: String? = nil, arguments: [String] = [], withNookd: Bool = true, nookdConfig nookdText: String? = nil,
         nookdDisplay: String = "mock", nookdStopped: Bool = false, journaled: Bool = false, environment: [String: String] = [:]) throws {
        self.nookdDisplay = nookdDisplay
        directory = NSTemporaryDirectory() + "nook-http-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        socket = directory + "/nookd.sock"
        log = directory + "/nook-http.log"
        nookdLog = directory + "/nookd.log"
        if let nookdText {
            nookdConfig = directory + "/nook.toml"
            try nookdText.write(toFile: directory + "/nook.toml", atomically: true, encoding: .utf8)
        }
        if journaled { nookdJournal = directory + "/journal" }
        if withNookd { try startNookd() }
        if withNookd, nookdStopped {
            // Answered first: every thread of nookd has started (and named itself) when it stops.
            let client = try NookClient(path: socket)
            client.readTimeout = TestBounds.duration(.seconds(60))
            _ = try client.request(Request(id: .number(1), operation: .status))
            ProcessStop.stop(nookd.processIdentifier)
        }
        let path = directory + "/http.toml"
        try Self.withNookdTimeout(config ?? "").write(toFile: path, atomically: true, encoding: .utf8)
        let configArguments = ["--config", path]
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let output = Pipe.closedOnExec()
        server.executableURL = URL(fileURLWithPath: Built.directory + "/nook-http")
        server.arguments = ["--socket", socket, "--listen", "127.0.0.1:0", "--log-level", "debug"] + configArguments + arguments
        server.standardOutput = output
        server.standardError = FileHandle(forWritingAtPath: log)
        if !environment.isEmpty { server.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        try server.runAlone()
        let text = output.firstLine(until: Date().addingTimeInterval(TestBounds.seconds(30)))
        guard let portText = text.split(separator: "\n").first?.split(separator: ":").last, let port = UInt16(portText) else {
            throw TestFailure("nook-http did not say where it listens: '\(text)' \(logText)")
        }
        self.port = port
        // Written with the first line, in one write: `listening on ADDRESS (TLS: …)`.
        tlsAddress = text.split(separator: "\n").first { $0.contains("(TLS") }?.split(separator: " ").dropFirst(2).first.map(String.init)
    }

    /// `config` with `http.nookd_timeout_s` stretched as the tests' bounds are (unless it sets
    /// one): a nookd of a sanitizer's build on a loaded machine is slow, not stuck.
    static func withNookdTimeout(_ config: String) -> String {
        if config.contains("nookd_timeout_s") { return config }
        let line = "nookd_timeout_s = \(Int(TestBounds.seconds(15)))\n"
        guard let table = config.range(of: "[http]\n") else { return "[http]\n" + line + config }
        return config.replacingCharacters(in: table, with: "[http]\n" + line)
    }

    /// Starts (or starts again) nookd on the mock display and waits until it listens.
    func startNookd() throws {
        if nookd.isRunning { kill(nookd.processIdentifier, SIGKILL); nookd.waitForExit() }
        nookd = Process()
        nookd.executableURL = URL(fileURLWithPath: Built.directory + "/nookd")
        nookd.arguments = ["--socket", socket, "--display", nookdDisplay, "--journal", nookdJournal ?? "none", "--log-level", "warning"] + (nookdConfig.map { ["--config", $0] } ?? [])
        if !FileManager.default.fileExists(atPath: nookdLog) { _ = FileManager.default.createFile(atPath: nookdLog, contents: nil) }
        let nookdOutput = FileHandle(forWritingAtPath: nookdLog)
        nookdOutput?.seekToEndOfFile()
        nookd.standardError = nookdOutput
        try nookd.runAlone()
        let deadline = Date().addingTimeInterval(TestBounds.seconds(60))
        while (try? NookClient(path: socket)) == nil {
            guard Date() < deadline, nookd.isRunning else { throw TestFailure("nookd did not start") }
            usleep(20_000)
        }
    }

    func stopNookd() {
        guard nookd.isRunning else { return }
        kill(nookd.processIdentifier, SIGKILL)
        nookd.waitForExit()
    }

    var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// Both logs, for a failure's message: what nook-http and nookd said.
    var logs: String {
        let nookdText = (try? String(contentsOfFile: nookdLog, encoding: .utf8)) ?? ""
        var stacks = ""
        if nookd.isRunning, let traced = try? runProgram("/usr/bin/gdb", ["-p", "\(nookd.processIdentifier)", "-batch", "-ex", "thread apply all bt 12"]) {
            stacks = traced.output.split(separator: "\n").filter { $0.hasPrefix("#") || $0.hasPrefix("Thread") }.joined(separator: "\n")
        }
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return "nook-http:\n\(logText.suffix(4000))\nnookd:\n\(nookdText.suffix(4000))\nload: \(load)\nnookd's threads:\n\(stacks)"
    }

    func waitForLog(_ needle: String, timeout: Double = 30) -> Bool {
        Waiting.until(seconds: timeout, every: .milliseconds(50)) { logText.contains(needle) }
    }

    var url: String { "http://127.0.0.1:\(port)" }

    deinit {
        for process in [server, nookd] where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitForExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Runs a program to its end: its exit status and standard output (standard error joined).
func runProgram(_ executable: String, _ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String, error: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe.closedOnExec()
    process.standardOutput = output
    // Standard error to a file, not a second pipe: a program that fills that pipe while the
    // output is read to its end would wait for ever (gdb, warning about a sanitizer's threads).
    let errorPath = NSTemporaryDirectory() + "run-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).err"
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    defer { try? FileManager.default.removeItem(atPath: errorPath) }
    process.standardError = FileHandle(forWritingAtPath: errorPath)
    let inputPipe = input.map { _ in Pipe.closedOnExec() }
    if let inputPipe { process.standardInput = inputPipe }
    try process.runAlone()
    if let inputPipe, let input {
        inputPipe.fileHandleForWriting.write(Data(input.utf8))
        try? inputPipe.fileHandleForWriting.close()
    }
    let out = output.fileHandleForReading.readToEndOfFile()
    _ = process.waitForExit()
    let err = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), err)
}

/// curl with `-sS` and a bounded time: status line and body of every answer (`-i`).
func curl(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
    try runProgram("/usr/bin/curl", ["-sS", "-i", "--max-time", "\(Int(TestBounds.seconds(20)))"] + arguments)
}

/// curl as the holder of a bearer `token`: the answer's status and its body as text.
func curl(as token: String, _ method: String, _ url: String, _ body: String? = nil) throws -> (status: Int, text: String) {
    var arguments = ["-sS", "-o", "-", "-w", "\n%{http_code}", "-X", method, "-H", "Authorization: Bearer \(token)", url]
    if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", body] }
    let result = try runProgram("/usr/bin/curl", arguments)
    let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
    return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
}

/// ``curl(as:_:_:_:)`` with the body as JSON (a string when it is not JSON).
func curlJSON(as token: String, _ method: String, _ url: String, _ body: String? = nil) throws -> (status: Int, json: JSONValue) {
    let answer = try curl(as: token, method, url, body)
    return (answer.status, (try? JSONValue.parse(Array(answer.text.utf8))) ?? .string(answer.text))
}

/// A plain TCP connection to nook-http, for bytes no client library would send.
final class RawConnection {
    let fd: Int32

    /// - Parameters:
    ///   - source: the loopback address to connect from (all of 127/8 is this machine).
    ///   - receiveBuffer: the kernel's buffer for what arrives, for a client that reads slowly.
    init(port: UInt16, from source: String? = nil, receiveBuffer: Int32? = nil) throws {
        // `self.fd` is set last: a failed init must not reach `deinit`, which would close again
        // a number another thread may have opened since (see TCPConnection).
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
        if var size = receiveBuffer {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard bound == 0 else { close(fd); throw TestFailure("bind \(source): \(errno)") }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { close(fd); throw TestFailure("connect: \(errno)") }
        self.fd = fd
    }

    /// The port this end of the connection has (the server sees it as the peer's).
    var localPort: Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return named == 0 ? Int(UInt16(bigEndian: address.sin_port)) : 0
    }

    deinit { close(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw TestFailure("send: \(errno)") }
            offset += sent
        }
    }

    /// What arrives until the server closes or `quiet` seconds pass with nothing new.
    func read(until done: (String) -> Bool = { _ in false }, seconds: Double = 20) -> (text: String, closed: Bool) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(TestBounds.seconds(seconds))
        while Date() < deadline {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) >= 0 else { break }
            guard entry.revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (String(decoding: bytes, as: UTF8.self), true) }
            bytes += buffer[..<count]
            if done(String(decoding: bytes, as: UTF8.self)) { break }
        }
        return (String(decoding: bytes, as: UTF8.self), false)
    }
}

extension String {
    /// The status codes of the answers in a stream of HTTP/1.1 answers, in order.
    var statusCodes: [Int] {
        components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
    }
}
