#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookActivities
import NookDisplay
import NookProtocol
import NookRender

/// The apps' figures (A6, `nook-bench apps` runs only these):
///
/// - `app_update_to_frame_ms_p99`: an `app-set` of the app on the glass, written to a release
///   nookd's socket, until the mock display presented the redrawn card (the frame file's date,
///   as `http_publish_to_first_frame_ms_p99` reads it); 3 rounds of 100 sets, a new text and
///   progress each, the glass quiet before each.
/// - `app_switch_frame_ms_p99`: each frame of a switch between two apps (the one on the glass
///   slides out, the next slides in, as the rotation ends one app's card and queues the next),
///   in process on the 60 Hz mock as nookd's queue and screen run it: the time from when the
///   screen could begin a frame (the frame before on the glass, or the queue's event it waited
///   for) until it was handed to the display. Within 16.7 ms, every frame makes its vertical blank.
/// - `apps_idle_wakes_per_switch`: a release nookd with three apps and nothing else, its
///   rotation turning every 5 s, for two minutes: its wakes counted as `daemon_idle_wakes_per_min`
///   counts them, less the clock's minute tick, over the turns it made (12 a minute); and
///   `apps_idle_wakes_per_min`, the wakes as counted.
struct AppFigures {
    let daemon: DaemonFigures

    static let turn: Duration = .seconds(5)

    func writeConfig() throws -> String {
        let path = daemon.scratch + "/apps.toml"
        let text = "[apps]\nduration_ms = \(Int(Self.turn.nookSeconds * 1000))\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func request(_ operation: NookOperation) -> [UInt8] { Array((Request(id: .number(1), operation: operation).encoded() + "\n").utf8) }

    /// One round of 100 app-sets of the app on the glass, each until its frame: their p99.
    func updateToFrameRound(round: Int) throws -> Double {
        let frames = daemon.scratch + "/app-frames-\(round)"
        try FileManager.default.createDirectory(atPath: frames, withIntermediateDirectories: true)
        let socket = daemon.scratch + "/apps-\(round).sock"
        // Turns an hour long: the app stays on the glass through the round.
        let config = daemon.scratch + "/apps-long.toml"
        try "[apps]\nduration_ms = 3600000\n".write(toFile: config, atomically: true, encoding: .utf8)
        let pid = try daemon.startDaemon(socket: socket, extra: ["--config", config, "--frames", frames])
        defer { daemon.stop(pid) }
        let client = try NookClient(path: socket)
        client.readTimeout = .seconds(20)
        func power(_ index: Int) -> NookApp {
            NookApp(name: "power", content: .fragments([NookApp.Fragment("\(index % 10).\(index % 7) ", tint: .named(.orange)), NookApp.Fragment("kW")]),
                    icon: "bolt", tint: .named(.yellow), progress: Double(index % 100) / 100)
        }
        _ = try client.request(Request(id: .number(1), operation: .appSet(power(0))))
        _ = try client.request(Request(id: .number(1), operation: .appSwitch("power")))
        let watcher = try PresentedFrameFiles(directory: frames)
        var samples: [Double] = []
        for index in 1...100 {
            watcher.waitForQuiet()
            let start = PresentedFrameFiles.wallClockNanoseconds()
            try client.sendRaw(Self.request(.appSet(power(index))))
            let presented = try watcher.firstPresented(since: start, what: "the app's update")
            samples.append(Double(presented - start) / 1e6)
            guard let answer = try client.readLine(), case .success? = try? ResponseLine.decode(answer) else {
                throw BenchError("nookd did not accept the app-set")
            }
        }
        if getenv("NOOK_BENCH_VERBOSE") != nil {
            print("  app update-to-frame samples (ms):", samples.sorted().map(rounded))
            let slowest = samples.indices.sorted { samples[$0] > samples[$1] }.prefix(3)
            print("  slowest sets:", slowest.map { "#\($0 + 1) \(rounded(samples[$0]))" }.joined(separator: ", "))
        }
        samples.sort()
        return samples[Int(Double(samples.count - 1) * 0.99)]
    }

    /// One round of 20 switches between two apps' cards, in process: the p99 of every frame's time.
    static func switchFramesRound() async -> Double {
        let clock = NookSystemClock()
        let timing = FrameTimes()
        let display = TimedDisplay(MockDisplay(size: PixelSize(width: 1280, height: 400), clock: clock, keepFrames: 0), times: timing)
        let screen = NookScreen(display: display, clock: clock)
        let queue = NookActivityQueue(clock: clock)
        await queue.bind(to: NookSurfaceArbiter(foreground: "bench", clock: clock))
        let feeder = Task { [screen, queue] in await screen.run(queue.events(where: NookScreen.draws)) }
        let observed = queue.observe { _ in timing.event() }
        defer {
            feeder.cancel()
            observed.cancel()
        }
        await screen.showHome()
        func card(_ index: Int) -> NookActivity {
            let runs = [NookApp.Fragment("\(index) ", tint: .named(.orange)), NookApp.Fragment(index % 2 == 0 ? "kW now" : "°C outside")]
            var card = NookActivity(coalescingKey: "app:\(index % 2)", priority: .high, title: runs.map(\.text).joined(), subtitle: "▁▃▅█▆▃",
                                    systemImage: index % 2 == 0 ? "bolt" : "cloud", tint: .named(index % 2 == 0 ? .yellow : .blue),
                                    presentation: .blocker(timeout: nil), isTransient: true)
            card.app = NookAppFace(fragments: runs, chart: NookApp.Chart(.bar, [1, 3, 5, 8, 6, 3]))
            // As the rotation's cards: no pause between two apps.
            card.endDelay = .zero
            return card
        }
        var shown = card(-1)
        await queue.enqueue(shown)
        while await queue.snapshot().currentPhase != .presented { try? await Task.sleep(for: .milliseconds(5)) }
        try? await Task.sleep(for: .milliseconds(100))
        var samples: [Double] = []
        for index in 0..<20 {
            let next = card(index)
            timing.start()
            // As the rotation switches: the card on the glass ends, the next app's is queued.
            _ = await queue.cancel(shown.id)
            await queue.enqueue(next)
            shown = next
            while await queue.snapshot().currentPhase != .presented { try? await Task.sleep(for: .milliseconds(5)) }
            try? await Task.sleep(for: .milliseconds(100))
            let frames = timing.frames()
            samples += frames.map(\.ms)
            if getenv("NOOK_BENCH_VERBOSE") != nil, index < 3 {
                print("  switch \(index):", frames.map { "\(rounded($0.ms)) (\($0.what))" }.joined(separator: "; "))
            }
        }
        if getenv("NOOK_BENCH_VERBOSE") != nil {
            print("  app switch frames: \(samples.count), slowest (ms):", samples.sorted().suffix(5).map(rounded))
        }
        samples.sort()
        return samples[Int(Double(samples.count - 1) * 0.99)]
    }

    /// Three apps, nothing else: nookd's wakes a minute, and over its rotation's turns.
    func idleWakes() throws -> (perMinute: Spread, perSwitch: Spread) {
        let socket = daemon.scratch + "/apps-idle.sock"
        let pid = try daemon.startDaemon(socket: socket, extra: ["--config", try writeConfig()])
        defer { daemon.stop(pid) }
        let client = try NookClient(path: socket)
        for (name, text) in [("weather", "21 °C"), ("power", "1.2 kW"), ("bus", "Bus 42 in 3 min")] {
            _ = try client.request(Request(id: .number(1), operation: .appSet(NookApp(name: name, content: .text(text), icon: "bolt"))))
        }
        let minutes = 2
        let wakes = daemon.idleWakes(pid: pid, minutes: minutes)
        // Each minute holds 60 s / 5 s = 12 turns (home, then three apps, round and round), and
        // the clock's one tick, which falls while the home content shows or beside a switch.
        let turns = 60 / Self.turn.nookSeconds
        return (wakes.perMinute, Spread(rounds: wakes.perMinute.rounds.map { max(0, $0 - 1) / turns }))
    }
}

/// When each frame was handed to the display and when it was on the glass, and when the queue
/// told of a change (a slide ending, the next card coming).
final class FrameTimes: Sendable {
    private struct Presented {
        var ready: ContinuousClock.Instant
        var flipped: ContinuousClock.Instant
    }

    private struct Times {
        var start: ContinuousClock.Instant?
        var frames: [Presented] = []
        var events: [ContinuousClock.Instant] = []
    }

    private let state = Locked(Times())

    func start() { state.withLock { $0 = Times(start: .now) } }
    /// One frame, noted once it is on the glass: its two times together, so that a frame on its
    /// way when a round starts is never paired with another frame's time.
    func presented(readyAt ready: ContinuousClock.Instant) {
        let flipped = ContinuousClock.now
        state.withLock { if $0.start != nil { $0.frames.append(Presented(ready: ready, flipped: flipped)) } }
    }
    func event() { state.withLock { if $0.start != nil { $0.events.append(.now) } } }

    /// Each frame's time, in ms, of the frames handed over since the round started: from when
    /// the screen could begin it (the frame before it on the glass, or the queue's event it
    /// waited for, whichever came last) until it was handed to the display. Between a slide's
    /// end and the queue's next event the screen waits, and that wait is no frame's work (the
    /// glass shows the frame before meanwhile). With each, for `NOOK_BENCH_VERBOSE`, its place
    /// in the round and which of the two it counted from.
    func frames() -> [(ms: Double, what: String)] {
        state.withLock { state in
            guard let start = state.start else { return [] }
            return state.frames.filter { $0.ready >= start }.enumerated().map { index, frame in
                let glass = state.frames.lazy.map(\.flipped).filter { $0 <= frame.ready }.max() ?? start
                let event = state.events.last { $0 <= frame.ready } ?? start
                let from = max(start, glass, event)
                let eventsBefore = state.events.filter { $0 <= frame.ready }.count
                return ((frame.ready - from).nookSeconds * 1000,
                        "frame \(index + 1), after event \(eventsBefore), from \(from == event ? "the event" : "the glass")")
            }
        }
    }
}

/// The mock display, noting when each frame is handed over and when it is on the glass.
final class TimedDisplay: DisplayBackend {
    private let display: MockDisplay
    private let times: FrameTimes
    var mode: DisplayMode { display.mode }

    init(_ display: MockDisplay, times: FrameTimes) { (self.display, self.times) = (display, times) }

    func present(_ frame: Frame) async throws(DisplayError) {
        let ready = ContinuousClock.now
        try await display.present(frame)
        times.presented(readyAt: ready)
    }

    func setBlanked(_ blanked: Bool) async throws(DisplayError) { try await display.setBlanked(blanked) }
    func restore() { display.restore() }
}

func reportAppFigures(_ daemon: DaemonFigures) async {
    report("app_switch_frame_ms_p99", await rounds(3) { await AppFigures.switchFramesRound() })
    do {
        try daemon.prepare()
        let figures = AppFigures(daemon: daemon)
        var round = 0
        report("app_update_to_frame_ms_p99", try await rounds(3) {
            round += 1
            return try figures.updateToFrameRound(round: round)
        })
        await reportAWTRIXAppFigures(daemon)
        let wakes = try figures.idleWakes()
        report("apps_idle_wakes_per_min", wakes.perMinute)
        report("apps_idle_wakes_per_switch", wakes.perSwitch)
    } catch {
        print("app figures skipped: \(error)")
    }
}
