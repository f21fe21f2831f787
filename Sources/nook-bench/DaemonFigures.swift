#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookActivities
import NookDisplay
import NookProtocol
import NookRender
import NookSystem

/// Figures of the daemon and the CLI, measured against running release binaries.
/// nookd and nookctl are (re)built next to this benchmark, statically linked as `Hardware/install` builds them.
struct DaemonFigures {
    let packageRoot: String
    let binaries: String
    let scratch = "/tmp/nook-bench-\(getpid())"

    init() {
        let file = #filePath
        packageRoot = String(file[..<file.range(of: "/Sources/")!.lowerBound])
        // NOOK_BENCH_BINARIES (with NOOK_BENCH_NO_BUILD) runs another build's binaries: a check
        // that a figure runs, whose numbers are not the release figures.
        binaries = getenv("NOOK_BENCH_BINARIES").map { String(cString: $0) } ?? packageRoot + "/.build/release"
    }

    func prepare() throws {
        // Built every time, not only when missing: a plain `swift build -c release` leaves
        // dynamically linked binaries at the same paths, and those start 2-3x slower.
        for product in ["nookd", "nookctl"] where getenv("NOOK_BENCH_NO_BUILD") == nil {
            let status = spawnAndWait("/usr/bin/env", ["swift", "build", "-c", "release", "--static-swift-stdlib",
                                                       "--package-path", packageRoot, "--product", product], quiet: true)
            guard status == 0 else { throw BenchError("could not build \(product) (swift build exited \(status))") }
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/socat") else {
            throw BenchError("socat is the yardstick for cli_enqueue_vs_socat: apt-get install socat")
        }
        try? FileManager.default.removeItem(atPath: scratch)
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    /// Starts a release nookd on the mock display; returns its pid once it listens.
    /// `platformExecutors` runs it on libdispatch's executors instead of its own
    /// (`NOOKD_EXECUTORS=platform`, through env(1), which execs nookd in the same process).
    func startDaemon(socket: String, extra: [String] = [], platformExecutors: Bool = false) throws -> pid_t {
        var pid: pid_t = 0
        // NOOK_BENCH_NOOKD runs another nookd (an older build, to compare two in one sitting).
        let nookd = getenv("NOOK_BENCH_NOOKD").map { String(cString: $0) } ?? binaries + "/nookd"
        let executors = platformExecutors ? ["/usr/bin/env", "NOOKD_EXECUTORS=platform"] : []
        let arguments = executors + [nookd, "--display", "mock", "--socket", socket, "--log-level", "warning"] + extra
        let status = spawn(arguments, pid: &pid, quiet: true)
        guard status == 0 else { throw BenchError("could not start nookd") }
        for _ in 0..<500 {
            if (try? NookClient(path: socket)) != nil { return pid }
            usleep(10_000)
        }
        throw BenchError("nookd did not start")
    }

    func stop(_ pid: pid_t) {
        nook_bench.stop(pid)
    }

    /// `nookctl enqueue` against socat sending the same line to the same daemon, alternating,
    /// and the same command line read by ArgumentParser instead of the fast path
    /// (`EnqueueCommandLine`) in the same rounds: `--key` given twice, which the fast path hands
    /// to ArgumentParser and ArgumentParser reads as the last one given.
    func cliVersusSocat(socket: String) async throws -> (fastPath: Spread, argumentParser: Spread) {
        let line = Request(id: .number(1), operation: .enqueue(
            NookActivity(coalescingKey: "bench", title: "Build finished", dwell: .milliseconds(50)), module: nil, wait: false)).encoded()
        let linePath = scratch + "/line.json"
        _ = FileManager.default.createFile(atPath: linePath, contents: Data((line + "\n").utf8))
        let fastPath = ["enqueue", "--title", "Build finished", "--key", "bench", "--dwell", "0.05", "--socket", socket]
        let throughArgumentParser = ["enqueue", "--title", "Build finished", "--key", "bench", "--key", "bench", "--dwell", "0.05", "--socket", socket]
        for arguments in [fastPath, throughArgumentParser] {
            let status = spawnAndWait(binaries + "/nookctl", arguments, quiet: true)
            guard status == 0 else { throw BenchError("nookctl \(arguments.joined(separator: " ")) exited with status \(status)") }
        }
        var argumentParser: [Double] = []
        let fast = await rounds(5) {
            let ratios = interleavedRatios(repetitions: 15, measured: [
                { _ = spawnAndWait(binaries + "/nookctl", fastPath, quiet: true) },
                { _ = spawnAndWait(binaries + "/nookctl", throughArgumentParser, quiet: true) },
            ], baseline: {
                _ = spawnAndWait("/usr/bin/socat", ["-t", "5", "-", "UNIX-CONNECT:\(socket)"], quiet: true, stdin: linePath)
            })
            argumentParser.append(ratios[1])
            return ratios[0]
        }
        return (fast, Spread(rounds: argumentParser))
    }

    /// 10,000 enqueues written back to back on one connection, all answers read; the median of
    /// `rounds` runs on fresh connections to the same daemon.
    func pipelinedEnqueuesPerSecond(socket: String, rounds count: Int = 5) async throws -> Spread {
        try await rounds(count) { try pipelinedRound(socket: socket) }
    }

    /// The same rounds, also counting nookd's CPU time (user + system, from /proc/PID/stat) per
    /// enqueue: what the work costs, which the machine's load changes far less than the rate.
    func pipelined(socket: String, pid: pid_t, rounds count: Int = 5) async throws -> (rate: Spread, cpuMicroseconds: Spread) {
        var cpu: [Double] = []
        let rate = try await rounds(count) {
            let before = cpuTicks(pid: pid)
            let value = try pipelinedRound(socket: socket)
            cpu.append(Double(cpuTicks(pid: pid) - before) / Double(sysconf(Int32(_SC_CLK_TCK))) * 1e6 / 10_000)
            return value
        }
        return (rate, Spread(rounds: cpu))
    }

    /// utime + stime of `pid` in clock ticks.
    func cpuTicks(pid: pid_t) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15 (proc(5)).
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
        return user + system
    }

    /// One `nookctl enqueue` against a nookd with a journal: the time from spawning nookctl
    /// to its exit, answer received (so, under `journal.sync = "ack"`, the record synced).
    /// The p99 of each of `rounds` rounds of 100; the median of the rounds, with their spread.
    func journaledEnqueueP99(socket: String, rounds count: Int = 3) async -> Spread {
        await journaledEnqueueP99(socket: socket, rounds: count, throughArgumentParser: false).fastPath
    }

    /// The same, and with `throughArgumentParser` the same command line read by ArgumentParser
    /// (`--key` twice, as in ``cliVersusSocat(socket:)``) in the same rounds, call by call.
    func journaledEnqueueP99(socket: String, rounds count: Int = 3, throughArgumentParser: Bool) async -> (fastPath: Spread, argumentParser: Spread) {
        var round = 0
        var argumentParser: [Double] = []
        let fastPath = await rounds(count) {
            round += 1
            var samples: [Double] = [], parserSamples: [Double] = []
            for index in 0..<100 {
                let arguments = ["enqueue", "--title", "Door \(round).\(index)", "--key", "bench", "--dwell", "0.05", "--socket", socket]
                samples.append(timed { spawnAndWait(binaries + "/nookctl", arguments, quiet: true) })
                if throughArgumentParser {
                    parserSamples.append(timed { spawnAndWait(binaries + "/nookctl", arguments + ["--key", "bench"], quiet: true) })
                }
            }
            samples.sort()
            parserSamples.sort()
            if throughArgumentParser { argumentParser.append(parserSamples[98]) }
            return samples[98]
        }
        return (fastPath, Spread(rounds: argumentParser))
    }

    private func pipelinedRound(socket: String) throws -> Double {
        let client = try NookClient(path: socket)
        client.readTimeout = .seconds(30)
        let count = 10_000
        var payload: [UInt8] = []
        for index in 0..<count {
            let activity = NookActivity(coalescingKey: "k\(index % 100)", title: "Burst \(index)", dwell: .milliseconds(10))
            payload += Array((Request(id: .number(Double(index)), operation: .enqueue(activity, module: nil, wait: false)).encoded() + "\n").utf8)
        }
        let start = ContinuousClock.now
        let answered = try pipeline(payload, answers: count, through: client)
        let seconds = (ContinuousClock.now - start).nookSeconds
        return Double(answered) / seconds
    }

    /// Writes `payload` (request lines) on a thread of its own while this one reads answers,
    /// until `answers` have come or the connection closes; returns how many came.
    /// Writing and reading at once on one connection: sendRaw touches only the socket,
    /// readLine only its own buffer, so one thread may write while the other reads.
    func pipeline(_ payload: [UInt8], answers: Int, through client: NookClient) throws -> Int {
        let writing = UncheckedBox((client, payload))
        let writer = Thread { try? writing.value.0.sendRaw(writing.value.1) }
        writer.start()
        var answered = 0
        let answerStart = Array(#"{"v":1,"id":"#.utf8)
        while answered < answers, let line = try client.readLine() {
            if line.starts(with: answerStart) { answered += 1 }
        }
        return answered
    }

    /// Shows 100 activities on an otherwise idle nookd and returns once it is idle again and
    /// has been for `settle` (long enough to have let go of its spare frames).
    func show100(socket: String, settle: Duration) throws {
        let client = try NookClient(path: socket)
        client.readTimeout = .seconds(30)
        for index in 0..<100 {
            var activity = NookActivity(title: "Activity \(index)", subtitle: "shown and gone", systemImage: "bell", dwell: .milliseconds(10))
            activity.transition = .milliseconds(20)
            activity.endDelay = .zero
            _ = try client.request(Request(id: .number(1), operation: .enqueue(activity, module: nil, wait: false)))
        }
        for _ in 0..<1000 {
            let status = try client.request(Request(id: .number(2), operation: .status))
            if status["modules"]?.items.first?["pending"] == .number(0), status["modules"]?.items.first?["current"] == .null { break }
            usleep(20_000)
        }
        usleep(UInt32(settle.nookSeconds * 1_000_000))
    }

    func rssMiB(pid: pid_t) -> Double {
        Double(statusField(pid: pid, "VmRSS:") ?? 0) / 1024
    }

    /// An idle nookd sampled every 25 ms for `minutes` minutes (one round per minute): how many
    /// times a minute it woke (a sample in which any of its threads was switched in, after one
    /// in which none was: the minute tick waking the main thread, a pool thread and pango's is
    /// one wake), and its voluntary and involuntary context switches a second over the whole
    /// time. Counted per thread: a thread that exits meanwhile takes its count with it, a new
    /// one starts at zero.
    func idleWakes(pid: pid_t, minutes: Int) -> (perMinute: Spread, switchesPerSecond: Double) {
        usleep(1_000_000)
        var previous = contextSwitches(pid: pid)
        var wasAwake = false
        var switches = 0
        var perMinute: [Double] = []
        let start = ContinuousClock.now
        for minute in 1...minutes {
            var wakes = 0
            while ContinuousClock.now < start + .seconds(60 * minute) {
                usleep(25_000)
                let counts = contextSwitches(pid: pid)
                let grown = counts.reduce(0) { total, thread in total + max(0, thread.value - (previous[thread.key] ?? 0)) }
                if grown > 0 && !wasAwake { wakes += 1 }
                (wasAwake, previous, switches) = (grown > 0, counts, switches + grown)
            }
            perMinute.append(Double(wakes))
        }
        return (Spread(rounds: perMinute), Double(switches) / Double(60 * minutes))
    }

    /// nookd's memory from `/proc/PID/smaps_rollup` (MiB): proportional set size (shared pages
    /// divided among the processes mapping them), and resident pages private to nookd or shared.
    func memory(pid: pid_t) -> (pss: Double, privateMiB: Double, sharedMiB: Double, privateDirtyMiB: Double) {
        let fields = smapsFields(procText("/proc/\(pid)/smaps_rollup"))
        func mib(_ names: String...) -> Double { Double(names.reduce(0) { $0 + (fields[$1] ?? 0) }) / 1024 }
        return (mib("Pss"), mib("Private_Clean", "Private_Dirty"), mib("Shared_Clean", "Shared_Dirty"), mib("Private_Dirty"))
    }

    /// Where nookd's resident kilobytes are, by mapping (the binary, each library, heap, anonymous,
    /// fonts), largest first, with how much of each is dirty: the table in docs/benchmarks.md comes from this.
    func residentByMapping(pid: pid_t) -> [(name: String, rssKiB: Int, dirtyKiB: Int)] {
        let smaps = procText("/proc/\(pid)/smaps")
        var totals: [String: (rss: Int, dirty: Int)] = [:]
        var current = "?"
        for line in smaps.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = parts.first, first.contains("-"), first.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                current = parts.count >= 6 ? String(parts[5...].joined(separator: " ").split(separator: "/").last ?? "?") : "[anonymous]"
            } else if parts.first == "Rss:", parts.count > 1, let kib = Int(parts[1]) {
                totals[current, default: (0, 0)].rss += kib
            } else if parts.first == "Private_Dirty:" || parts.first == "Shared_Dirty:", parts.count > 1, let kib = Int(parts[1]) {
                totals[current, default: (0, 0)].dirty += kib
            }
        }
        return totals.map { ($0.key, $0.value.rss, $0.value.dirty) }.filter { $0.rssKiB > 0 }.sorted { $0.rssKiB > $1.rssKiB }
    }

    /// A /proc file read to its end (they report a size of 0, and are generated as read).
    func procText(_ path: String) -> String {
        (try? readRegularFile(path, limit: 64 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    private func smapsFields(_ text: String) -> [String: Int] {
        var fields: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count >= 2, parts[0].hasSuffix(":"), let kib = Int(parts[1]) { fields[String(parts[0].dropLast())] = kib }
        }
        return fields
    }

    private func contextSwitches(pid: pid_t) -> [String: Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var counts: [String: Int] = [:]
        for task in tasks {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            counts[task] = text.split(separator: "\n").filter { $0.hasPrefix("voluntary_ctxt_switches") || $0.hasPrefix("nonvoluntary_ctxt_switches") }
                .compactMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
        }
        return counts
    }

    func statusField(pid: pid_t, _ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return nil }
        return Int(line.split(separator: " ").dropFirst().first { Int($0) != nil } ?? "")
    }

    /// In-process: from `enqueue` on an idle queue to the mock display presenting the first frame
    /// of its card, through the real queue, screen and renderer on the system clock.
    /// With `afterRelease`, the screen lets go of its spare frames after 20 ms of home and
    /// every card comes after that: `first_frame_after_idle_ms_p99`, the first frame that has to
    /// allocate its frames again.
    func enqueueToFirstFrameP99(rounds count: Int = 3, afterRelease: Bool = false) async -> Spread {
        await rounds(count) { await enqueueToFirstFrameRound(afterRelease: afterRelease) }
    }

    /// One round of 100 cards: the p99 (their second largest).
    private func enqueueToFirstFrameRound(afterRelease: Bool) async -> Double {
        let stack = await InProcessScreen { screen in
            guard afterRelease else { return }
            // As nookd: frames are mappings of their own, so each card after a release maps and
            // faults in its frames afresh (without this, malloc hands back the ones just freed).
            FrameMemory.keepFramesAsOwnMappings()
            await screen.releaseFrames(after: .milliseconds(20))
        }
        let (presented, screen, queue) = (stack.presented, stack.screen, stack.queue)
        // The first card after start (fontconfig and pango loading fonts) is always among the
        // largest: one card before the samples.
        var samples: [Double] = []
        var faults: [Double] = []
        var switches: [(Int, Int)] = []
        for index in -1..<100 {
            var activity = NookActivity(title: "Build \(index) finished", subtitle: "Debug · 12.4s", systemImage: "hammer",
                                        tint: .named(.green), dwell: .milliseconds(5))
            activity.transition = .milliseconds(20)
            activity.endDelay = .zero
            // Start from an idle screen: the previous card gone, its slide-out and the home frame
            // presented (the screen follows the queue's events a few frames behind).
            while await queue.current != nil { try? await Task.sleep(for: .milliseconds(5)) }
            try? await Task.sleep(for: .milliseconds(80))
            if afterRelease {
                while await screen.frameReleases < index + 2 { try? await Task.sleep(for: .milliseconds(5)) }
                FrameMemory.waitForTrims()
            }
            presented.reset()
            var before = rusage(), after = rusage()
            getrusage(Int32(RUSAGE_SELF.rawValue), &before)
            let start = ContinuousClock.now
            await queue.enqueue(activity)
            await presented.wait()
            getrusage(Int32(RUSAGE_SELF.rawValue), &after)
            if index >= 0 {
                samples.append((presented.at! - start).nookSeconds * 1000)
                faults.append(Double(after.ru_minflt - before.ru_minflt))
                switches.append((after.ru_nvcsw - before.ru_nvcsw, after.ru_nivcsw - before.ru_nivcsw))
            }
        }
        stack.stop()
        if getenv("NOOK_BENCH_VERBOSE") != nil {
            // The slowest cards beside their page faults and the process's context switches
            // (voluntary: hops between threads; involuntary: a core taken by something else).
            let slowest = samples.indices.sorted { samples[$0] > samples[$1] }.prefix(4)
            print("first-frame slowest (card: ms, faults, switches vol/invol):", slowest.map {
                "\($0): \((samples[$0] * 100).rounded() / 100), \(Int(faults[$0])), \(switches[$0].0)/\(switches[$0].1)"
            }, "median switches vol", median(switches.map { Double($0.0) }))
        }
        samples.sort()
        if getenv("NOOK_BENCH_VERBOSE") != nil { print("first-frame samples (ms):", samples.map { (($0 * 100).rounded() / 100) }) }
        // Page faults from enqueue to the first frame (the whole process: the queue, the screen
        // and the mock run in it), a count the machine's load does not change.
        print("  \(afterRelease ? "first_frame_after_idle" : "enqueue_to_first_frame")_minflt_median: \(median(faults))")
        return samples[Int(Double(samples.count - 1) * 0.99)]
    }
}

/// Hands a value to another thread where the caller guarantees the sharing is safe.
final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// When the mock display presented its next frame. The benchmark waits on it without spinning:
/// a spinning task would hold one of the two cooperative threads the screen needs.
final class FirstFrameClock: @unchecked Sendable {
    private let lock = NSLock()
    private var time: ContinuousClock.Instant?
    private var waiter: CheckedContinuation<Void, Never>?
    func reset() { lock.withLock { time = nil } }
    func mark() {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            guard time == nil else { return nil }
            time = .now
            defer { self.waiter = nil }
            return self.waiter
        }
        waiter?.resume()
    }
    func wait() async {
        await withCheckedContinuation { continuation in
            let done = lock.withLock { () -> Bool in
                if time != nil { return true }
                waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
    var at: ContinuousClock.Instant? { lock.withLock { time } }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func timed(_ body: () -> Int32) -> Double {
    let start = ContinuousClock.now
    _ = body()
    return (ContinuousClock.now - start).nookSeconds * 1000
}

@discardableResult
func spawn(_ arguments: [String], pid: inout pid_t, quiet: Bool, stdin: String? = nil) -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let stdin { posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0) }
    if quiet {
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    }
    // A clean signal mask: this benchmark's threads block SIGTERM, and a child keeps the mask
    // it was started with (mosquitto then never stopped).
    switch ChildSpawns.spawn(arguments, fileActions: &actions) {
    case .success(let child):
        pid = child
        return 0
    case .failure(let error):
        return error.errno.rawValue
    }
}

func spawnAndWait(_ path: String, _ arguments: [String], quiet: Bool, stdin: String? = nil) -> Int32 {
    var pid: pid_t = 0
    guard spawn([path] + arguments, pid: &pid, quiet: quiet, stdin: stdin) == 0 else { return -1 }
    var status: Int32 = 0
    _ = try? System.wait(for: pid, status: &status)
    return status
}

/// Stops a child of the benchmark: SIGTERM, then SIGKILL if it has not exited within `grace`
/// seconds, so no child can hang a run. One that needed SIGKILL is named on stdout (beside
/// the figures it belonged to) and in ``unstoppedChildren``.
func stop(_ pid: pid_t, grace: Double = 5) {
    guard pid > 0 else { return }
    try? System.kill(pid, SIGTERM)
    if reaped(pid, within: grace) { return }
    let name = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    let blocked = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8))?
        .split(separator: "\n").first { $0.hasPrefix("SigBlk:") }.map { $0.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces) } ?? "?"
    try? System.kill(pid, SIGKILL)
    let gone = reaped(pid, within: grace)
    let note = "\(name) (pid \(pid)) did not stop within \(grace) s of SIGTERM (SigBlk \(blocked)): " + (gone ? "killed" : "still there after SIGKILL")
    print("note: " + note)
    unstoppedChildren.withLock { $0.append(note) }
}

/// Children that needed SIGKILL in this run (see ``stop(_:grace:)``).
let unstoppedChildren = Locked<[String]>([])

/// Whether `pid` exited (and was reaped) within `seconds`.
func reaped(_ pid: pid_t, within seconds: Double) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    var status: Int32 = 0
    while true {
        switch System.waitResult(for: pid, status: &status, options: WNOHANG) {
        case .success(pid), .failure(.noChildProcess): return true
        default: break
        }
        if ContinuousClock.now >= deadline { return false }
        usleep(10_000)
    }
}
