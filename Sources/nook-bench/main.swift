// Prints one `name: value` line per figure. Ratios are measured side by side in one run, and
// every figure is the median of several rounds, so a busy machine skews both sides alike.
// `nook-bench soak` runs only the soak (100,000 activities through nookd); `nook-bench daemon`
// only the figures of nookd and nookctl; `nook-bench journal` only the journal's.
#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookDisplay

/// The figures of issue 4: nookd and nookctl as release binaries, side by side with socat.
func reportDaemonFigures(_ figures: DaemonFigures) async {
    do {
        try figures.prepare()
        let socket = figures.scratch + "/nookd.sock"
        let pid = try figures.startDaemon(socket: socket)
        report("daemon_idle_wakeups_per_s", figures.idleWakeupsPerSecond(pid: pid, seconds: 5))
        report("cli_enqueue_vs_socat", figures.cliVersusSocat(socket: socket))
        report("pipelined_enqueues_per_s", try figures.pipelinedEnqueuesPerSecond(socket: socket))
        figures.stop(pid)
        // As the system service runs it: every enqueue on stable storage before it is
        // acknowledged (journal.sync = "ack", the default), the journal on this machine's disk.
        let journaled = try figures.startDaemon(socket: socket, extra: ["--journal", figures.scratch + "/journal"])
        report("pipelined_enqueues_journaled_per_s", try figures.pipelinedEnqueuesPerSecond(socket: socket, rounds: 5, showSpread: true))
        report("enqueue_journaled_ack_ms_p99", figures.journaledEnqueueP99(socket: socket))
        figures.stop(journaled)
        // The trade-off: written before the answer, synced within a second (journal.sync = "interval").
        let interval = try figures.startDaemon(socket: socket, extra: ["--journal", figures.scratch + "/journal-interval", "--journal-sync", "interval"])
        report("pipelined_enqueues_journaled_interval_per_s", try figures.pipelinedEnqueuesPerSecond(socket: socket, rounds: 5, showSpread: true))
        report("enqueue_journaled_interval_ms_p99", figures.journaledEnqueueP99(socket: socket))
        figures.stop(interval)
        let fresh = try figures.startDaemon(socket: socket)
        report("daemon_idle_rss_mib", try figures.idleRSSAfter100(socket: socket, pid: fresh))
        figures.stop(fresh)
    } catch {
        print("daemon figures skipped: \(error)")
    }
    report("enqueue_to_first_frame_ms_p99", await figures.enqueueToFirstFrameP99())
    report("update_to_frame_ms_p99", await figures.updateToFrameP99())
}

func reportSoak(_ figures: DaemonFigures) {
    do {
        try figures.prepare()
        let soak = try SoakFigure(daemon: figures).run()
        report("soak_seconds", soak.seconds)
        report("soak_rss_after_first_1k_mib", soak.rssAfterFirst1kMiB)
        report("soak_rss_after_100k_mib", soak.rssAfterAllMiB)
        report("soak_rss_growth_pct", soak.growthPercent)
        report("soak_fd_growth", Double(soak.fdsAfterAll - soak.fdsAfterFirst1k))
        report("soak_journal_kib", soak.journalKiB)
    } catch {
        print("soak skipped: \(error)")
    }
}

if CommandLine.arguments.dropFirst().first == "soak" {
    reportSoak(DaemonFigures())
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "first-frame" {
    report("enqueue_to_first_frame_ms_p99", await DaemonFigures().enqueueToFirstFrameP99())
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "update" {
    report("update_to_frame_ms_p99", await DaemonFigures().updateToFrameP99())
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "pipelined" {
    let figures = DaemonFigures()
    try figures.prepare()
    let socket = figures.scratch + "/nookd.sock"
    let pid = try figures.startDaemon(socket: socket)
    report("pipelined_enqueues_per_s", try figures.pipelinedEnqueuesPerSecond(socket: socket, rounds: 5))
    figures.stop(pid)
    exit(0)
}
/// Issue 18: LED encoding and the marquee (`nook-bench led` runs only these).
func reportLEDFigures() {
    do {
        report("led_encode_ns_per_led", try LEDFigures.encodeNanosecondsPerLED())
        report("led_marquee_frame_us", try LEDFigures.marqueeFrameMicroseconds())
    } catch {
        print("LED figures skipped: \(error)")
    }
}

if CommandLine.arguments.dropFirst().first == "led" {
    reportLEDFigures()
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "journal" {
    // Only the journal's figures: durable acknowledgement against interval syncing.
    let figures = DaemonFigures()
    try figures.prepare()
    let socket = figures.scratch + "/nookd.sock"
    for (name, extra) in [("", [String]()), ("_interval", ["--journal-sync", "interval"])] {
        let pid = try figures.startDaemon(socket: socket, extra: ["--journal", figures.scratch + "/journal\(name)"] + extra)
        report("pipelined_enqueues_journaled\(name)_per_s", try figures.pipelinedEnqueuesPerSecond(socket: socket, rounds: 5, showSpread: true))
        report(name.isEmpty ? "enqueue_journaled_ack_ms_p99" : "enqueue_journaled_interval_ms_p99", figures.journaledEnqueueP99(socket: socket))
        figures.stop(pid)
    }
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "daemon" {
    await reportDaemonFigures(DaemonFigures())
    exit(0)
}

let rounds = 5

var burst10k: [Double] = []
var burst100k: [Double] = []
for _ in 0..<rounds {
    burst10k.append(await QueueBurst(count: 10_000).run())
    burst100k.append(await QueueBurst(count: 100_000).run())
}
let median10k = median(burst10k)
let median100k = median(burst100k)
report("queue_burst_10k_ms", median10k)
report("queue_burst_100k_ms", median100k)
report("queue_scaling_100k_vs_10k", median100k / median10k)

for size in [PixelSize(width: 1280, height: 400), PixelSize(width: 1920, height: 480)] {
    let figures = RenderFigures(size: size, repetitions: 200).run()
    report("anim_frame_vs_memcpy_\(size)", figures.anim)
    report("card_render_vs_memset_\(size)", figures.render)
    report("rotate90_vs_memcpy_\(size)", figures.rotate)
}

reportLEDFigures()

let daemonFigures = DaemonFigures()
await reportDaemonFigures(daemonFigures)
reportSoak(daemonFigures)
