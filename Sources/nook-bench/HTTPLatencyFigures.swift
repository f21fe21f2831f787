#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookProtocol

/// nook-http's per-call figures, each over one keep-alive loopback connection
/// (``HTTPBenchClient``) to a release nook-http in front of a release, journaled nookd
/// (`journal.sync = "ack"`) on the mock display.
struct HTTPLatencyFigures {
    let daemon: DaemonFigures
    let port: Int
    let socket: String

    /// `http_publish_to_first_frame_ms_p99`: one `POST /api/v1/activities` at a time, each a
    /// fresh card (a title of its own, no key) reaching an idle glass, from the moment its
    /// request is written until the mock display presented the card's first frame, as nookd
    /// dated the frame's file (nookd started with `--frames`, a blank home). Before each
    /// publish: nookd holds no activity (`list`) and no frame file was dated for 150 ms (the
    /// slide-out and the home frame are written). The cards are short (50 ms on the glass,
    /// 20 ms slides). Alternated with it, the same card as an `enqueue` line on a connection to
    /// nookd's socket (`socket_enqueue_to_first_frame_ms_p99`): the yardstick under the same
    /// load, so a tail both share is the machine's. Each side's p99 over the round (with 100
    /// samples, the largest but one) and median; and how many of the round's samples (both
    /// sides), in percent, had CPU time stolen by the hypervisor between the request and the frame.
    func publishToFirstFrameRound(frames: String, count: Int = 100, round: Int) throws
        -> (p99: Double, median: Double, socketP99: Double, socketMedian: Double, stolenPercent: Double) {
        let client = try HTTPBenchClient(port: port)
        let nookd = try NookClient(path: socket)
        let direct = try NookClient(path: socket)
        direct.readTimeout = .seconds(20)
        let watcher = try PresentedFrameFiles(directory: frames)
        var samples: [Double] = [], answers: [Double] = [], socketSamples: [Double] = []
        // The slow samples, with when they began (CLOCK_MONOTONIC, as `perf record -k mono`
        // dates its events) and the host's steal meanwhile, for a trace of the machine.
        var slow: [String] = [], stolenSamples = 0
        func noteSample(_ side: String, _ milliseconds: Double, began: Int64, stolenTicks: Int) {
            if stolenTicks > 0 { stolenSamples += 1 }
            if milliseconds > 4 { slow.append("\(side) \(rounded(milliseconds)) ms at \(Double(began) / 1e9) s, steal \(stolenTicks * 10) ms") }
        }
        for index in 0..<count {
            let fields = #""subtitle":"from nook-bench","icon":"bell","dwell":0.05,"transition":0.02,"endDelay":0"#
            let request = HTTPBenchClient.post(NativeAPIPath.activities, json: #"{"title":"Publish \#(round).\#(index)",\#(fields)}"#)
            let line = Array(#"{"v":1,"id":1,"op":"enqueue","activity":{"title":"Enqueue \#(round).\#(index)",\#(fields)}}"#.utf8) + [0x0A]
            try PresentedFrameFiles.waitForIdleGlass(nookd)
            watcher.waitForQuiet()
            let start = ContinuousClock.now
            let startWall = PresentedFrameFiles.wallClockNanoseconds()
            let (began, stealBefore) = (Machine.monotonicNanoseconds(), Machine.stolenTicks())
            // Written whole at once; the answer waits in the socket while the frame is looked
            // for (nookd may present before it answers: the answer waits for the journal's sync).
            try client.send(request)
            guard let file = watcher.next(withinMilliseconds: 10_000) else { throw BenchError("no frame of the card within 10 s") }
            let presented = try watcher.presented(file)
            let stolen = Machine.stolenTicks() - stealBefore
            let answer = try client.response()
            guard answer.status == 201 else { throw BenchError("POST \(NativeAPIPath.activities) answered \(answer.status): \(String(decoding: answer.body.prefix(200), as: UTF8.self))") }
            samples.append(Double(presented - startWall) / 1e6)
            noteSample("http", samples[samples.count - 1], began: began, stolenTicks: stolen)
            answers.append((ContinuousClock.now - start).nookSeconds * 1000)

            try PresentedFrameFiles.waitForIdleGlass(nookd)
            watcher.waitForQuiet()
            let socketStart = PresentedFrameFiles.wallClockNanoseconds()
            let (socketBegan, socketStealBefore) = (Machine.monotonicNanoseconds(), Machine.stolenTicks())
            try direct.sendRaw(line)
            guard let socketFile = watcher.next(withinMilliseconds: 10_000) else { throw BenchError("no frame of the socket's card within 10 s") }
            let socketPresented = try watcher.presented(socketFile)
            let socketStolen = Machine.stolenTicks() - socketStealBefore
            guard let reply = try direct.readLine(), case .success? = try? ResponseLine.decode(reply) else {
                throw BenchError("nookd did not accept the enqueue")
            }
            socketSamples.append(Double(socketPresented - socketStart) / 1e6)
            noteSample("socket", socketSamples[socketSamples.count - 1], began: socketBegan, stolenTicks: socketStolen)
        }
        if getenv("NOOK_BENCH_VERBOSE") != nil {
            print("  publish-to-frame samples (ms):", samples.sorted().map(rounded))
            print("  201 read after (ms), same order:", zip(samples, answers).sorted { $0.0 < $1.0 }.map { rounded($0.1) })
            print("  socket enqueue-to-frame samples (ms):", socketSamples.sorted().map(rounded))
            print("  samples over 4 ms:", slow)
        }
        samples.sort()
        socketSamples.sort()
        let p99 = Int(Double(count - 1) * 0.99)
        return (samples[p99], NookBench.median(samples), socketSamples[p99], NookBench.median(socketSamples), Double(stolenSamples * 100) / Double(2 * count))
    }

    /// `http_vs_socket_enqueue`: the same enqueue (the activity nookctl sends for `nookctl
    /// enqueue --title … --key bench --dwell 0.05`, a fresh id each call) as a `POST` on a
    /// keep-alive connection to nook-http, and as nookctl's request line on a connection to
    /// nookd's socket, alternated call by call, each side timed per call from writing the
    /// request to reading its whole answer (201 / nookd's answer line). One round's ratio is the
    /// median of the HTTP calls over the median of the socket calls; also each side's median in
    /// milliseconds. Both connections are opened once, before: connecting is not the enqueue.
    func versusSocketRound(calls: Int = 100) throws -> (ratio: Double, httpMilliseconds: Double, socketMilliseconds: Double) {
        let client = try HTTPBenchClient(port: port)
        let nookd = try NookClient(path: socket)
        nookd.readTimeout = .seconds(20)
        var overHTTP: [Double] = [], overSocket: [Double] = []
        for _ in 0..<calls {
            let viaSocket = Self.nookctlActivity()
            let line = Array((Request(id: .number(1), operation: .enqueue(viaSocket, module: nil, wait: false)).encoded() + "\n").utf8)
            let request = HTTPBenchClient.post(NativeAPIPath.activities, json: ActivityPayload.encode(Self.nookctlActivity()).serialized)
            var start = ContinuousClock.now
            try nookd.sendRaw(line)
            let answer = try nookd.readLine()
            overSocket.append((ContinuousClock.now - start).nookSeconds * 1000)
            guard let answer, case .success? = try? ResponseLine.decode(answer) else { throw BenchError("nookd did not accept the enqueue") }
            start = ContinuousClock.now
            try client.send(request)
            let response = try client.response()
            overHTTP.append((ContinuousClock.now - start).nookSeconds * 1000)
            guard response.status == 201 else { throw BenchError("POST \(NativeAPIPath.activities) answered \(response.status)") }
        }
        let (http, socket) = (NookBench.median(overHTTP), NookBench.median(overSocket))
        return (http / socket, http, socket)
    }

    /// `http_vs_socket_enqueue_process`: the same enqueue as whole processes, as a script sends
    /// it: `curl` (a new connection, `POST`, exit) against `nookctl enqueue`, alternated, each
    /// from spawn to exit. Mostly the two programs' start-up, which is why it is not the
    /// figure the goal is judged by.
    func versusNookctlRound(calls: Int = 15) throws -> Double {
        let url = "http://127.0.0.1:\(port)\(NativeAPIPath.activities)"
        let curl = ["-s", "-f", "-o", "/dev/null", "-X", "POST", "-H", "Content-Type: application/json",
                    "--data", #"{"title":"Build finished","key":"bench","dwell":0.05}"#, url]
        let nookctl = ["enqueue", "--title", "Build finished", "--key", "bench", "--dwell", "0.05", "--socket", socket]
        var overCurl: [Double] = [], overNookctl: [Double] = []
        for _ in 0..<calls {
            var status: Int32 = 0
            overNookctl.append(timed { status = spawnAndWait(daemon.binaries + "/nookctl", nookctl, quiet: true); return status })
            guard status == 0 else { throw BenchError("nookctl enqueue exited with status \(status)") }
            overCurl.append(timed { status = spawnAndWait("/usr/bin/curl", curl, quiet: true); return status })
            guard status == 0 else { throw BenchError("curl POST exited with status \(status)") }
        }
        return NookBench.median(overCurl) / NookBench.median(overNookctl)
    }

    /// What `nookctl enqueue --title "Build finished" --key bench --dwell 0.05` sends.
    static func nookctlActivity() -> NookActivity {
        NookActivity(coalescingKey: "bench", title: "Build finished", dwell: .milliseconds(50))
    }
}

/// nook-http's create route, as the figures address it.
enum NativeAPIPath {
    static let activities = "/api/v1/activities"
}
