#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookActivities
import NookProtocol
import NookSystem

/// How long a release nookd takes from `exec` to answering on its socket
/// (`nookd_start_to_socket_ms_p99`) and to its first frame on the mock glass
/// (`nookd_start_to_first_frame_ms_p99`), restoring a journal of 1,000 waiting cards, as a board
/// does after a reboot with cards queued. Each start gets a fresh copy of one journal, so every
/// sample restores the same cards; a sample ends with SIGTERM once the frame is dated.
struct StartFigures {
    let daemon: DaemonFigures
    let waiting = 1_000
    let samplesPerRound = 20

    func run(rounds count: Int = 3) async throws -> (socket: Spread, firstFrame: Spread) {
        let scratch = daemon.scratch + "/start"
        try? FileManager.default.removeItem(atPath: scratch)
        try FileManager.default.createDirectory(atPath: scratch + "/frames", withIntermediateDirectories: true)
        let config = scratch + "/nook.toml"
        try "[queue]\ncapacity = \(waiting * 2)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let template = try makeJournal(in: scratch, config: config)
        let frames = try PresentedFrameFiles(directory: scratch + "/frames")
        var socketRounds: [Double] = []
        let firstFrame = try await rounds(count) {
            var toSocket: [Double] = [], toFrame: [Double] = []
            for index in 0..<samplesPerRound {
                let journal = scratch + "/journal-\(index)"
                try? FileManager.default.removeItem(atPath: journal)
                try FileManager.default.copyItem(atPath: template, toPath: journal)
                let sample = try startOnce(journal: journal, config: config, socket: scratch + "/s.sock", frames: frames)
                toSocket.append(sample.socket)
                toFrame.append(sample.firstFrame)
                try? FileManager.default.removeItem(atPath: journal)
                // Every frame of the stopped nookd is a PNG: thousands over a run.
                for file in (try? FileManager.default.contentsOfDirectory(atPath: frames.directory)) ?? [] {
                    try? FileManager.default.removeItem(atPath: frames.directory + "/" + file)
                }
                // The stopped nookd's events read and dropped: a read hands back one name and
                // drops the rest of its buffer, which could hold the next start's first frame.
                frames.waitForQuiet(milliseconds: 50)
            }
            socketRounds.append(Self.p99(toSocket))
            return Self.p99(toFrame)
        }
        return (Spread(rounds: socketRounds), firstFrame)
    }

    /// A journal holding `waiting` cards: one on the glass (an hour's dwell) and the rest
    /// pending, put back by SIGTERM.
    private func makeJournal(in scratch: String, config: String) throws -> String {
        let template = scratch + "/journal-template"
        let socket = scratch + "/make.sock"
        let pid = try daemon.startDaemon(socket: socket, extra: ["--config", config, "--journal", template])
        let client = try NookClient(path: socket)
        client.readTimeout = .seconds(30)
        for index in 0..<waiting {
            let activity = NookActivity(title: "Waiting \(index)", subtitle: "restored at start", systemImage: "bell", dwell: .seconds(3600))
            _ = try client.request(Request(id: .number(Double(index)), operation: .enqueue(activity, module: nil, wait: false)))
        }
        daemon.stop(pid)
        return template
    }

    /// One start: exec (the wall clock just before `posix_spawn`) to the socket answering
    /// `status`, and to the first presented frame's date; then SIGTERM and reaped.
    private func startOnce(journal: String, config: String, socket: String, frames: PresentedFrameFiles) throws -> (socket: Double, firstFrame: Double) {
        let nookd = getenv("NOOK_BENCH_NOOKD").map { String(cString: $0) } ?? daemon.binaries + "/nookd"
        let arguments = [nookd, "--display", "mock", "--frames", frames.directory, "--config", config, "--journal", journal,
                         "--socket", socket, "--log-level", "warning"]
        var pid: pid_t = 0
        let start = PresentedFrameFiles.wallClockNanoseconds()
        guard spawn(arguments, pid: &pid, quiet: true) == 0 else { throw BenchError("could not start nookd") }
        defer { stop(pid) }
        var answered: Int64?
        for _ in 0..<50_000 where answered == nil {
            if let client = try? NookClient(path: socket), (try? client.request(Request(id: .number(1), operation: .status))) != nil {
                answered = PresentedFrameFiles.wallClockNanoseconds()
            } else {
                usleep(200)
            }
        }
        guard let answered else { throw BenchError("nookd did not answer on its socket within 10 s") }
        var presented: Int64 = 0
        repeat {
            guard let file = frames.next(withinMilliseconds: 10_000) else { throw BenchError("no frame of nookd's start within 10 s") }
            // A frame of the nookd before, whose files were removed since, is not this start's.
            presented = (try? frames.presented(file)) ?? 0
        } while presented < start
        return (Double(answered - start) / 1e6, Double(presented - start) / 1e6)
    }

    private static func p99(_ samples: [Double]) -> Double {
        let sorted = samples.sorted()
        return sorted[Int((Double(sorted.count - 1) * 0.99).rounded(.down))]
    }
}

/// `nook-bench start`: nookd's start-up, restoring 1,000 cards.
func reportStartFigures(_ figures: DaemonFigures) async {
    do {
        try figures.prepare()
        let start = try await StartFigures(daemon: figures).run()
        report("nookd_start_to_socket_ms_p99", start.socket)
        report("nookd_start_to_first_frame_ms_p99", start.firstFrame)
    } catch {
        print("start figures skipped: \(error)")
    }
}
