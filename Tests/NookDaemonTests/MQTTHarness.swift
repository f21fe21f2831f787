import Foundation
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// Debian's broker and clients the MQTT bridge's end-to-end tests use; installed by
/// `Hardware/dev/install-deps` (mosquitto, mosquitto-clients, openssl).
enum MQTTTools {
    static let needed = ["mosquitto", "mosquitto_pub", "mosquitto_sub", "mosquitto_passwd", "openssl"]
    static func path(_ name: String) -> String? {
        ["/usr/sbin/", "/usr/bin/", "/bin/", "/usr/local/sbin/", "/usr/local/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    static let missing = needed.filter { path($0) == nil }
    static let available = missing.isEmpty
    static var skipReason: Comment { Comment(rawValue: "needs \(missing.joined(separator: ", ")): run Hardware/dev/install-deps") }

    /// Runs `arguments` with SIGTERM, SIGINT, SIGHUP and SIGALRM unblocked and at their
    /// default action: the test runner's threads block some of them, a blocked mask survives
    /// `exec`, and then `mosquitto` ignores SIGTERM (no persistence saved) and `mosquitto_sub
    /// -W` never times out.
    static func launch(_ process: Process, _ arguments: [String]) {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", """
            import os, signal, sys
            wanted = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM]
            for number in wanted: signal.signal(number, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, wanted)
            os.execv(sys.argv[1], sys.argv[1:])
            """, path(arguments[0]) ?? arguments[0]] + Array(arguments.dropFirst())
    }

    /// Runs a tool and returns its status, output and error; killed after `timeout` seconds.
    @discardableResult
    static func run(_ arguments: [String], input: String? = nil, timeout: Double = 20) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        launch(process, arguments)
        let output = Pipe.closedOnExec(), error = Pipe.closedOnExec()
        process.standardOutput = output
        process.standardError = error
        let stdin = Pipe.closedOnExec()
        process.standardInput = stdin
        try process.runAlone()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try? stdin.fileHandleForWriting.close()
        let killer = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + TestBounds.seconds(timeout), execute: killer)
        let out = output.fileHandleForReading.readToEndOfFile()
        let err = error.fileHandleForReading.readToEndOfFile()
        process.waitForExit()
        killer.cancel()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}

/// Debian's mosquitto on loopback ports of the test's choosing, with its config and
/// persistence in the scratch directory.
final class Broker {
    let scratch: Scratch
    private(set) var port = 0
    /// The TLS listener, when the broker has certificates.
    private(set) var tlsPort: Int?
    let logPath: String
    private var process: Process?
    private let configPath: String

    struct TLSFiles { let ca: String; let cert: String; let key: String }

    init(scratch: Scratch, passwordFile: String? = nil, tls: TLSFiles? = nil, port: Int? = nil, settings: [String] = []) throws {
        self.scratch = scratch
        logPath = scratch.path + "/mosquitto.log"
        configPath = scratch.path + "/mosquitto.conf"
        // A port LoopbackPort handed out can be taken by another test's server before mosquitto
        // binds it; mosquitto then exits, and the test picks others.
        var attempt = 0
        while true {
            attempt += 1
            self.port = try port ?? LoopbackPort.unused()
            tlsPort = try tls == nil ? nil : LoopbackPort.unused()
            // Run as root, mosquitto changes to its own user unless told to stay root; staying
            // keeps its descriptors readable for LoopbackPort.isListening.
            var lines = (getuid() == 0 ? ["user root"] : []) + [
                "per_listener_settings false",
                "persistence true",
                "persistence_location \(scratch.path)/",
                "log_dest file \(logPath)",
                "log_type error", "log_type warning", "log_type notice", "log_type information",
            ] + settings + [
                "listener \(self.port) 127.0.0.1",
            ]
            if let tls, let tlsPort {
                lines += ["listener \(tlsPort) 127.0.0.1", "cafile \(tls.ca)", "certfile \(tls.cert)", "keyfile \(tls.key)"]
            }
            if let passwordFile {
                lines += ["allow_anonymous false", "password_file \(passwordFile)"]
            } else {
                lines += ["allow_anonymous true"]
            }
            _ = scratch.file("mosquitto.conf", lines.joined(separator: "\n") + "\n")
            do {
                try start()
                return
            } catch is DaemonFailure where port == nil && attempt < 5 && log.contains("Address already in use") {
                try? FileManager.default.removeItem(atPath: logPath)
            }
        }
    }

    func start() throws {
        let process = Process()
        MQTTTools.launch(process, ["mosquitto", "-c", configPath])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runAlone()
        self.process = process
        // Listening by mosquitto itself: another test's server on the same port answers a
        // connect too (a bridge once reached nook-lcdproc that way).
        let ports = [port, tlsPort].compactMap { $0 }
        try saying("\(ports.map { LoopbackPort.explain(pid: process.processIdentifier, port: $0) }.joined(separator: "\n"))\nmosquitto: \(log)") {
            try eventually("mosquitto to listen on \(port)", timeout: 30) {
                if !process.isRunning { throw DaemonFailure("mosquitto exited (\(process.terminationStatus)): \(log)") }
                return ports.allSatisfy { LoopbackPort.isListening(pid: process.processIdentifier, port: $0) }
            }
        }
    }

    /// SIGTERM (mosquitto writes its persistence file), then waits.
    func stop() {
        guard let process else { return }
        stopProcess(process)
        self.process = nil
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// `mosquitto_pub` with QoS 1: the status says whether the broker acknowledged.
    @discardableResult
    func publish(_ topic: String, _ message: String, retain: Bool = false, extra: [String] = []) throws -> Int32 {
        let result = try MQTTTools.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", String(port), "-q", "1", "-t", topic, "-m", message] + (retain ? ["-r"] : []) + extra)
        if result.status != 0 { throw DaemonFailure("mosquitto_pub \(topic) failed (\(result.status)): \(result.error)") }
        return result.status
    }

    /// Publishes a payload as raw bytes from a file (`-f`): invalid UTF-8, empty messages.
    func publish(_ topic: String, bytes: [UInt8], retain: Bool = false) throws {
        let path = scratch.path + "/payload-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let result = try MQTTTools.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", String(port), "-q", "1", "-t", topic]
                                       + (bytes.isEmpty ? ["-n"] : ["-f", path]) + (retain ? ["-r"] : []))
        if result.status != 0 { throw DaemonFailure("mosquitto_pub -f \(topic) failed (\(result.status)): \(result.error)") }
    }

    /// Retained messages under `filter` right now: topic → payload. A bridge's publish may still
    /// be on its way: a caller that expects one waits for it (`eventually`).
    func retained(_ filter: String) throws -> [String: String] {
        // The wait for the retained messages to arrive, stretched with the other bounds.
        let wait = String(Int(TestBounds.seconds(1).rounded(.up)))
        let result = try MQTTTools.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", String(port), "-t", filter, "-v", "--retained-only", "-W", wait], timeout: 10)
        var found: [String: String] = [:]
        for line in result.output.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            found[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return found
    }

    deinit { stop() }
}

extension MQTTTools {
    static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

/// `mosquitto_sub -v` in the background, printing `topic payload` lines to a file; it is
/// known to be subscribed once a message it published to itself has come back.
final class Subscriber {
    private let process = Process()
    private let path: String

    init(broker: Broker, topics: [String]) throws {
        path = broker.scratch.path + "/sub-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let ready = "test/ready/\(UUID().uuidString)"
        MQTTTools.launch(process, ["mosquitto_sub", "-h", "127.0.0.1", "-p", String(broker.port), "-v", "-q", "1"] + (topics + [ready]).flatMap { ["-t", $0] })
        process.standardOutput = FileHandle(forWritingAtPath: path)
        process.standardError = FileHandle.nullDevice
        try process.runAlone()
        try eventually("mosquitto_sub to subscribe") {
            try broker.publish(ready, "ready")
            return text.contains(ready)
        }
    }

    var text: String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// Every payload received on `topic`, in order.
    func payloads(_ topic: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            return parts.first.map(String.init) == topic ? (parts.count > 1 ? String(parts[1]) : "") : nil
        }
    }

    func json(_ topic: String) -> [JSONValue] {
        payloads(topic).compactMap { try? JSONValue.parse(Array($0.utf8)) }
    }

    deinit { stopProcess(process) }
}

/// A running nook-mqtt with its config in the scratch directory.
final class MQTTBridgeProcess {
    let process = Process()
    let logPath: String
    let configPath: String

    init(broker: Broker, socket: String, scratch: Scratch, device: String = "b1", extraConfig: String = "", port: Int? = nil,
         statePollMilliseconds: Int? = nil, arguments: [String] = [], waitUntilOnline: Bool = true, host: String = "127.0.0.1") throws {
        logPath = scratch.path + "/nook-mqtt-\(device).log"
        configPath = scratch.file("mqtt-\(device).toml", """
            [mqtt]
            host = "\(host)"
            port = \(port ?? broker.port)
            device = "\(device)"
            \(statePollMilliseconds.map { "state_poll_ms = \($0)" } ?? "")
            \(extraConfig)
            """)
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: Built.nookMQTT)
        process.arguments = ["--config", configPath, "--socket", socket, "--log-level", "debug"] + arguments
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = FileHandle.nullDevice
        try process.runAlone()
        if waitUntilOnline {
            // Its log says where it stopped, if it never gets there, and its threads what they
            // wait in (seen once under the sanitizer pass: no line for 40 s after a redelivery).
            try saying("nook-mqtt's log:\n\(log.suffix(3000))\nits threads:\(threadStates(of: process.processIdentifier))") {
                try eventually("nook-mqtt \(device) online") {
                    if !process.isRunning { throw DaemonFailure("nook-mqtt exited (\(process.terminationStatus)): \(log)") }
                    // Subscribed: only then does the broker keep messages for this session.
                    return log.contains("subscribed to")
                }
            }
        }
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// SIGKILL: a crash, with no chance to say goodbye.
    func crash() {
        kill(process.processIdentifier, SIGKILL)
        process.waitForExit()
    }

    deinit { stopProcess(process) }
}
