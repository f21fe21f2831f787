#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookProtocol
import NookSystem

/// nook-http with a release nookd on the mock display, journaled as the system service runs it
/// (`journal.sync = "ack"`: every answer after its record's `fdatasync`). Per call, over one
/// keep-alive loopback connection (``HTTPLatencyFigures``): a publish until its card's first
/// frame, and the same enqueue through nook-http against nookd's socket. Loaded by Debian's
/// `wrk` over keep-alive connections: requests a second through the server and its pipelined
/// link to nookd (`/healthz` is a `status` call), cards published a second (`POST
/// /api/v1/activities`) with the CPU time each costs nook-http and nookd, and the server's
/// resident memory idle after the load.
struct HTTPFigures {
    let daemon: DaemonFigures
    var scratch: String { daemon.scratch + "/http" }

    /// nookd and nookctl built (``DaemonFigures/prepare()``), a release nook-http beside them
    /// (unless NOOK_BENCH_NO_BUILD), and the scratch folder: what each nook-http figure needs first.
    static func prepared(_ daemon: DaemonFigures) throws -> HTTPFigures {
        try daemon.prepare()
        let figures = HTTPFigures(daemon: daemon)
        if getenv("NOOK_BENCH_NO_BUILD") == nil {
            let status = spawnAndWait("/usr/bin/env", ["swift", "build", "-c", "release", "--static-swift-stdlib",
                                                       "--package-path", daemon.packageRoot, "--product", "nook-http"], quiet: true)
            guard status == 0 else { throw BenchError("could not build nook-http (swift build exited \(status))") }
        }
        try FileManager.default.createDirectory(atPath: figures.scratch, withIntermediateDirectories: true)
        return figures
    }

    struct Result {
        var publishToFirstFrameP99: Spread
        var publishToFirstFrameMedian: Spread
        var socketToFirstFrameP99: Spread
        var socketToFirstFrameMedian: Spread
        /// Of the first-frame samples, the share in percent during which the host stole CPU time.
        var firstFrameStolenPercent: Spread
        var versusSocket: Spread
        var httpEnqueueMilliseconds: Spread
        var socketEnqueueMilliseconds: Spread
        var versusNookctl: Spread
        var healthzPerSecond: Spread
        var publishPerSecond: Spread
        var httpCPUMicroseconds: Spread
        var nookdCPUMicroseconds: Spread
        var idleRSSMiB: Double
        /// The load average just after each figure was measured, by figure name.
        var loads: [String: String] = [:]
    }

    /// A release nookd (journaled; `extra` arguments) and a release nook-http in front of it.
    final class Pair {
        let nookd: pid_t, server: pid_t, port: Int, socket: String
        let stop: (pid_t) -> Void
        init(nookd: pid_t, server: pid_t, port: Int, socket: String, stop: @escaping (pid_t) -> Void) {
            (self.nookd, self.server, self.port, self.socket, self.stop) = (nookd, server, port, socket, stop)
        }
        var url: String { "http://127.0.0.1:\(port)" }
        deinit {
            stop(server)
            stop(nookd)
        }
    }

    func start(_ name: String, extra: [String] = []) throws -> Pair {
        let socket = scratch + "/\(name).sock"
        // As the system service runs it: each enqueue durable before it is acknowledged.
        let nookd = try daemon.startDaemon(socket: socket, extra: ["--journal", scratch + "/journal-\(name)"] + extra)
        let port = 20_000 + Int(getpid() % 20_000) + 1
        var server: pid_t = 0
        guard spawn([daemon.binaries + "/nook-http", "--socket", socket, "--listen", "127.0.0.1:\(port)", "--log-level", "warning"],
                    pid: &server, quiet: true) == 0 else {
            daemon.stop(nookd)
            throw BenchError("could not start nook-http")
        }
        let pair = Pair(nookd: nookd, server: server, port: port, socket: socket, stop: daemon.stop)
        for _ in 0..<500 where probe(pair.url + "/healthz") != 200 { usleep(10_000) }
        guard probe(pair.url + "/healthz") == 200 else { throw BenchError("nook-http did not answer /healthz") }
        return pair
    }

    func run() throws -> Result {
        let status = getenv("NOOK_BENCH_NO_BUILD") != nil ? 0 : spawnAndWait("/usr/bin/env", ["swift", "build", "-c", "release", "--static-swift-stdlib",
                                                   "--package-path", daemon.packageRoot, "--product", "nook-http"], quiet: true)
        guard status == 0 else { throw BenchError("could not build nook-http (swift build exited \(status))") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") else { throw BenchError("needs wrk: Hardware/dev/install-deps") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") else { throw BenchError("needs curl: Hardware/dev/install-deps") }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        var loads: [String: String] = [:]

        // The first frame: a nookd that dates each presented frame's file, on a blank home (the
        // clock's minute tick would be a frame of its own). Its frame writer encodes every frame
        // as a PNG, work the other figures are kept apart from.
        let frames = scratch + "/frames"
        var firstFrame: (p99: Spread, median: Spread, socketP99: Spread, socketMedian: Spread, stolenPercent: Spread)
        do {
            let pair = try start("frames", extra: ["--frames", frames])
            _ = try NookClient(path: pair.socket).request(Request(id: .number(1), operation: .home(.blank)))
            let figures = HTTPLatencyFigures(daemon: daemon, port: pair.port, socket: pair.socket)
            var medians: [Double] = [], socketP99s: [Double] = [], socketMedians: [Double] = [], stolen: [Double] = []
            var round = 0
            let p99 = try rounds(3) {
                round += 1
                let result = try figures.publishToFirstFrameRound(frames: frames, round: round)
                medians.append(result.median)
                socketP99s.append(result.socketP99)
                socketMedians.append(result.socketMedian)
                stolen.append(result.stolenPercent)
                return result.p99
            }
            firstFrame = (p99, Spread(rounds: medians), Spread(rounds: socketP99s), Spread(rounds: socketMedians), Spread(rounds: stolen))
            loads["http_publish_to_first_frame_ms_p99"] = Machine.loadAverage()
        }

        let pair = try start("api")
        let figures = HTTPLatencyFigures(daemon: daemon, port: pair.port, socket: pair.socket)
        var httpMilliseconds: [Double] = [], socketMilliseconds: [Double] = []
        let versusSocket = try rounds(5) {
            let round = try figures.versusSocketRound()
            httpMilliseconds.append(round.httpMilliseconds)
            socketMilliseconds.append(round.socketMilliseconds)
            return round.ratio
        }
        loads["http_vs_socket_enqueue"] = Machine.loadAverage()
        let versusNookctl = try rounds(5) { try figures.versusNookctlRound() }
        loads["http_vs_socket_enqueue_process"] = Machine.loadAverage()

        let healthz = try rounds(3) { try wrk(pair.url + "/healthz", script: nil).rate }
        loads["http_healthz_per_s"] = Machine.loadAverage()
        let script = scratch + "/publish.lua"
        // One key: each publish replaces the pending card, so nookd's queue stays one deep
        // and the figure is the path's, not the queue's bound.
        try """
            wrk.method = "POST"
            wrk.headers["Content-Type"] = "application/json"
            wrk.body = '{"title":"Benchmark","subtitle":"from wrk","key":"nook-bench-http"}'
            """.write(toFile: script, atomically: true, encoding: .utf8)
        // CPU time per publish (user + system, /proc/PID/stat) in nook-http and in nookd over
        // each round: what a publish costs each process, which load moves far less than the rate.
        var httpCPU: [Double] = [], nookdCPU: [Double] = []
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let publish = try rounds(3) {
            let (serverBefore, nookdBefore) = (daemon.cpuTicks(pid: pair.server), daemon.cpuTicks(pid: pair.nookd))
            let result = try wrk(pair.url + NativeAPIPath.activities, script: script)
            let (serverAfter, nookdAfter) = (daemon.cpuTicks(pid: pair.server), daemon.cpuTicks(pid: pair.nookd))
            httpCPU.append(Double(serverAfter - serverBefore) / ticksPerSecond * 1e6 / Double(result.requests))
            nookdCPU.append(Double(nookdAfter - nookdBefore) / ticksPerSecond * 1e6 / Double(result.requests))
            return result.rate
        }
        loads["http_publish_per_s"] = Machine.loadAverage()
        sleep(3)
        return Result(publishToFirstFrameP99: firstFrame.p99, publishToFirstFrameMedian: firstFrame.median,
                      socketToFirstFrameP99: firstFrame.socketP99, socketToFirstFrameMedian: firstFrame.socketMedian,
                      firstFrameStolenPercent: firstFrame.stolenPercent,
                      versusSocket: versusSocket, httpEnqueueMilliseconds: Spread(rounds: httpMilliseconds),
                      socketEnqueueMilliseconds: Spread(rounds: socketMilliseconds), versusNookctl: versusNookctl,
                      healthzPerSecond: healthz, publishPerSecond: publish,
                      httpCPUMicroseconds: Spread(rounds: httpCPU), nookdCPUMicroseconds: Spread(rounds: nookdCPU),
                      idleRSSMiB: daemon.rssMiB(pid: pair.server), loads: loads)
    }

    func rounds(_ count: Int, _ round: () throws -> Double) rethrows -> Spread {
        var values: [Double] = []
        for _ in 0..<count { values.append(try round()) }
        return Spread(rounds: values)
    }

    /// `wrk` for 3 s over 32 keep-alive connections on 2 threads: its requests a second and how
    /// many it completed. Any answer that is not 2xx makes the round an error rather than a figure.
    func wrk(_ url: String, script: String?) throws -> (rate: Double, requests: Int) {
        let output = try run("/usr/bin/wrk", ["-t2", "-c32", "-d3s", "--latency"] + (script.map { ["-s", $0] } ?? []) + [url])
        let lines = output.split(separator: "\n")
        if let line = lines.first(where: { $0.contains("Non-2xx or 3xx responses") }) {
            throw BenchError("wrk \(url): \(line.trimmingCharacters(in: .whitespaces))")
        }
        // `  12345 requests in 3.00s, 1.23MB read`
        guard let line = lines.first(where: { $0.hasPrefix("Requests/sec:") }),
              let rate = Double(line.dropFirst("Requests/sec:".count).trimmingCharacters(in: .whitespaces)),
              let total = lines.first(where: { $0.contains(" requests in ") }),
              let requests = Int(total.trimmingCharacters(in: .whitespaces).prefix { $0 != " " }), requests > 0 else {
            throw BenchError("wrk printed no rate: \(output)")
        }
        return (rate, requests)
    }

    /// The status of one request (curl), 0 when none came.
    func probe(_ url: String, post body: String? = nil) -> Int {
        let arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5"] + (body.map { ["-X", "POST", "-H", "Content-Type: application/json", "--data", $0] } ?? []) + [url]
        return Int((try? run("/usr/bin/curl", arguments)) ?? "") ?? 0
    }

    func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}

func reportHTTPFigures(_ figures: DaemonFigures) {
    do {
        try figures.prepare()
        let result = try HTTPFigures(daemon: figures).run()
        func load(_ name: String) { if let load = result.loads[name] { print("  \(name) load_average: \(load)") } }
        report("http_publish_to_first_frame_ms_p99", result.publishToFirstFrameP99)
        report("http_publish_to_first_frame_ms_median", result.publishToFirstFrameMedian)
        report("socket_enqueue_to_first_frame_ms_p99", result.socketToFirstFrameP99)
        report("socket_enqueue_to_first_frame_ms_median", result.socketToFirstFrameMedian)
        report("first_frame_samples_stolen_pct", result.firstFrameStolenPercent)
        load("http_publish_to_first_frame_ms_p99")
        report("http_vs_socket_enqueue", result.versusSocket)
        report("http_enqueue_ms", result.httpEnqueueMilliseconds)
        report("socket_enqueue_ms", result.socketEnqueueMilliseconds)
        load("http_vs_socket_enqueue")
        report("http_vs_socket_enqueue_process", result.versusNookctl)
        load("http_vs_socket_enqueue_process")
        report("http_healthz_per_s", result.healthzPerSecond)
        load("http_healthz_per_s")
        report("http_publish_per_s", result.publishPerSecond)
        report("http_publish_cpu_us", result.httpCPUMicroseconds)
        report("http_publish_nookd_cpu_us", result.nookdCPUMicroseconds)
        load("http_publish_per_s")
        report("http_idle_rss_mib", result.idleRSSMiB)
        for (name, met) in [("http_publish_to_first_frame_ms_p99 <= 5", result.publishToFirstFrameP99.median <= 5),
                            ("http_vs_socket_enqueue <= 1.5", result.versusSocket.median <= 1.5),
                            ("http_publish_per_s >= 5000", result.publishPerSecond.median >= 5000),
                            ("http_idle_rss_mib <= 12", result.idleRSSMiB <= 12)] where !met {
            print("  goal not met: \(name)")
        }
    } catch {
        print("HTTP figures skipped: \(error)")
    }
}
