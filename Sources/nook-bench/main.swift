// Prints one `name: value` line per figure. Ratios are measured side by side in one run, and
// every figure is the median of several rounds, so a busy machine skews both sides alike.
// With no argument every figure runs (hours); a group's name runs that group alone (`groups`
// below, which `--help` prints); `--against REV [GROUP]` runs them beside another revision's
// (AgainstRevision.swift). Rounds.swift says how to add a figure.
#if canImport(Glibc)
import Glibc
#endif
import NookActivities
import NookDisplay
import NookSystem

/// The daemon's and the CLI's figures: nookd and nookctl as release binaries, side by side with socat.
func reportDaemonFigures(_ figures: DaemonFigures) async {
    do {
        try figures.prepare()
        let socket = figures.scratch + "/nookd.sock"
        let pid = try figures.startDaemon(socket: socket)
        await reportCLIFigures(figures, socket: socket)
        let pipelined = try await figures.pipelined(socket: socket, pid: pid)
        report("pipelined_enqueues_per_s", pipelined.rate)
        report("pipelined_nookd_cpu_us_per_enqueue", pipelined.cpuMicroseconds)
        figures.stop(pid)
        // As the system service runs it: every enqueue on stable storage before it is
        // acknowledged (journal.sync = "ack", the default), the journal on this machine's disk.
        let journaled = try figures.startDaemon(socket: socket, extra: ["--journal", figures.scratch + "/journal"])
        report("pipelined_enqueues_journaled_per_s", try await figures.pipelinedEnqueuesPerSecond(socket: socket))
        let ack = await figures.journaledEnqueueP99(socket: socket, throughArgumentParser: true)
        report("enqueue_journaled_ack_ms_p99", ack.fastPath)
        report("enqueue_journaled_ack_argument_parser_ms_p99", ack.argumentParser)
        try await reportAckVersusDisk(socket: socket, journal: figures.scratch + "/journal")
        figures.stop(journaled)
        // The trade-off: written before the answer, synced within a second (journal.sync = "interval").
        let interval = try figures.startDaemon(socket: socket, extra: ["--journal", figures.scratch + "/journal-interval", "--journal-sync", "interval"])
        report("pipelined_enqueues_journaled_interval_per_s", try await figures.pipelinedEnqueuesPerSecond(socket: socket))
        report("enqueue_journaled_interval_ms_p99", await figures.journaledEnqueueP99(socket: socket))
        figures.stop(interval)
        report("sigterm_mid_slide_exit_ms", try await figures.sigtermMidSlideExitMs())
        try await reportIdleDaemon(figures, socket: socket)
    } catch {
        print("daemon figures skipped: \(error)")
    }
    report("enqueue_to_first_frame_ms_p99", await figures.enqueueToFirstFrameP99())
    report("update_to_frame_ms_p99", await figures.updateToFrameP99())
    report("first_frame_after_idle_ms_p99", await figures.enqueueToFirstFrameP99(afterRelease: true))
}

/// The durable ack against the disk it waits on (`JournalVersusDiskFigure`), for a nookd whose
/// journal is `journal` with `journal.sync = "ack"`.
func reportAckVersusDisk(socket: String, journal: String) async throws {
    let figure = try await JournalVersusDiskFigure(socket: socket, journal: journal).run()
    report("journaled_ack_p99_vs_fdatasync_p99", figure.replacing)
    report("journaled_new_card_ack_p99_vs_fdatasync_p99", figure.newCard)
    print("  journaled_ack_p99_vs_fdatasync_p99 record: \(figure.recordBytes) bytes")
}

/// nookctl enqueue's start-up: through its fast path and through ArgumentParser, each against socat.
func reportCLIFigures(_ figures: DaemonFigures, socket: String) async {
    do {
        let cli = try await figures.cliVersusSocat(socket: socket)
        report("cli_enqueue_vs_socat", cli.fastPath)
        report("cli_enqueue_argument_parser_vs_socat", cli.argumentParser)
    } catch {
        print("cli figures skipped: \(error)")
    }
}

/// A nookd that has shown 100 cards and then sat idle with the clock home: its memory once it
/// has let go of its spare frames, and how often it wakes (`nook-bench idle` runs only these).
func reportIdleDaemon(_ figures: DaemonFigures, socket: String) async throws {
    let pid = try figures.startDaemon(socket: socket)
    try figures.show100(socket: socket, settle: .seconds(12))
    report("daemon_idle_rss_mib", figures.rssMiB(pid: pid))
    let memory = figures.memory(pid: pid)
    report("daemon_idle_pss_mib", memory.pss)
    report("daemon_idle_private_mib", memory.privateMiB)
    report("daemon_idle_shared_mib", memory.sharedMiB)
    report("daemon_idle_private_dirty_mib", memory.privateDirtyMiB)
    if getenv("NOOK_BENCH_VERBOSE") != nil {
        for mapping in figures.residentByMapping(pid: pid).prefix(20) {
            print("  resident \(mapping.name): \(mapping.rssKiB) KiB (\(mapping.dirtyKiB) dirty)")
        }
    }
    // Three minutes, a round each: the clock's minute tick falls once in every one.
    let wakes = figures.idleWakes(pid: pid, minutes: 3)
    report("daemon_idle_wakes_per_min", wakes.perMinute)
    report("daemon_idle_wakeups_per_s", wakes.switchesPerSecond)
    figures.stop(pid)
    // The same nookd on the platform's executors (libdispatch's), the fallback of a compiler
    // without SE-0476 (Swift 6.0): one minute shows libdispatch's wake a second beside the tick.
    let platform = try figures.startDaemon(socket: socket, platformExecutors: true)
    try figures.show100(socket: socket, settle: .seconds(12))
    report("daemon_idle_rss_mib_platform_executors", figures.rssMiB(pid: platform))
    report("daemon_idle_wakes_per_min_platform_executors", figures.idleWakes(pid: platform, minutes: 1).perMinute)
    figures.stop(platform)
}

/// `count` activities through nookd (`nook-bench soak [--count N]`); the figures' names carry
/// the count in thousands (`soak_rss_after_100k_mib` for the default 100,000).
func reportSoak(_ figures: DaemonFigures, count: Int = 100_000) {
    do {
        try figures.prepare()
        let soak = try SoakFigure(daemon: figures, total: count).run()
        let all = "\(count / 1000)k"
        report("soak_seconds", soak.seconds)
        report("soak_rss_after_first_1k_mib", soak.rssAfterFirst1kMiB)
        report("soak_rss_after_\(all)_mib", soak.rssAfterAllMiB)
        report("soak_rss_growth_pct", soak.growthPercent)
        report("soak_rss_second_half_growth_pct", soak.secondHalfGrowthPercent)
        report("soak_idle_anon_after_first_1k_mib", soak.idleAnonAfterFirst1kMiB)
        report("soak_idle_anon_after_\(all)_mib", soak.idleAnonAfterAllMiB)
        report("soak_idle_anon_growth_pct", soak.idleAnonGrowthPercent)
        for (count, mib) in soak.idleAnonAt { print("  soak_idle_anon_mib after \(count): \((mib * 100).rounded() / 100)") }
        report("soak_fd_growth", Double(soak.fdsAfterAll - soak.fdsAfterFirst1k))
        report("soak_journal_kib", soak.journalKiB)
    } catch {
        print("soak skipped: \(error)")
    }
}

// `--against REV`: this tree's figures beside another revision's, in one sitting.
do {
    if let against = try AgainstRevision.parse(Array(CommandLine.arguments.dropFirst()), packageRoot: DaemonFigures().packageRoot) {
        try against.run()
        exit(0)
    }
} catch {
    print("nook-bench: \(error)")
    exit(1)
}

/// Every group `nook-bench GROUP` runs alone, as the `if` lines below test the argument, with
/// what it measures (NookHardwareTests checks the two agree).
let groups: KeyValuePairs<String, String> = [
    "render": "drawing, slides and rotation at 1280x400 and 1920x480, and the slowest card",
    "soak": "100,000 activities (--count N) through nookd: memory and descriptors",
    "first-frame": "enqueue to the first frame, and after nookd let go of its frames",
    "stop": "SIGTERM mid-slide to exit",
    "ntfy": "nook-http beside Debian 13's ntfy",
    "start": "exec to socket and to the first frame, 1,000 cards restored",
    "update": "an update to its frame",
    "pipelined": "pipelined enqueues a second, and nookd's processor time each",
    "led": "LED encoding and the marquee",
    "lcdproc": "the LCDproc server",
    "journal": "the journal: durable acknowledgement against interval syncing",
    "idle": "an idle nookd: wake-ups and resident memory",
    "http": "nook-http's figures",
    "http-burst": "a burst of history over HTTP",
    "http-list": "a queue of 100,000 read page by page over HTTP",
    "http-viewers": "a stalled live-view viewer's cost",
    "mqtt": "nook-mqtt's figures",
    "notify": "nook-notify's figures",
    "history": "the history's figures",
    "page": "the web page's weight",
    "brightness": "brightness changes",
    "cli": "nookctl's start-up",
    "flags": "ArgumentParser against the hand flag reader",
    "live-view": "the live view",
    "apps": "the apps between the cards",
    "sound": "a sound's first tone, and what a sound device costs an idle nookd",
    "daemon": "the figures of nookd and nookctl",
]
// A name that is no group's (a typo, --help) never falls through to every figure: hours of
// them, and not the ones asked for.
if let asked = CommandLine.arguments.dropFirst().first, !groups.contains(where: { $0.key == asked }) {
    let help = asked == "--help" || asked == "-h"
    var usage = "usage: nook-bench [GROUP] | nook-bench --against REV [--runs N] [GROUP]\n"
        + "With no GROUP every figure runs, which takes hours. The groups:\n"
    for (name, what) in groups { usage += "  " + name + String(repeating: " ", count: max(1, 14 - name.count)) + what + "\n" }
    if help {
        print(usage, terminator: "")
        exit(0)
    }
    writeWhole("nook-bench: no group '\(asked)'\n" + usage, to: STDERR_FILENO)
    exit(64)
}

Machine.report()

/// Render, slide, rotation and their page faults at both panel sizes (`nook-bench render` runs only these).
func reportRenderFigures() async {
    for size in [PixelSize(width: 1280, height: 400), PixelSize(width: 1920, height: 480)] {
        await RenderFigures(size: size).run()
    }
    let worst = await WorstCardFigure.run()
    report("card_render_worst_ms", worst.spread)
    print("  card_render_worst_ms slowest card: \(worst.slowest)")
}

if CommandLine.arguments.dropFirst().first == "render" {
    await reportRenderFigures()
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "soak" {
    let rest = Array(CommandLine.arguments.dropFirst(2))
    var count = 100_000
    if !rest.isEmpty {
        guard rest.count == 2, rest[0] == "--count", let asked = Int(rest[1]), asked >= 1_000 else {
            writeWhole("nook-bench soak: expected '--count N' with N at least 1000, got '\(rest.joined(separator: " "))'\n", to: STDERR_FILENO)
            exit(64)
        }
        count = asked
    }
    reportSoak(DaemonFigures(), count: count)
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "first-frame" {
    report("enqueue_to_first_frame_ms_p99", await DaemonFigures().enqueueToFirstFrameP99())
    report("first_frame_after_idle_ms_p99", await DaemonFigures().enqueueToFirstFrameP99(afterRelease: true))
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "stop" {
    let figures = DaemonFigures()
    try figures.prepare()
    report("sigterm_mid_slide_exit_ms", try await figures.sigtermMidSlideExitMs())
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "ntfy" {
    reportNtfyFigures(DaemonFigures())
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "start" {
    await reportStartFigures(DaemonFigures())
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
    let pipelined = try await figures.pipelined(socket: socket, pid: pid)
    report("pipelined_enqueues_per_s", pipelined.rate)
    report("pipelined_nookd_cpu_us_per_enqueue", pipelined.cpuMicroseconds)
    figures.stop(pid)
    exit(0)
}
/// LED encoding and the marquee (`nook-bench led` runs only these).
func reportLEDFigures() {
    do {
        // Rounds, with their spread: a figure this small moves with the machine's load.
        for (name, fading) in [("led_encode_ns_per_led", false), ("led_encode_fading_ns_per_led", true)] {
            let samples = try LEDFigures.encodeNanosecondsPerLED(fading: fading)
            report(name, median(samples))
            print("\(name)_range: \((samples.min()! * 1000).rounded() / 1000) \((samples.max()! * 1000).rounded() / 1000)")
        }
        report("led_marquee_frame_us", try LEDFigures.marqueeFrameMicroseconds())
    } catch {
        print("LED figures skipped: \(error)")
    }
}

if CommandLine.arguments.dropFirst().first == "led" {
    reportLEDFigures()
    exit(0)
}
/// The LCDproc server (`nook-bench lcdproc` runs only these).
func reportLCDprocFigures() async {
    report("lcdproc_widget_set_to_frame_ms_p99", await LCDprocFigures.widgetSetToFrameP99())
    do {
        report("lcdproc_client_updates_per_s", try await LCDprocFigures.clientUpdatesPerSecond())
    } catch {
        print("lcdproc figures skipped: \(error)")
    }
}

if CommandLine.arguments.dropFirst().first == "lcdproc" {
    await reportLCDprocFigures()
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "journal" {
    // Only the journal's figures: durable acknowledgement against interval syncing.
    let figures = DaemonFigures()
    try figures.prepare()
    let socket = figures.scratch + "/nookd.sock"
    for (name, extra) in [("", [String]()), ("_interval", ["--journal-sync", "interval"])] {
        let pid = try figures.startDaemon(socket: socket, extra: ["--journal", figures.scratch + "/journal\(name)"] + extra)
        report("pipelined_enqueues_journaled\(name)_per_s", try await figures.pipelinedEnqueuesPerSecond(socket: socket))
        report(name.isEmpty ? "enqueue_journaled_ack_ms_p99" : "enqueue_journaled_interval_ms_p99", await figures.journaledEnqueueP99(socket: socket))
        if name.isEmpty { try await reportAckVersusDisk(socket: socket, journal: figures.scratch + "/journal") }
        figures.stop(pid)
    }
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "idle" {
    let figures = DaemonFigures()
    try figures.prepare()
    try await reportIdleDaemon(figures, socket: figures.scratch + "/nookd.sock")
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "http" {
    reportHTTPFigures(DaemonFigures())
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "http-burst" {
    reportHistoryBurstFigure(DaemonFigures())
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "http-list" {
    reportListingFigure(DaemonFigures())
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "http-viewers" {
    reportStalledViewerFigure(DaemonFigures())
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "mqtt" {
    reportMQTTFigures(DaemonFigures())
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "notify" {
    reportNotifyFigures(DaemonFigures())
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "history" {
    let figures = DaemonFigures()
    try figures.prepare()
    reportHistoryFigures(figures)
    exit(0)
}
// `nook-bench page`: the web page's weight alone.
if CommandLine.arguments.dropFirst().first == "page" {
    reportPageFigures()
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "brightness" {
    let figures = DaemonFigures()
    try figures.prepare()
    reportBrightnessFigures(figures)
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "cli" {
    let figures = DaemonFigures()
    try figures.prepare()
    let socket = figures.scratch + "/nookd.sock"
    let pid = try figures.startDaemon(socket: socket)
    await reportCLIFigures(figures, socket: socket)
    figures.stop(pid)
    let journaled = try figures.startDaemon(socket: socket, extra: ["--journal", figures.scratch + "/journal"])
    let ack = await figures.journaledEnqueueP99(socket: socket, throughArgumentParser: true)
    report("enqueue_journaled_ack_ms_p99", ack.fastPath)
    report("enqueue_journaled_ack_argument_parser_ms_p99", ack.argumentParser)
    figures.stop(journaled)
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "flags" {
    await reportFlagFigures(DaemonFigures())
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "live-view" {
    await reportLiveViewFigures(DaemonFigures())
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "apps" {
    await reportAppFigures(DaemonFigures())
    exit(0)
}
/// B6: a sound's latency to its first tone, and what a sound device costs an idle nookd.
func reportSoundFigures(_ figures: DaemonFigures) async {
    do {
        try await SoundFigures(daemon: figures).run()
    } catch {
        print("sound figures skipped: \(error)")
    }
}

if CommandLine.arguments.dropFirst().first == "sound" {
    await reportSoundFigures(DaemonFigures())
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "daemon" {
    await reportDaemonFigures(DaemonFigures())
    exit(0)
}

reportPageFigures()

var burst10k: [Double] = []
var burst100k: [Double] = []
for _ in 0..<5 {
    burst10k.append(await QueueBurst(count: 10_000).run())
    burst100k.append(await QueueBurst(count: 100_000).run())
}
report("queue_burst_10k_ms", Spread(rounds: burst10k))
report("queue_burst_100k_ms", Spread(rounds: burst100k))
// Each round's own ratio: the two sizes of one round ran under the same load.
report("queue_scaling_100k_vs_10k", Spread(rounds: zip(burst100k, burst10k).map { $0 / $1 }))

await reportRenderFigures()

reportLEDFigures()
await reportLCDprocFigures()

let daemonFigures = DaemonFigures()
await reportDaemonFigures(daemonFigures)
await reportStartFigures(daemonFigures)
await reportFlagFigures(daemonFigures)
reportMQTTFigures(daemonFigures)
reportHTTPFigures(daemonFigures)
reportNtfyFigures(daemonFigures)
reportHistoryBurstFigure(daemonFigures)
reportNotifyFigures(daemonFigures)
reportHistoryFigures(daemonFigures)
reportBrightnessFigures(daemonFigures)
await reportLiveViewFigures(daemonFigures)
await reportAppFigures(daemonFigures)
await reportSoundFigures(daemonFigures)
reportSoak(daemonFigures)
