#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookNotify
import NookProtocol
import NookSystem

/// The notification bridge with a release nookd (mock display) and nook-notify on a
/// private bus. `notify_send_vs_dunst`: Debian's `notify-send` until it returns, against
/// nook-notify over dunst 1.9 (under Xvfb, on a second private bus), interleaved;
/// `notify_to_first_frame_ms_p99`: a Notify call on a live connection until the mock display's
/// first frame of the card; `notify_bridge_idle_rss_mib`: the bridge after 50 notifications,
/// idle once their cards have ended. Every figure in rounds, with its spread.
struct NotifyFigures {
    let daemon: DaemonFigures
    var scratch: String { daemon.scratch + "/notify" }

    /// A process of the figure's own, stopped when the figure is done.
    final class Started {
        let pid: pid_t
        let stop: (pid_t) -> Void
        init(_ pid: pid_t, stop: @escaping (pid_t) -> Void) { (self.pid, self.stop) = (pid, stop) }
        deinit { stop(pid) }
    }

    func prepare() throws {
        let status = getenv("NOOK_BENCH_NO_BUILD") != nil ? 0 : spawnAndWait("/usr/bin/env", ["swift", "build", "-c", "release", "--static-swift-stdlib",
                                                   "--package-path", daemon.packageRoot, "--product", "nook-notify"], quiet: true)
        guard status == 0 else { throw BenchError("could not build nook-notify (swift build exited \(status))") }
        for tool in ["/usr/bin/dbus-daemon", "/usr/bin/notify-send"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw BenchError("needs \(tool): Hardware/dev/install-deps")
        }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    /// A private session bus; its address.
    func startBus(_ name: String) throws -> (Started, String) {
        let path = scratch + "/" + name
        var pid: pid_t = 0
        guard spawn(["/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=unix:path=" + path], pid: &pid, quiet: true) == 0 else {
            throw BenchError("could not start dbus-daemon")
        }
        let bus = Started(pid, stop: daemon.stop)
        try waitFor("the bus \(name)") { fileExists(path) }
        return (bus, "unix:path=" + path)
    }

    /// nook-notify on `address`, once it answers a Notify (the answer is the first card).
    func startBridge(address: String, socket: String) throws -> Started {
        setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)
        var pid: pid_t = 0
        guard spawn([daemon.binaries + "/nook-notify", "--socket", socket, "--log-level", "warning"], pid: &pid, quiet: true) == 0 else {
            throw BenchError("could not start nook-notify")
        }
        let bridge = Started(pid, stop: daemon.stop)
        try waitFor("nook-notify to own the name") { (try? NotificationClient().notify(summary: "warm-up", expireTimeout: 1)) != nil }
        return bridge
    }

    func waitFor(_ what: String, seconds: Double = 20, _ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if condition() { return }
            usleep(10_000)
        }
        throw BenchError("timed out waiting for \(what)")
    }

    /// `notify-send` on the bus at `address`, until it returns: milliseconds. One stack tag, so
    /// neither server piles the cards up.
    func notifySend(_ address: String, _ index: Int) -> Double {
        setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)
        return timed { spawnAndWait("/usr/bin/notify-send", ["-h", "string:x-dunst-stack-tag:bench", "-t", "500", "Bench \(index)"], quiet: true) }
    }

    /// Rounds of the ratio of notify-send's wall time against nook-notify over against dunst,
    /// or why dunst could not be measured.
    func versusDunst(ours: String) throws -> Spread {
        let xvfb = "/usr/bin/Xvfb", dunst = "/usr/bin/dunst"
        guard FileManager.default.isExecutableFile(atPath: xvfb), FileManager.default.isExecutableFile(atPath: dunst) else {
            throw BenchError("needs dunst and Xvfb: Hardware/dev/install-deps")
        }
        let display = ":\(100 + getpid() % 400)"
        var pid: pid_t = 0
        guard spawn([xvfb, display, "-nolisten", "tcp", "-screen", "0", "1280x400x24"], pid: &pid, quiet: true) == 0 else {
            throw BenchError("could not start Xvfb")
        }
        let server = Started(pid, stop: daemon.stop)
        let (dunstBus, theirs) = try startBus("dunst-bus")
        try waitFor("Xvfb") { fileExists("/tmp/.X11-unix/X" + display.dropFirst()) }
        setenv("DISPLAY", display, 1)
        setenv("DBUS_SESSION_BUS_ADDRESS", theirs, 1)
        guard spawn([dunst], pid: &pid, quiet: true) == 0 else { throw BenchError("could not start dunst") }
        let dunstProcess = Started(pid, stop: daemon.stop)
        unsetenv("DISPLAY")
        try waitFor("dunst to answer") {
            setenv("DBUS_SESSION_BUS_ADDRESS", theirs, 1)
            return spawnAndWait("/usr/bin/notify-send", ["ready"], quiet: true) == 0
        }
        var ratios: [Double] = []
        for _ in 0..<5 {
            var mine: [Double] = [], dunsts: [Double] = []
            for index in 0..<20 {
                dunsts.append(notifySend(theirs, index))
                mine.append(notifySend(ours, index))
            }
            ratios.append(NookBench.median(mine) / NookBench.median(dunsts))
            if getenv("NOOK_BENCH_VERBOSE") != nil {
                print("  notify-send ms, nook-notify: \(rounded(NookBench.median(mine))), dunst: \(rounded(NookBench.median(dunsts)))")
            }
        }
        withExtendedLifetime((server, dunstBus, dunstProcess)) {}
        return Spread(rounds: ratios)
    }

    /// One round: `count` notifications, each sent on an idle glass, from the Notify call to
    /// the moment the mock display presented the card's first frame, as nookd dated the frame's
    /// file (``PresentedFrameFiles``). The p99 (with 40 samples, the largest but one).
    func firstFrameRound(frames: String, socket: String, count: Int = 40) throws -> Double {
        let client = try NotificationClient()
        let nookd = try NookClient(path: socket)
        let watcher = try PresentedFrameFiles(directory: frames)
        var samples: [Double] = []
        // Where the time goes (NOOK_BENCH_VERBOSE): the Notify call until its answer (the bus,
        // nook-notify and nookd's enqueue), beside the same call until the frame.
        var answers: [Double] = []
        for index in 0..<count {
            try PresentedFrameFiles.waitForIdleGlass(nookd)
            watcher.waitForQuiet()
            // The call runs on a thread of its own, so the frame is noticed when it appears even
            // if it comes before the call's answer (nook-notify answers once nookd has
            // answered the enqueue, and nookd may present first).
            let call = NotifyCall(client: client, summary: "Backup \(index) complete")
            let caller = Thread { call.run() }
            let start = ContinuousClock.now
            let startWall = PresentedFrameFiles.wallClockNanoseconds()
            caller.start()
            guard let file = watcher.next(withinMilliseconds: 10_000) else { throw BenchError("no frame of the card within 10 s") }
            let presented = try watcher.presented(file)
            let (answered, failure) = call.wait()
            if let failure { throw BenchError("Notify failed: \(failure)") }
            samples.append(Double(presented - startWall) / 1e6)
            answers.append((answered - start).nookSeconds * 1000)
        }
        if getenv("NOOK_BENCH_VERBOSE") != nil {
            print("  notify-to-frame samples (ms):", samples.sorted().map(rounded))
            print("  Notify answered after (ms), same order:", zip(samples, answers).sorted { $0.0 < $1.0 }.map { rounded($0.1) })
        }
        samples.sort()
        return samples[Int(Double(samples.count - 1) * 0.99)]
    }

    /// One `Notify` on another thread: when its answer came, or why it failed.
    final class NotifyCall: @unchecked Sendable {
        private let client: NotificationClient
        private let summary: String
        private let done = NSCondition()
        private var result: (ContinuousClock.Instant, String?)?

        init(client: NotificationClient, summary: String) { (self.client, self.summary) = (client, summary) }

        func run() {
            var failure: String?
            do { _ = try client.notify(summary: summary, body: "1,204 files", expireTimeout: 1) } catch { failure = "\(error)" }
            let answered = ContinuousClock.now
            done.lock()
            result = (answered, failure)
            done.signal()
            done.unlock()
        }

        func wait() -> (ContinuousClock.Instant, String?) {
            done.lock()
            defer { done.unlock() }
            while result == nil { done.wait() }
            return result!
        }
    }

    /// nook-notify's resident memory after 50 notifications and 2 s idle, each round a fresh
    /// bridge. Idle means the cards are gone too: until then each of them sends the bridge its
    /// events (2 s after the last call, most of the 50 were still to slide through).
    func idleRSSRound(address: String, socket: String) throws -> Double {
        let bridge = try startBridge(address: address, socket: socket)
        let client = try NotificationClient()
        for index in 0..<50 { _ = try client.notify(summary: "Idle \(index)", expireTimeout: 1) }
        let nookd = try NookClient(path: socket)
        try waitFor("the cards to end", seconds: 120) {
            guard let answer = try? nookd.request(Request(id: .number(1), operation: .list(module: nil)), as: ListAnswer.self) else { return false }
            return answer.0.modules.allSatisfy { $0.current == nil && $0.pending.isEmpty }
        }
        sleep(2)
        return Double(daemon.statusField(pid: bridge.pid, "VmRSS:") ?? 0) / 1024
    }
}

func reportNotifyFigures(_ figures: DaemonFigures) {
    do {
        try figures.prepare()
        let notify = NotifyFigures(daemon: figures)
        try notify.prepare()
        let socket = notify.scratch + "/nookd.sock"
        let frames = notify.scratch + "/frames"
        let nookd = NotifyFigures.Started(try figures.startDaemon(socket: socket, extra: ["--frames", frames]), stop: figures.stop)
        // A blank home: the clock's minute tick would be a frame of its own.
        _ = try NookClient(path: socket).request(Request(id: .number(1), operation: .home(.blank)))
        let (bus, address) = try notify.startBus("bus")
        var firstFrame = Spread(rounds: [])
        do {
            let bridge = try notify.startBridge(address: address, socket: socket)
            do {
                report("notify_send_vs_dunst", try notify.versusDunst(ours: address))
            } catch {
                print("notify_send_vs_dunst not measured: \(error)")
            }
            setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)
            firstFrame = Spread(rounds: try (0..<3).map { _ in try notify.firstFrameRound(frames: frames, socket: socket) })
            report("notify_to_first_frame_ms_p99", firstFrame)
            withExtendedLifetime(bridge) {}
        }
        let rss = Spread(rounds: try (0..<3).map { _ in try notify.idleRSSRound(address: address, socket: socket) })
        report("notify_bridge_idle_rss_mib", rss)
        unsetenv("DBUS_SESSION_BUS_ADDRESS")
        withExtendedLifetime((nookd, bus)) {}
        for (name, met) in [("notify_to_first_frame_ms_p99 <= 5", firstFrame.median <= 5), ("notify_bridge_idle_rss_mib <= 8", rss.median <= 8)] where !met {
            print("  goal not met: \(name)")
        }
    } catch {
        print("notify figures skipped: \(error)")
    }
}
