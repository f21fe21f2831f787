import Foundation
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// The repository root and the built executables (BuiltProducts says which build).
enum Built {
    static let root = BuiltProducts.repository
    static let directory = BuiltProducts.directory
    /// A sanitizer's build: its memory figures mean nothing.
    static var isInstrumented: Bool { BuiltProducts.isInstrumented }
    static let nookd = directory + "/nookd"
    static let nookctl = directory + "/nookctl"
    static let nookNotify = directory + "/nook-notify"
}

/// A scratch directory under /tmp, removed by the test that made it.
final class Scratch {
    let path: String
    private static let counter = NSLock()
    nonisolated(unsafe) private static var next = 0

    init() {
        Scratch.counter.lock()
        Scratch.next += 1
        let number = Scratch.next
        Scratch.counter.unlock()
        path = "/tmp/nook-e2e-\(getpid())-\(number)"
        try? FileManager.default.removeItem(atPath: path)
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String, _ text: String) -> String {
        let full = path + "/" + name
        _ = FileManager.default.createFile(atPath: full, contents: Data(text.utf8))
        return full
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A running nookd on the mock display with its own socket; stopped with SIGTERM when released.
final class DaemonProcess {
    let scratch: Scratch
    let socket: String
    let process = Process()
    let logPath: String

    /// - Parameter launcher: a command nookd runs under, such as `prlimit --fsize=N --`.
    /// - Parameter environment: variables added to the test's own for nookd (NOTIFY_SOCKET, …).
    init(scratch: Scratch = Scratch(), arguments: [String] = [], launcher: [String] = [], environment: [String: String] = [:],
         waitUntilReady: Bool = true) throws {
        self.scratch = scratch
        socket = scratch.path + "/nookd.sock"
        logPath = scratch.path + "/nookd.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let command = launcher + [Built.nookd, "--socket", socket, "--display", "mock", "--log-level", "debug"] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = FileHandle.nullDevice
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        try process.runAlone()
        if waitUntilReady { try waitForSocket() }
    }

    /// Polls until nookd accepts connections (it listens only once fully started).
    /// The bound only matters when nookd fails: a sanitizer build replaying a journal on a
    /// loaded machine can take most of a minute to listen.
    func waitForSocket(timeout: Double = 60) throws {
        let listening = try Waiting.until(seconds: timeout) {
            if (try? NookClient(path: socket)) != nil { return true }
            if !process.isRunning { throw DaemonFailure("nookd exited early (\(process.terminationStatus)): \(log)") }
            return false
        }
        if listening { return }
        throw DaemonFailure("nookd did not listen on \(socket) within \(timeout) s: \(log)")
    }

    /// Starts nookd expecting it to refuse to start, and waits until it has exited.
    static func exited(scratch: Scratch = Scratch(), arguments: [String]) throws -> DaemonProcess {
        let daemon = try DaemonProcess(scratch: scratch, arguments: arguments, waitUntilReady: false)
        daemon.process.waitForExit()
        return daemon
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func client(timeout: Duration = .seconds(10)) throws -> NookClient {
        let client = try NookClient(path: socket)
        client.readTimeout = TestBounds.duration(timeout)
        return client
    }

    /// A `watch` on nookd, its acknowledgement read: every event from now on, for `readEvents`.
    func watcher(timeout: Duration = .seconds(30)) throws -> NookClient {
        let watcher = try client(timeout: timeout)
        try watcher.sendRaw(Array((Request(id: .string("w"), operation: .watch).encoded() + "\n").utf8))
        _ = try watcher.readLine()
        return watcher
    }

    /// Sends a request and returns the answer's result, failing the test on an error answer.
    @discardableResult
    func request(_ operation: NookOperation) throws -> JSONValue {
        try client().request(Request(id: .number(1), operation: operation))
    }

    /// SIGTERM, then waits; returns the exit status and how long the exit took. A nookd still
    /// running 30 s later (N2 says 2) is a hang: the test fails naming where each of its
    /// threads waits, and nookd is killed, rather than the whole run waiting forever.
    func stop() -> (status: Int32, seconds: Double) {
        guard process.isRunning else { return (process.terminationStatus, 0) }
        let start = Date()
        let pid = process.processIdentifier
        kill(pid, SIGTERM)
        let deadline = start.addingTimeInterval(TestBounds.seconds(30))
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            Issue.record("nookd did not exit within 30 s of SIGTERM; its threads: \(threadStates(of: pid))\nits log ends: \(log.suffix(3000))")
            kill(pid, SIGKILL)
        }
        process.waitForExit()
        return (process.terminationStatus, Date().timeIntervalSince(start))
    }

    /// SIGKILL: a crash at this instant, with no chance to clean up.
    func crash() {
        kill(process.processIdentifier, SIGKILL)
        process.waitForExit()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitForExit()
        }
    }
}

/// Each thread of `pid`: its name, the kernel function it sleeps in and, where readable (root),
/// its kernel stack: what a hung process was waiting for.
func threadStates(of pid: pid_t) -> String {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.sorted().map { task in
        let directory = "/proc/\(pid)/task/\(task)/"
        func read(_ name: String) -> String {
            ((try? String(contentsOfFile: directory + name, encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let stack = read("stack").split(separator: "\n").prefix(6).joined(separator: " < ")
        return "\n  \(task) \(read("comm")): \(read("wchan")) [\(stack)]"
    }.joined()
}

struct DaemonFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs nookctl with `arguments` and returns its exit status, standard output and error.
@discardableResult
func nookctl(_ arguments: [String], socket: String?) throws -> (status: Int32, output: String, error: String) {
    try run(Built.nookctl, arguments + (socket.map { ["--socket", $0] } ?? []))
}

/// Runs `executable` to its end: its exit status, standard output and standard error.
func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe.closedOnExec(), error = Pipe.closedOnExec()
    process.standardOutput = output
    process.standardError = error
    try process.runAlone()
    let out = output.fileHandleForReading.readToEndOfFile()
    let err = error.fileHandleForReading.readToEndOfFile()
    process.waitForExit()
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}

/// Waits (on wall time: these tests run real processes) until `condition` holds.
func eventually(_ what: String, timeout: Double = 10, _ condition: () throws -> Bool) throws {
    if try Waiting.until(seconds: timeout, condition) { return }
    throw DaemonFailure("timed out waiting for \(what)")
}

/// `body`, its failure told with what the peers logged (read only then: the logs are read once).
func saying<T>(_ logs: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
    do { return try body() } catch let failure as DaemonFailure { throw DaemonFailure("\(failure)\n\(logs())") }
}

/// Starts nookctl in the background (for `enqueue --wait`); the caller waits for its exit.
func startNookctl(_ arguments: [String], socket: String) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Built.nookctl)
    process.arguments = arguments + ["--socket", socket]
    process.standardOutput = FileHandle.nullDevice
    try process.runAlone()
    return process
}

extension Built {
    static let nookMQTT = directory + "/nook-mqtt"
}

/// Reads `watch` lines from `client` until `stop` holds for an event; returns every event read.
func readEvents(_ client: NookClient, until stop: (JSONValue) -> Bool) throws -> [JSONValue] {
    var events: [JSONValue] = []
    while let line = try client.readLine() {
        guard let event = try JSONValue.parse(line)["event"] else { continue }
        events.append(event)
        if stop(event) { return events }
    }
    throw DaemonFailure("the watch ended early after \(events)")
}

/// Ids of the card on the glass (first) and the pending ones, in the order they will show,
/// read page by page: a queue of thousands (the crash tests' bursts) is more than one page.
func queued(_ daemon: DaemonProcess) throws -> [String] {
    var answer = try ListAnswer(json: daemon.request(.list(module: nil)))
    var ids = answer.modules.first?.current.map { [$0.id.description] } ?? []
    while true {
        ids += answer.modules.first?.pending.map(\.id.description) ?? []
        guard let text = answer.cursor else { return ids }
        answer = try ListAnswer(json: daemon.request(.list(module: nil, after: ListCursor(text: text))))
    }
}
