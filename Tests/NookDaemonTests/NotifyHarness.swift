import Foundation
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// The real clients and the bus the notification bridge's end-to-end tests use; installed by
/// `Hardware/dev/install-deps` (dbus-daemon, dbus-bin, libnotify-bin, libglib2.0-bin).
enum NotifyTools {
    static let needed = ["dbus-daemon", "dbus-monitor", "dbus-send", "notify-send", "gdbus"]
    static func path(_ name: String) -> String? {
        ["/usr/bin/", "/bin/", "/usr/local/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    static let missing = needed.filter { path($0) == nil }
    static let available = missing.isEmpty
    static var skipReason: Comment {
        Comment(rawValue: "needs \(missing.joined(separator: ", ")): run Hardware/dev/install-deps")
    }
}

/// A private session bus of the test's own (`dbus-daemon --session` on a socket in the
/// scratch directory), stopped when released.
final class PrivateBus {
    let address: String
    private let process = Process()
    /// dbus-daemon's standard output, where it prints its address once it listens.
    private let printed = Pipe.closedOnExec()

    init(scratch: Scratch) throws {
        let path = scratch.path + "/bus"
        address = "unix:path=" + path
        process.executableURL = URL(fileURLWithPath: NotifyTools.path("dbus-daemon")!)
        process.arguments = ["--session", "--nofork", "--nopidfile", "--address=" + address, "--print-address"]
        process.standardOutput = printed
        process.standardError = FileHandle.nullDevice
        try process.runAlone()
        try Self.waitUntilListening(printed)
    }

    /// Waits for the address a `dbus-daemon --print-address` prints on `output` once it
    /// listens: its socket file exists a moment before (bind, then listen), and a client that
    /// connects then is refused.
    static func waitUntilListening(_ output: Pipe) throws {
        var text = ""
        while !text.contains("\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        guard text.contains("\n") else { throw DaemonFailure("dbus-daemon ended without saying where it listens: '\(text)'") }
    }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        environment["NOOK_SOCKET"] = nil
        return environment
    }

    /// Runs a client on this bus and returns its exit status, output and error.
    @discardableResult
    func run(_ arguments: [String], timeout: Double = 20) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: NotifyTools.path(arguments[0]) ?? arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = environment
        let output = Pipe.closedOnExec(), error = Pipe.closedOnExec()
        process.standardOutput = output
        process.standardError = error
        try process.runAlone()
        let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + TestBounds.seconds(timeout), execute: killer)
        let out = output.fileHandleForReading.readToEndOfFile()
        let err = error.fileHandleForReading.readToEndOfFile()
        process.waitForExit()
        killer.cancel()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    /// Starts a client in the background; the caller waits for it.
    func start(_ arguments: [String], output: String? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: NotifyTools.path(arguments[0]) ?? arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = environment
        if let output {
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            process.standardOutput = FileHandle(forWritingAtPath: output)
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        process.standardError = FileHandle.nullDevice
        try process.runAlone()
        return process
    }

    /// `gdbus call` on the notification server.
    /// Numbers are given typed (`uint32 0`): gdbus reads the signature by introspection, and when
    /// that call is slow (an ASan bridge on a loaded machine) it guesses, and a bare `0` is int32.
    /// The call's own timeout is a hang guard, as the tests' bounds are: D-Bus's default 25 s ran
    /// out in an ASan pass ("Timeout was reached") with nothing wrong in the bridge.
    func call(_ method: String, _ arguments: [String] = []) throws -> (status: Int32, output: String, error: String) {
        try run(["gdbus", "call", "--session", "--timeout", String(Int(TestBounds.seconds(120))),
                 "--dest", "org.freedesktop.Notifications", "--object-path", "/org/freedesktop/Notifications",
                 "--method", "org.freedesktop.Notifications." + method] + (arguments.isEmpty ? [] : ["--"] + arguments), timeout: 150)
    }

    deinit {
        stopProcess(process)
    }
}

/// A running nook-notify on a private bus, forwarding to a test's nookd.
final class NotifyBridgeProcess {
    let process = Process()
    let logPath: String

    init(bus: PrivateBus, socket: String, scratch: Scratch, arguments: [String] = []) throws {
        logPath = scratch.path + "/nook-notify.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: Built.nookNotify)
        process.arguments = ["--socket", socket, "--log-level", "debug"] + arguments
        process.environment = bus.environment
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = FileHandle.nullDevice
        try process.runAlone()
        try eventually("nook-notify to own org.freedesktop.Notifications") {
            if !process.isRunning { throw DaemonFailure("nook-notify exited (\(process.terminationStatus)): \(log)") }
            let owner = try bus.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                                     "--method", "org.freedesktop.DBus.NameHasOwner", "org.freedesktop.Notifications"])
            return owner.output.contains("true")
        }
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    deinit {
        stopProcess(process)
    }
}

/// `dbus-monitor` watching the notification server's signals.
final class SignalMonitor {
    private let process: Process
    private let path: String

    init(bus: PrivateBus, scratch: Scratch) throws {
        path = scratch.path + "/monitor.log"
        process = try bus.start(["dbus-monitor", "--address", bus.address, "type='signal',interface='org.freedesktop.Notifications'"], output: path)
        // dbus-monitor prints the bus's NameAcquired once it is connected and monitoring.
        try eventually("dbus-monitor to start") { text.contains("NameAcquired") || text.contains("NameLost") }
    }

    var text: String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// Every `member` signal's arguments, as dbus-monitor printed them (`uint32 7`, `string "default"`).
    func signals(_ member: String) -> [[String]] {
        var found: [[String]] = []
        var current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("signal ") || line.hasPrefix("method ") || line.hasPrefix("error ") {
                if let current { found.append(current) }
                current = line.contains("member=\(member)") ? [] : nil
            } else if current != nil, !line.isEmpty {
                current?.append(line.trimmingCharacters(in: .whitespaces))
            }
        }
        if let current { found.append(current) }
        return found
    }

    /// The reasons of every NotificationClosed for `id`.
    func closeReasons(_ id: UInt32) -> [String] {
        signals("NotificationClosed").filter { $0.first == "uint32 \(id)" }.compactMap { $0.count > 1 ? $0[1] : nil }
    }

    deinit {
        stopProcess(process)
    }
}

extension DaemonProcess {
    /// Every activity nookd holds, on screen first: every page of `list`.
    func activities() throws -> [ListAnswer.Module] {
        try client().list(module: nil).0.modules
    }
}

/// SIGTERM, then SIGKILL if it is still there after two seconds (scaled): a test never hangs on a
/// helper that does not stop.
func stopProcess(_ process: Process) {
    guard process.isRunning else { return }
    process.terminate()
    let deadline = Date().addingTimeInterval(TestBounds.seconds(2))
    while process.isRunning, Date() < deadline { usleep(10_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitForExit()
}
