import Foundation
import NookActivities
import NookProtocol
import NookTestTraits
import NookTestSupport
import Testing

@Suite("C1, C2 nookd and nookctl end to end", .serialized, .ownThreads)
struct CLITests {
    @Test func c1_enqueueThroughNookctlIsDrawnOnTheMockAndWatchStreamsTheLifecycle() throws {
        let scratch = Scratch()
        let frames = scratch.path + "/frames"
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--frames", frames])
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: Built.nookctl)
        watch.arguments = ["watch", "--json", "--socket", daemon.socket]
        let pipe = Pipe.closedOnExec()
        watch.standardOutput = pipe
        try watch.runAlone()
        defer { if watch.isRunning { watch.terminate() } }
        try eventually("the watcher to connect") { (try daemon.request(.status))["connections"] == .number(2) }
        // Connected is not yet subscribed: a probe card that the watch reports proves it listens
        // (one that ended before the subscription goes unreported, so another follows).
        let events = PipeLines(pipe)
        try eventually("the watch to report a probe card", timeout: 60) {
            // One key: a probe still waiting is replaced, not queued behind the card under test.
            let probe = try nookctl(["enqueue", "--title", "Probe", "--dwell", "0.1", "--key", "probe"], socket: daemon.socket)
            let probeID = JSONValue.string(probe.output.trimmingCharacters(in: .whitespacesAndNewlines))
            return try events.next(within: TestBounds.seconds(2)) { $0["id"] == probeID } != nil
        }

        let enqueued = try nookctl(["enqueue", "--title", "Build finished", "--subtitle", "Debug · 12.4s", "--icon", "hammer",
                                    "--tint", "green", "--key", "build", "--dwell", "2"], socket: daemon.socket)
        #expect(enqueued.status == 0, "\(enqueued.error)")
        let id = enqueued.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(NookActivityID(id) != nil, "enqueue prints the new id, got '\(id)'")

        var lines: [JSONValue] = []
        while let line = try events.next(within: TestBounds.seconds(15), where: { $0["id"] == .string(id) }) {
            lines.append(line)
            if line["event"] == .string("hidden") { break }
        }
        #expect(lines.compactMap { $0["event"]?.text } == ["enqueued", "animateIn", "presented", "animateOut", "hidden"])
        #expect(lines.last?["reason"] == .string("completed"))

        try eventually("the frames on disk") { FileManager.default.fileExists(atPath: frames + "/latest.png") }
        // The frame writer keeps only the newest frame while it encodes (a loaded machine drops
        // animation frames), but the card dwells 2 s: home, the card, home again at least; the
        // last home frame may still be encoding when the hidden event arrives.
        var written: [String] = []
        try eventually("home, animation and card frames") {
            written = try FileManager.default.contentsOfDirectory(atPath: frames).filter { $0.hasPrefix("frame-") }
            return written.count >= 3
        }
        #expect(written.count >= 3, "home, animation and card frames: \(written.count)")
        #expect(daemon.stop().status == 0)
    }

    @Test func c1_pipelinedRequestsAreAnsweredInOrderAndAWaitingEnqueueIsAnsweredAtOnce() throws {
        // nookd answers a burst of pipelined lines with one write at the end of the burst; an
        // enqueue with wait must still hear "accepted" at once, not when its activity ends.
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        var burst = ""
        for index in 0..<200 {
            let activity = NookActivity(coalescingKey: "k\(index % 7)", title: "Burst \(index)", dwell: .milliseconds(50))
            burst += Request(id: .number(Double(index)), operation: .enqueue(activity, module: nil, wait: false)).encoded() + "\n"
        }
        let waiting = NookActivity(title: "Waited for", dwell: .seconds(30))
        burst += Request(id: .string("wait"), operation: .enqueue(waiting, module: nil, wait: true)).encoded() + "\n"
        try client.sendRaw(Array(burst.utf8))
        for index in 0..<200 {
            let line = try #require(try client.readLine())
            guard case .success(.number(Double(index))?, _)? = try? ResponseLine.decode(line) else {
                Issue.record("answer \(index): \(String(decoding: line, as: UTF8.self))")
                return
            }
        }
        let started = ContinuousClock.now
        let accepted = try #require(try client.readLine())
        guard case .success(.string("wait")?, let result)? = try? ResponseLine.decode(accepted) else {
            Issue.record("\(String(decoding: accepted, as: UTF8.self))")
            return
        }
        #expect(result["id"] == .string(waiting.id.description))
        // Scaled under a sanitizer, but kept well inside the dwell it must not wait for.
        #expect(ContinuousClock.now - started < .seconds(min(TestBounds.seconds(10), 20)), "accepted long before its 30 s dwell is over")
        #expect(daemon.stop().status == 0)
    }

    @Test func c2_enqueueWaitExitsWithHowTheActivityEnded() throws {
        let daemon = try DaemonProcess()
        let socket = daemon.socket
        #expect(try nookctl(["enqueue", "--title", "quick", "--dwell", "0.2", "--wait"], socket: socket).status == 0)

        // Dismissed: a blocker dismissed from another process.
        let waiter = try startNookctl(["enqueue", "--title", "Door open", "--blocker", "--wait"], socket: socket)
        try eventually("the blocker on the glass") {
            (try daemon.request(.status))["modules"]?.items.first?["blockedBy"]?["title"] == .string("Door open")
        }
        #expect(try nookctl(["dismiss"], socket: socket).status == 0)
        waiter.waitForExit()
        #expect(waiter.terminationStatus == ExitCodes.dismissed)

        // Coalesced, cancelled and expired, while the queue is held.
        #expect(try nookctl(["suspend"], socket: socket).status == 0)
        let first = try startNookctl(["enqueue", "--title", "Build 1", "--key", "build", "--wait"], socket: socket)
        try eventually("Build 1 pending") { (try daemon.request(.status))["modules"]?.items.first?["pending"] == .number(1) }
        #expect(try nookctl(["enqueue", "--title", "Build 2", "--key", "build"], socket: socket).status == 0)
        first.waitForExit()
        #expect(first.terminationStatus == ExitCodes.coalesced)

        let cancelled = try startNookctl(["enqueue", "--title", "Obsolete", "--id", "22222222-3333-4444-8555-666666666666", "--wait"], socket: socket)
        try eventually("Obsolete pending") { (try daemon.request(.status))["modules"]?.items.first?["pending"] == .number(2) }
        #expect(try nookctl(["cancel", "22222222-3333-4444-8555-666666666666"], socket: socket).status == 0)
        cancelled.waitForExit()
        #expect(cancelled.terminationStatus == ExitCodes.cancelled)

        let expiring = try startNookctl(["enqueue", "--title", "Stale", "--expires-after", "0.2", "--wait"], socket: socket)
        usleep(400_000)
        try eventually("Stale to expire") { try nookctl(["list"], socket: socket).output.contains("Stale") == false }
        expiring.waitForExit()
        #expect(expiring.terminationStatus == ExitCodes.expired)
        #expect(daemon.stop().status == 0)
    }

    @Test func c2_everyOperationHasASubcommandWithJSONOutputAndMeaningfulExitCodes() throws {
        let daemon = try DaemonProcess()
        let socket = daemon.socket
        let status = try nookctl(["status", "--json"], socket: socket)
        #expect(status.status == 0)
        #expect(try JSONValue.parse(Array(status.output.utf8.dropLast()))["foreground"] == .string("default"))
        #expect(try nookctl(["suspend", "--json"], socket: socket).status == 0)
        let id = try nookctl(["enqueue", "--title", "Listed", "--priority", "high"], socket: socket).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let list = try nookctl(["list"], socket: socket)
        #expect(list.output.contains(id) && list.output.contains("\"Listed\""))
        #expect(try nookctl(["cancel-all", "nothing"], socket: socket).output.contains("cancelled 0"))
        #expect(try nookctl(["resume"], socket: socket).status == 0)
        #expect(try nookctl(["quiesce"], socket: socket).status == 0)
        #expect(try nookctl(["home", "text", "--text", "Quiet hours"], socket: socket).output.contains("Quiet hours"))
        let snapshot = try nookctl(["snapshot", "-o", daemon.scratch.path + "/snap.png"], socket: socket)
        #expect(snapshot.status == 0 && snapshot.output.contains("1280x400"))
        let png = try Data(contentsOf: URL(fileURLWithPath: daemon.scratch.path + "/snap.png"))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG file")
        #expect(try nookctl(["focus", "default"], socket: socket).status == 0)

        // Exit codes: refused, not found, unreachable, usage.
        #expect(try nookctl(["focus", "nosuch"], socket: socket).status == ExitCodes.refused)
        #expect(try nookctl(["cancel", "11111111-2222-4333-8444-555555555555"], socket: socket).status == ExitCodes.notFound)
        #expect(try nookctl(["dismiss"], socket: socket).status == ExitCodes.notFound)
        let unreachable = try nookctl(["status"], socket: daemon.scratch.path + "/none.sock")
        #expect(unreachable.status == ExitCodes.unreachable && unreachable.error.contains("is nookd running?"))
        let usage = try nookctl(["enqueue", "--title", "x", "--priority", "urgent"], socket: socket)
        #expect(usage.status == 64 && usage.error.contains("--priority"))
        let failedJSON = try nookctl(["focus", "nosuch", "--json"], socket: socket)
        #expect(try JSONValue.parse(Array(failedJSON.output.utf8.dropLast()))["exitCode"] == .number(1))
        #expect(daemon.stop().status == 0)
    }

    /// `nookctl --socket P enqueue …` used to fail with "Unknown option '--socket'".
    @Test func c2_globalOptionsWorkBeforeTheSubcommand() throws {
        let daemon = try DaemonProcess()
        let enqueued = try nookctl(["--socket", daemon.socket, "enqueue", "--title", "First"], socket: nil)
        #expect(enqueued.status == 0, "\(enqueued.error)")
        #expect(NookActivityID(enqueued.output.trimmingCharacters(in: .whitespacesAndNewlines)) != nil)
        let status = try nookctl(["--json", "--socket=\(daemon.socket)", "status"], socket: nil)
        #expect(status.status == 0, "\(status.error)")
        #expect(try JSONValue.parse(Array(status.output.utf8.dropLast()))["foreground"] == .string("default"))
        #expect(daemon.stop().status == 0)
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func c2_shellCompletionScriptsNameTheSubcommands(shell: String) throws {
        let script = try nookctl(["--generate-completion-script", shell], socket: nil)
        #expect(script.status == 0)
        for subcommand in ["enqueue", "cancel-all", "watch", "snapshot", "focus"] { #expect(script.output.contains(subcommand)) }
    }
}

@Suite("C4 socket access", .serialized, .ownThreads)
struct AccessTests {
    @Test func c4_socketIsGroupOnlyAndPeersAreLogged() throws {
        let daemon = try DaemonProcess()
        let attributes = try FileManager.default.attributesOfItem(atPath: daemon.socket)
        #expect((attributes[.posixPermissions] as? Int) == 0o660)
        try daemon.request(.status)
        try eventually("the peer in the log") { daemon.log.contains("client connected") && daemon.log.contains("uid 0") }
        #expect(!daemon.log.contains("tcp") && !daemon.log.contains("0.0.0.0"), "no network listener")
        #expect(daemon.stop().status == 0)
    }

    @Test func c4_anAllowListRefusesOtherUsers() throws {
        let scratch = Scratch()
        let config = scratch.file("nook.toml", "[daemon]\nsocket_mode = \"0666\"\nallowed_uids = [4242]\n")
        chmod(scratch.path, 0o755)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", Built.nookctl, "status", "--socket", daemon.socket]
        let error = Pipe.closedOnExec()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        try process.runAlone()
        process.waitForExit()
        let message = String(decoding: error.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == ExitCodes.refused, "\(message)")
        #expect(message.contains("uid 65534 is not allowed"))
        #expect(daemon.log.contains("refused a client that is not allowed"))
        #expect(try nookctl(["status"], socket: daemon.socket).status == 0, "root is always allowed")
        #expect(daemon.stop().status == 0)
    }

    @Test func c4_aStaleSocketIsReplacedButALiveDaemonsIsNeverStolen() throws {
        let scratch = Scratch()
        let first = try DaemonProcess(scratch: scratch)
        let second = try DaemonProcess.exited(scratch: scratch, arguments: [])
        #expect(second.process.terminationStatus == 1)
        #expect(second.log.contains("another nookd is already listening"))
        #expect(try nookctl(["status"], socket: first.socket).status == 0, "the first still serves")

        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitForExit()
        #expect(FileManager.default.fileExists(atPath: first.socket), "a killed daemon leaves its socket behind")
        let third = try DaemonProcess(scratch: scratch)
        #expect(third.log.contains("replacing stale socket"))
        #expect(try nookctl(["status"], socket: third.socket).status == 0)

        // A restart where the new daemon binds before the old one has finished stopping: the
        // old one must not remove the socket file that is no longer its own.
        try FileManager.default.removeItem(atPath: third.socket)
        let successor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(successor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in third.socket.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(successor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        #expect(third.stop().status == 0)
        #expect(FileManager.default.fileExists(atPath: third.socket), "the successor's socket file is left alone")
    }
}

/// JSON lines a child process writes to a pipe, read with a bound.
final class PipeLines {
    private let handle: FileHandle
    private var pending: [UInt8] = []

    init(_ pipe: Pipe) { handle = pipe.fileHandleForReading }

    /// The next line for which `wanted` holds, skipping others; nil when none came within `seconds`.
    func next(within seconds: Double, where wanted: (JSONValue) -> Bool = { _ in true }) throws -> JSONValue? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = try JSONValue.parse(Array(pending[..<newline]))
                pending.removeSubrange(...newline)
                if wanted(line) { return line }
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var entry = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(left * 1000) + 1) > 0 else { continue }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            pending += chunk
        }
    }
}
