#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookProtocol
import NookSystem

/// nook-http with a release nookd on the mock display, loaded by Debian's `wrk` over keep-alive
/// connections: requests a second through the server and its pipelined link to nookd
/// (`/healthz` is a `status` call), cards published a second (`POST /api/v1/activities`, once
/// that route is in the table), and the server's resident memory idle after the load.
struct HTTPFigures {
    let daemon: DaemonFigures
    var scratch: String { daemon.scratch + "/http" }

    struct Result { var healthzPerSecond: Spread; var publishPerSecond: Spread?; var publishSkipped: String?; var idleRSSMiB: Double }

    func run() throws -> Result {
        let status = getenv("NOOK_BENCH_NO_BUILD") != nil ? 0 : spawnAndWait("/usr/bin/env", ["swift", "build", "-c", "release", "--static-swift-stdlib",
                                                   "--package-path", daemon.packageRoot, "--product", "nook-http"], quiet: true)
        guard status == 0 else { throw BenchError("could not build nook-http (swift build exited \(status))") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") else { throw BenchError("needs wrk: Hardware/dev/install-deps") }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let socket = scratch + "/nookd.sock"
        // As the system service runs it: each enqueue durable before it is acknowledged.
        let nookd = try daemon.startDaemon(socket: socket, extra: ["--journal", scratch + "/journal"])
        defer { daemon.stop(nookd) }
        let port = 20_000 + Int(getpid() % 20_000) + 1
        var server: pid_t = 0
        guard spawn([daemon.binaries + "/nook-http", "--socket", socket, "--listen", "127.0.0.1:\(port)", "--log-level", "warning"],
                    pid: &server, quiet: true) == 0 else { throw BenchError("could not start nook-http") }
        defer { daemon.stop(server) }
        let url = "http://127.0.0.1:\(port)"
        for _ in 0..<500 where probe(url + "/healthz") != 200 { usleep(10_000) }
        guard probe(url + "/healthz") == 200 else { throw BenchError("nook-http did not answer /healthz") }

        let healthz = try rounds(3) { try wrk(url + "/healthz", script: nil) }
        var publish: Spread?
        var skipped: String?
        let script = scratch + "/publish.lua"
        // One key: each publish replaces the pending card, so nookd's queue stays one deep
        // and the figure is the path's, not the queue's bound.
        try """
            wrk.method = "POST"
            wrk.headers["Content-Type"] = "application/json"
            wrk.body = '{"title":"Benchmark","subtitle":"from wrk","key":"nook-bench-http"}'
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let answer = probe(url + "/api/v1/activities", post: #"{"title":"Benchmark","key":"nook-bench-http"}"#)
        if answer == 200 || answer == 201 {
            publish = try rounds(3) { try wrk(url + "/api/v1/activities", script: script) }
        } else {
            skipped = "POST /api/v1/activities answered \(answer) (no create route in this build)"
        }
        sleep(3)
        return Result(healthzPerSecond: healthz, publishPerSecond: publish, publishSkipped: skipped, idleRSSMiB: daemon.rssMiB(pid: server))
    }

    func rounds(_ count: Int, _ round: () throws -> Double) rethrows -> Spread {
        var values: [Double] = []
        for _ in 0..<count { values.append(try round()) }
        return Spread(rounds: values)
    }

    /// `wrk` for 3 s over 32 keep-alive connections on 2 threads: its requests a second. Any
    /// answer that is not 2xx makes the round an error rather than a figure.
    func wrk(_ url: String, script: String?) throws -> Double {
        let output = try run("/usr/bin/wrk", ["-t2", "-c32", "-d3s", "--latency"] + (script.map { ["-s", $0] } ?? []) + [url])
        if let line = output.split(separator: "\n").first(where: { $0.contains("Non-2xx or 3xx responses") }) {
            throw BenchError("wrk \(url): \(line.trimmingCharacters(in: .whitespaces))")
        }
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }),
              let rate = Double(line.dropFirst("Requests/sec:".count).trimmingCharacters(in: .whitespaces)) else {
            throw BenchError("wrk printed no rate: \(output)")
        }
        return rate
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
        report("http_healthz_per_s", result.healthzPerSecond)
        if let publish = result.publishPerSecond {
            report("http_publish_per_s", publish)
            if publish.median < 5000 { print("  goal not met: http_publish_per_s >= 5000") }
        } else if let skipped = result.publishSkipped {
            print("http_publish_per_s skipped: \(skipped)")
        }
        report("http_idle_rss_mib", result.idleRSSMiB)
        if result.idleRSSMiB > 12 { print("  goal not met: http_idle_rss_mib <= 12") }
    } catch {
        print("HTTP figures skipped: \(error)")
    }
}
