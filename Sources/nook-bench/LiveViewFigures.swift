#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookDisplay
import NookPNG
import NookProtocol
import NookRender

/// The live view (V1): encoding the glass as a PNG, and how soon a client waiting with `after`
/// has the frame of a change (`nook-bench live-view` runs only these).
enum LiveViewFigures {
    /// One 1280x400 card frame encoded, in milliseconds: the median of 20 encodings a round.
    static func screenPNG() async -> (spread: Spread, bytes: Int) {
        let activity = NookActivity(title: "Build finished", subtitle: "Debug · 12.4s", systemImage: "hammer", tint: .named(.green), progress: 0.6)
        let frame = CardRenderer(theme: .dark).render(activity, size: PixelSize(width: 1280, height: 400)).frame
        var bytes = 0
        let spread = await rounds(5) {
            var times: [Double] = []
            for _ in 0..<20 {
                times.append(secondsTaken { bytes = (try? PNGEncoder.encode(frame).count) ?? 0 } * 1000)
            }
            return NookBench.median(times)
        }
        return (spread, bytes)
    }

    /// Rounds of 100 changes of the card on the glass (an update in place, one new frame each):
    /// from sending the update to holding the new frame's PNG in a client that was waiting with
    /// `after`, through a release nookd on the mock display. Each round's p99 (its second largest).
    static func frameLatencyP99(_ figures: DaemonFigures) async -> Spread? {
        do {
            try figures.prepare()
            let socket = figures.scratch + "/nookd-live.sock"
            let pid = try figures.startDaemon(socket: socket, extra: ["--config", try quietHome(figures)])
            defer { figures.stop(pid) }
            let changer = try NookClient(path: socket)
            let viewer = try NookClient(path: socket)
            let card = NookActivity(coalescingKey: "live", title: "Live 0", systemImage: "bell", presentation: .blocker(timeout: nil))
            _ = try changer.request(Request(id: .number(1), operation: .enqueue(card, module: nil, wait: false)))
            usleep(500_000)
            var change = 0
            return try await rounds(3) {
                var samples: [Double] = []
                for _ in 0..<100 {
                    let now = try FrameAnswer(json: try viewer.request(Request(id: .number(1), operation: .frame(after: nil))))
                    try viewer.send(Request(id: .number(2), operation: .frame(after: now.generation)).encoded())
                    // The wait is in place before the change (nookd reads the line at once).
                    usleep(5_000)
                    change += 1
                    let start = ContinuousClock.now
                    _ = try changer.request(Request(id: .number(3), operation: .update(
                        .key("live", module: nil), changes: ActivityChanges(members: [("title", .string("Live \(change)"))]), restartDwell: false)))
                    guard let line = try viewer.readLine(), case .success(_, let result) = try ResponseLine.decode(line) else {
                        throw BenchError("no frame answer")
                    }
                    let next = try FrameAnswer(json: result)
                    samples.append((ContinuousClock.now - start).nookSeconds * 1000)
                    if next.generation <= now.generation { throw BenchError("the frame answered was not newer") }
                    // The update's frame and the ones around it settle before the next sample.
                    usleep(20_000)
                }
                return samples.sorted()[samples.count - 2]
            }
        } catch {
            print("live view figures skipped: \(error)")
            return nil
        }
    }

    private static func quietHome(_ figures: DaemonFigures) throws -> String {
        let path = figures.scratch + "/live.toml"
        guard let file = fopen(path, "w") else { throw BenchError("cannot write \(path)") }
        fputs("[home]\ncontent = \"blank\"\n", file)
        fclose(file)
        return path
    }
}

func reportLiveViewFigures(_ figures: DaemonFigures) async {
    let png = await LiveViewFigures.screenPNG()
    report("screen_png_ms", png.spread)
    report("screen_png_kib", Double(png.bytes) / 1024)
    if let latency = await LiveViewFigures.frameLatencyP99(figures) {
        report("live_view_frame_latency_ms_p99", latency)
    }
}
