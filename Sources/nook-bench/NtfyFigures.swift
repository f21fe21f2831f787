#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookActivities
import NookProtocol
import NookSystem

/// nook-http beside ntfy, its strongest anchor (`nook-bench ntfy`): Debian 13's `ntfy serve`
/// from the Debian 13 root the test command makes (started through the root's own loader and
/// libraries, its cache file on, as a packaged ntfy runs), and a release nook-http in front of a
/// journaled release nookd, measured in alternating rounds in one run:
/// - the same ntfy publish (`POST /nook-bench` with `X-Sequence-ID`, so Nook updates one card in
///   place as ntfy keeps one sequence) over 16 keep-alive connections: p50, p99 and rate;
/// - a fresh message's publish until Nook's first frame of its card on the mock glass, against
///   ntfy's publish until the message's line reaches a subscriber of the topic (`/TOPIC/json`);
/// - the idle memory of the stack (nookd and nook-http) against ntfy's, after the runs.
/// Without the root's ntfy it says so and prints no figure.
struct NtfyFigures {
    let http: HTTPFigures
    let connections = 16
    let callsPerConnection = 100

    /// ntfy's binary and the loader and library path it runs with, or why not.
    static func ntfyCommand() throws -> [String] {
        let roots = getenv("NOOK_ROOTS").map { String(cString: $0) } ?? "/var/cache/nook/roots"
        var name = utsname()
        uname(&name)
        let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let (arch, triple, loader) = machine == "aarch64" ? ("arm64", "aarch64-linux-gnu", "/lib/ld-linux-aarch64.so.1")
                                                          : ("amd64", "x86_64-linux-gnu", "/lib64/ld-linux-x86-64.so.2")
        let root = roots + "/trixie-" + arch
        guard FileManager.default.isExecutableFile(atPath: root + "/usr/bin/ntfy") else {
            throw BenchError("no Debian 13 ntfy at \(root)/usr/bin/ntfy (Hardware/dev/install-deps installs it into the root the test command makes)")
        }
        return [root + loader, "--library-path", "\(root)/lib/\(triple):\(root)/usr/lib/\(triple)", root + "/usr/bin/ntfy"]
    }

    struct Result {
        var nookP50 = [Double](), nookP99 = [Double](), nookRate = [Double]()
        var ntfyP50 = [Double](), ntfyP99 = [Double](), ntfyRate = [Double]()
        var firstFrameP50 = [Double](), deliveryP50 = [Double]()
        var stackIdleMiB = 0.0, ntfyIdleMiB = 0.0
    }

    func run(rounds count: Int = 3) throws -> Result {
        let ntfy = try startNtfy()
        defer { http.daemon.stop(ntfy.pid) }
        var result = Result()
        do {
            let pair = try http.start("ntfy")
            for round in 0..<count {
                // Alternated: neither side always runs first, into a machine the other warmed.
                for side in round.isMultiple(of: 2) ? ["nook", "ntfy"] : ["ntfy", "nook"] {
                    let calls = try publishRound(port: side == "nook" ? pair.port : ntfy.port)
                    if side == "nook" {
                        (result.nookP50, result.nookP99, result.nookRate) = (result.nookP50 + [calls.p50], result.nookP99 + [calls.p99], result.nookRate + [calls.rate])
                    } else {
                        (result.ntfyP50, result.ntfyP99, result.ntfyRate) = (result.ntfyP50 + [calls.p50], result.ntfyP99 + [calls.p99], result.ntfyRate + [calls.rate])
                    }
                }
            }
        }
        do {
            let frames = http.scratch + "/ntfy-frames"
            let pair = try http.start("ntfy-frames", extra: ["--frames", frames])
            _ = try NookClient(path: pair.socket).request(Request(id: .number(1), operation: .home(.blank)))
            for round in 0..<count {
                result.firstFrameP50.append(try firstFrameRound(pair: pair, frames: frames, round: round))
                result.deliveryP50.append(try deliveryRound(port: ntfy.port, round: round))
            }
            // Idle as `daemon_idle_rss_mib` reads nookd: 12 s after the last card, past the
            // 10 s after which an idle glass lets go of its frames and nookd of its pages.
            usleep(12_000_000)
            result.stackIdleMiB = http.daemon.rssMiB(pid: pair.nookd) + http.daemon.rssMiB(pid: pair.server)
            result.ntfyIdleMiB = http.daemon.rssMiB(pid: ntfy.pid)
        }
        return result
    }

    private func startNtfy() throws -> (pid: pid_t, port: Int) {
        let config = http.scratch + "/ntfy-server.yml"
        // Loopback exempt from ntfy's per-visitor rate limit (60 at once), as nook-http's own
        // limits let the benchmark's loopback clients through; and its cache's writes batched,
        // ntfy's own remedy for a busy cache: without it 16 publishers at once get some 500s
        // ("database is locked"). Batched, ntfy answers before the message is in the file.
        let settings = "visitor-request-limit-exempt-hosts: \"127.0.0.1\"\ncache-batch-size: 25\ncache-batch-timeout: \"1s\"\n"
        _ = FileManager.default.createFile(atPath: config, contents: Data(settings.utf8))
        try? FileManager.default.removeItem(atPath: http.scratch + "/ntfy-cache.db")
        let port = 40_000 + Int(getpid() % 20_000)
        var pid: pid_t = 0
        let arguments = try Self.ntfyCommand() + ["serve", "--config", config, "--listen-http", "127.0.0.1:\(port)",
                                                  "--cache-file", http.scratch + "/ntfy-cache.db", "--log-level", "warn"]
        // Its log kept: an answer of 500 is explained only there.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, http.scratch + "/ntfy.log", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        guard case .success(let child) = ChildSpawns.spawn(arguments, fileActions: &actions) else { throw BenchError("could not start ntfy") }
        pid = child
        for _ in 0..<500 where http.probe("http://127.0.0.1:\(port)/v1/health") != 200 { usleep(10_000) }
        guard http.probe("http://127.0.0.1:\(port)/v1/health") == 200 else {
            http.daemon.stop(pid)
            throw BenchError("ntfy did not answer /v1/health on port \(port)")
        }
        return (pid, port)
    }

    /// The ntfy publish both servers take, byte for byte.
    static func publish(topic: String, message: String, sequence: String?) -> [UInt8] {
        let body = Array(message.utf8)
        let sequenceHeader = sequence.map { "X-Sequence-ID: \($0)\r\n" } ?? ""
        return Array("POST /\(topic) HTTP/1.1\r\nHost: localhost\r\n\(sequenceHeader)Content-Length: \(body.count)\r\n\r\n".utf8) + body
    }

    /// `connections` keep-alive connections publishing at once, each call by call: every call's
    /// time from writing the request to reading its whole answer, and the rate over the round.
    private func publishRound(port: Int) throws -> (p50: Double, p99: Double, rate: Double) {
        let latencies = Locked<[Double]>([])
        let failure = Locked<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let calls = callsPerConnection
        let start = ContinuousClock.now
        for connection in 0..<connections {
            Thread {
                var mine: [Double] = []
                do {
                    let client = try HTTPBenchClient(port: port)
                    for call in 0..<calls {
                        let request = Self.publish(topic: "nook-bench", message: "Backup \(connection).\(call) complete", sequence: "nook-bench")
                        let began = ContinuousClock.now
                        try client.send(request)
                        let answer = try client.response()
                        guard answer.status == 200 else { throw BenchError("a publish answered \(answer.status): \(String(decoding: answer.body.prefix(200), as: UTF8.self))") }
                        mine.append((ContinuousClock.now - began).nookSeconds * 1000)
                    }
                } catch {
                    failure.withLock { $0 = $0 ?? "\(error)" }
                }
                latencies.withLock { $0 += mine }
                done.signal()
            }.start()
        }
        for _ in 0..<connections { done.wait() }
        let seconds = (ContinuousClock.now - start).nookSeconds
        if let failure = failure.withLock({ $0 }) { throw BenchError("port \(port): \(failure) (ntfy's log: \(http.scratch)/ntfy.log)") }
        let sorted = latencies.withLock { $0 }.sorted()
        return (sorted[sorted.count / 2], sorted[Int(Double(sorted.count - 1) * 0.99)], Double(sorted.count) / seconds)
    }

    /// Nook: a fresh message (no sequence id) published on an idle glass until its card's first
    /// frame is presented; the median of 50.
    private func firstFrameRound(pair: HTTPFigures.Pair, frames: String, round: Int) throws -> Double {
        let client = try HTTPBenchClient(port: pair.port)
        let nookd = try NookClient(path: pair.socket)
        let watcher = try PresentedFrameFiles(directory: frames)
        var samples: [Double] = []
        for index in 0..<50 {
            try PresentedFrameFiles.waitForIdleGlass(nookd)
            watcher.waitForQuiet()
            let start = PresentedFrameFiles.wallClockNanoseconds()
            try client.send(Self.publish(topic: "nook-bench", message: "Backup \(round).\(index) complete", sequence: nil))
            guard let file = watcher.next(withinMilliseconds: 10_000) else { throw BenchError("no frame of the published card within 10 s") }
            samples.append(Double(try watcher.presented(file) - start) / 1e6)
            guard try client.response().status == 200 else { throw BenchError("a publish was refused") }
            // An ntfy card stays its default dwell: dismissed, so the next one meets an idle glass soon.
            _ = try nookd.request(Request(id: .number(2), operation: .dismiss(nil)))
        }
        return median(samples)
    }

    /// ntfy: a subscriber holds `GET /nook-bench-delivery/json`; a publish until its message's
    /// line reaches it; the median of 50.
    private func deliveryRound(port: Int, round: Int) throws -> Double {
        let subscriber = try HTTPBenchClient(port: port)
        try subscriber.send(Array("GET /nook-bench-delivery/json HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        try subscriber.waitForLine(containing: "\"event\":\"open\"")
        let publisher = try HTTPBenchClient(port: port)
        var samples: [Double] = []
        for index in 0..<50 {
            let message = "Backup \(round).\(index) delivered"
            let start = ContinuousClock.now
            try publisher.send(Self.publish(topic: "nook-bench-delivery", message: message, sequence: nil))
            try subscriber.waitForLine(containing: message)
            samples.append((ContinuousClock.now - start).nookSeconds * 1000)
            guard try publisher.response().status == 200 else { throw BenchError("ntfy refused a publish") }
        }
        return median(samples)
    }
}

func reportNtfyFigures(_ figures: DaemonFigures) {
    do {
        _ = try NtfyFigures.ntfyCommand()
        let result = try NtfyFigures(http: try HTTPFigures.prepared(figures)).run()
        func ratios(_ nook: [Double], _ ntfy: [Double]) -> Spread { Spread(rounds: zip(nook, ntfy).map { $0 / $1 }) }
        report("http_publish_p50_ms", Spread(rounds: result.nookP50))
        report("ntfy_publish_p50_ms", Spread(rounds: result.ntfyP50))
        report("http_publish_p99_vs_ntfy", ratios(result.nookP99, result.ntfyP99))
        report("http_publish_p50_vs_ntfy", ratios(result.nookP50, result.ntfyP50))
        report("http_publish_per_s_vs_ntfy", ratios(result.nookRate, result.ntfyRate))
        report("http_publish_to_first_frame_vs_ntfy_delivery_p50", ratios(result.firstFrameP50, result.deliveryP50))
        func spread(_ rounds: [Double]) -> String {
            let values = Spread(rounds: rounds)
            return "\(rounded(values.median)) (\(rounded(values.min))–\(rounded(values.max)))"
        }
        print("  http_publish_per_s \(spread(result.nookRate)), ntfy's \(spread(result.ntfyRate))")
        print("  http_publish_to_first_frame_ms_p50 \(spread(result.firstFrameP50)), ntfy_delivery_ms_p50 \(spread(result.deliveryP50))")
        report("stack_idle_rss_vs_ntfy", result.stackIdleMiB / result.ntfyIdleMiB)
        print("  stack_idle_rss_vs_ntfy: nookd and nook-http \(rounded(result.stackIdleMiB)) MiB, ntfy \(rounded(result.ntfyIdleMiB)) MiB")
    } catch {
        print("ntfy figures skipped: \(error)")
    }
}
