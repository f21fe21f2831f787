#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookProtocol

/// An AWTRIX owner's way in (A3, A6), beside the socket's figure in ``AppFigures``:
///
/// - `awtrix_custom_to_frame_ms_p99` (and `_median`): `POST /api/custom?name=power` with the
///   body a Home Assistant automation sends (coloured text fragments, an icon, a colour and a
///   progress) to a release nook-http, in front of a release nookd journaled as the system
///   service runs it, until the mock display presented the app's redrawn card; 3 rounds of 100
///   posts over one keep-alive connection, a new value each, the glass quiet before each.
///   The way is nook-http's (the request read, AWTRIX's fields translated, its link to nookd)
///   then the socket's.
struct AWTRIXAppFigures {
    let http: HTTPFigures

    static func body(_ index: Int) -> String {
        ##"{"text":[{"t":"\##(index % 10).\##(index % 7) ","c":"FFA500"},{"t":"kW"}],"icon":"bolt","color":"#FFFF00","progress":\##(index % 100)}"##
    }

    /// One round of 100 posts of the app on the glass, each until its frame: their p99 and median.
    func customToFrameRound(round: Int) throws -> (p99: Double, median: Double) {
        let frames = http.scratch + "/awtrix-frames-\(round)"
        try FileManager.default.createDirectory(atPath: frames, withIntermediateDirectories: true)
        // Turns an hour long: the app stays on the glass through the round.
        let config = http.scratch + "/awtrix-apps.toml"
        try "[apps]\nduration_ms = 3600000\n".write(toFile: config, atomically: true, encoding: .utf8)
        let pair = try http.start("awtrix-\(round)", extra: ["--config", config, "--frames", frames])
        let client = try HTTPBenchClient(port: pair.port)
        func post(_ path: String, _ json: String) throws {
            try client.send(HTTPBenchClient.post(path, json: json))
            let answer = try client.response()
            guard answer.status == 200 else {
                throw BenchError("POST \(path) answered \(answer.status): \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
            }
        }
        try post("/api/custom?name=power", Self.body(0))
        try post("/api/switch", #"{"name":"power"}"#)
        let watcher = try PresentedFrameFiles(directory: frames)
        var samples: [Double] = []
        for index in 1...100 {
            watcher.waitForQuiet()
            let start = PresentedFrameFiles.wallClockNanoseconds()
            try client.send(HTTPBenchClient.post("/api/custom?name=power", json: Self.body(index)))
            let presented = try watcher.firstPresented(since: start, what: "the app's update")
            samples.append(Double(presented - start) / 1e6)
            let answer = try client.response()
            guard answer.status == 200 else { throw BenchError("POST /api/custom answered \(answer.status)") }
        }
        if getenv("NOOK_BENCH_VERBOSE") != nil { print("  AWTRIX custom-to-frame samples (ms):", samples.sorted().map(rounded)) }
        samples.sort()
        return (samples[Int(Double(samples.count - 1) * 0.99)], NookBench.median(samples))
    }
}

func reportAWTRIXAppFigures(_ daemon: DaemonFigures) async {
    do {
        let figures = AWTRIXAppFigures(http: try HTTPFigures.prepared(daemon))
        var medians: [Double] = []
        var round = 0
        let p99 = try await rounds(3) {
            round += 1
            let result = try figures.customToFrameRound(round: round)
            medians.append(result.median)
            return result.p99
        }
        report("awtrix_custom_to_frame_ms_p99", p99)
        report("awtrix_custom_to_frame_ms_median", Spread(rounds: medians))
    } catch {
        print("AWTRIX app figures skipped: \(error)")
    }
}
