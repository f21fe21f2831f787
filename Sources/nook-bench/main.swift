// Prints one `name: value` line per figure. Ratios are measured side by side in one run, and
// every figure is the median of several rounds, so a busy machine skews both sides alike.
import NookActivities
import NookDisplay

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

let daemonFigures = DaemonFigures()
do {
    try daemonFigures.prepare()
    let socket = daemonFigures.scratch + "/nookd.sock"
    let pid = try daemonFigures.startDaemon(socket: socket)
    report("daemon_idle_wakeups_per_s", daemonFigures.idleWakeupsPerSecond(pid: pid, seconds: 5))
    report("cli_enqueue_vs_socat", daemonFigures.cliVersusSocat(socket: socket))
    report("pipelined_enqueues_per_s", try daemonFigures.pipelinedEnqueuesPerSecond(socket: socket))
    daemonFigures.stop(pid)
    let fresh = try daemonFigures.startDaemon(socket: socket)
    report("daemon_idle_rss_mib", try daemonFigures.idleRSSAfter100(socket: socket, pid: fresh))
    daemonFigures.stop(fresh)
} catch {
    print("daemon figures skipped: \(error)")
}
report("enqueue_to_first_frame_ms_p99", await daemonFigures.enqueueToFirstFrameP99())
