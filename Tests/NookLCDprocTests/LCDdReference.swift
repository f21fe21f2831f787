import Foundation
import NookLCDproc
import NookSystem
import NookTestSupport
import NookTestTraits
import Testing

/// A real LCDd 0.5.9 (Debian's `lcdproc` package) on a port of the test's choosing, with its
/// `text` driver and a config in a scratch directory: the reference the transcript tests
/// compare Nook's answers with. Never on 13666, never as a service; stopped when released.
/// Its `[menu]` names the keys of nook-lcdproc's server menu, as Debian's own LCDd.conf names
/// them: LCDd's menu then holds them, as Nook's does.
final class LCDdReference {
    static let binary = "/usr/sbin/LCDd"
    let directory: String
    private(set) var port: UInt16 = 0
    private(set) var process = Process()
    private var logPath: String { directory + "/LCDd.log" }

    static var driverPath: String? {
        // The folder Debian's own LCDd.conf names first: the suite built for aarch64 runs under
        // qemu-user with an arm64 sysroot laid over /usr/lib, whose listing then lacks the
        // native LCDd's drivers (docs/platforms.md, "Tests on aarch64").
        let configured = ((try? String(contentsOfFile: "/etc/LCDd.conf", encoding: .utf8)) ?? "").split(separator: "\n")
            .first { $0.hasPrefix("DriverPath") }?.split(separator: "=").last?.trimmingCharacters(in: .whitespaces)
        if let configured, FileManager.default.fileExists(atPath: configured + "/text.so") {
            return configured.hasSuffix("/") ? configured : configured + "/"
        }
        let candidates = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? []
        for entry in candidates.sorted() where FileManager.default.fileExists(atPath: "/usr/lib/\(entry)/lcdproc/text.so") {
            return "/usr/lib/\(entry)/lcdproc/"
        }
        return nil
    }

    init(width: Int = 40, height: Int = 4) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary), let driverPath = Self.driverPath else {
            throw TestFailure("LCDd is not installed: run Hardware/dev/install-deps (Debian package lcdproc)")
        }
        directory = NSTemporaryDirectory() + "nook-lcdd-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // LCDd changes to User; staying who the test is keeps its descriptors readable for
        // LoopbackPort.isListening (a process that changed user hides them from a root
        // without CAP_SYS_PTRACE).
        let user = getuid() == 0 ? "root" : (ProcessInfo.processInfo.environment["USER"] ?? "nobody")
        // Another test's server can take the port before LCDd binds it; LCDd then exits, and
        // starts again on another.
        for attempt in 1...5 {
            port = UInt16(try LoopbackPort.unused())
            let menu = LCDMenuSettings()
            let config = """
                [server]
                DriverPath=\(driverPath)
                Driver=text
                Bind=127.0.0.1
                Port=\(port)
                ReportLevel=2
                ReportToSyslog=no
                User=\(user)
                Foreground=yes
                ServerScreen=no
                [menu]
                MenuKey=\(menu.menuKey)
                EnterKey=\(menu.enterKey)
                UpKey=\(menu.upKey)
                DownKey=\(menu.downKey)
                [text]
                Size=\(width)x\(height)

                """
            let path = directory + "/LCDd.conf"
            try config.write(toFile: path, atomically: true, encoding: .utf8)
            process = Process()
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = ["-c", path, "-f", "-s", "0"]
            process.standardOutput = FileHandle.nullDevice
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: logPath)
            try process.runAlone()
            if try listens(size: "wid \(width) hgt \(height)") { return }
            guard attempt < 5, log.contains("Address already in use") else {
                throw TestFailure("LCDd exited at start (\(process.terminationStatus)): \(log)")
            }
        }
    }

    /// True once LCDd itself listens on `port`; false when it exited first. Where the check of
    /// LCDd's sockets does not say so, an answer to `hello` with the configured `size` (`wid 40
    /// hgt 4`) from a running LCDd does: another server that took the port would not have its
    /// size as well.
    private func listens(size: String) throws -> Bool {
        var exited = false
        let listening = Waiting.until(seconds: 20) {
            if LoopbackPort.isListening(pid: process.processIdentifier, port: Int(port)) { return true }
            if !process.isRunning { process.waitForExit(); exited = true; return true }
            if let probe = try? TCPConnection(port: port), (try? probe.send("hello\n")) != nil,
               probe.readLines(1, timeout: 2).first?.contains(size) == true, process.isRunning {
                return true
            }
            return false
        }
        if listening { return !exited }
        throw TestFailure("LCDd did not listen on 127.0.0.1:\(port): \(LoopbackPort.explain(pid: process.processIdentifier, port: Int(port)))\n\(log)")
    }

    private var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    deinit {
        // SIGKILL: a test runner's thread may block SIGTERM, and the child inherits the mask.
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitForExit() }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A blocking TCP client for tests.
final class TCPConnection: @unchecked Sendable {
    let fd: Int32
    /// Bytes read past the lines a ``readLines(_:timeout:)`` asked for: a frame's `listen`
    /// can arrive in the same read as the answers before it, and belongs to the next read.
    private var pending: [UInt8] = []

    /// The descriptor is the object's only once it is connected: a class whose stored properties
    /// are all set when its init throws is deinitialized, and a `deinit` closing a descriptor the
    /// failed init had closed already closed whatever another thread had opened under that
    /// number meanwhile (a retried probe of LCDd once closed a curl's pipe in a test beside it,
    /// whose spawn then failed with EBADF).
    init(port: UInt16, host: String = "127.0.0.1") throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            close(descriptor)
            throw TestFailure("connect to \(host):\(port): errno \(error)")
        }
        fd = descriptor
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw TestFailure("send: errno \(errno)") }
            sent += count
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Everything that arrives until the peer closes or nothing came for `quiet` seconds.
    func readUntilQuiet(quiet: Double = 1.5, limit: Double = 30) -> [UInt8] {
        var received = pending
        pending = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(limit)
        while Date() < deadline {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(quiet * 1000)) > 0 else { break }
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[..<count]
        }
        return received
    }

    /// The next `count` answers to what the client sent, skipping what the server sends on its
    /// own (`listen`, `ignore`, `key`, `menuevent`), which comes at a frame among them.
    func readAnswers(_ count: Int, timeout: Double = 20) -> [String] {
        var answers: [String] = []
        while answers.count < count, let line = readLines(1, timeout: timeout).first {
            let word = line.prefix { $0 != " " }
            if !["listen", "ignore", "key", "menuevent"].contains(word) { answers.append(line) }
        }
        return answers
    }

    /// The next `count` lines, or those that came before `timeout` passed.
    func readLines(_ count: Int, timeout: Double = 20) -> [String] {
        var received = pending
        pending = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(TestBounds.seconds(timeout))
        while received.filter({ $0 == 0x0A }).count < count, Date() < deadline {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 200) > 0 else { continue }
            let got = read(fd, &buffer, buffer.count)
            if got <= 0 { break }
            received += buffer[..<got]
        }
        var end = received.startIndex
        for _ in 0..<count {
            guard let newline = received[end...].firstIndex(of: 0x0A) else { break }
            end = newline + 1
        }
        pending = Array(received[end...])
        return String(decoding: received[..<end], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}
