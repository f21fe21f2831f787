// A live tour of the activity queue on the real clock: priorities, coalescing, yielding to a
// user who hovers, and a blocker that waits to be dismissed. Prints every lifecycle event.
import NookActivities

let clock = NookSystemClock()
let engagement = NookEngagement()
let arbiter = NookSurfaceArbiter(foreground: "demo", clock: clock)
let queue = NookActivityQueue(clock: clock, engagement: engagement)
var titles: [NookActivityID: String] = [:]

func say(_ text: String) {
    print("[\(seconds(clock.now))] \(text)")
}

func seconds(_ instant: NookInstant) -> String {
    let tenths = Int((instant.sinceOrigin.nookSeconds * 10).rounded())
    let text = "\(tenths / 10).\(tenths % 10)s"
    return String(repeating: " ", count: max(0, 6 - text.count)) + text
}

func describe(_ kind: NookActivityEvent.Kind) -> String {
    switch kind {
    case .hidden(let reason): "hidden (\(reason))"
    case .rejected(let reason): "rejected (\(reason))"
    default: kind.name
    }
}

@MainActor @discardableResult
func enqueue(_ activity: NookActivity) async -> NookActivityID {
    titles[activity.id] = activity.title
    await queue.enqueue(activity)
    return activity.id
}

let watcher = Task { @MainActor in
    for await event in queue.events() {
        say("\(describe(event.kind).padding(19)) \(titles[event.id] ?? "?")")
    }
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}

await queue.bind(to: arbiter)
let quick = Duration.milliseconds(1200)

say("A low, a normal and a high arrive while the queue is suspended; on resume the high goes first.")
await queue.suspend()
await enqueue(NookActivity(priority: .low, title: "Disk 80% full", dwell: quick))
await enqueue(NookActivity(title: "Backup complete", dwell: quick))
await enqueue(NookActivity(priority: .high, title: "Doorbell", dwell: quick))
await queue.resume()
try await clock.sleep(until: clock.now + .milliseconds(300))

say("Three build results with the same key arrive; only the latest stays pending.")
for number in 1...3 {
    await enqueue(NookActivity(coalescingKey: "build", title: "Build #\(number) finished", dwell: quick))
}
try await clock.sleep(until: clock.now + .milliseconds(6500))

say("The user hovers over the nook: the queue yields.")
engagement.set(.hover, active: true, input: "proximity")
await enqueue(NookActivity(title: "New mail", dwell: quick))
try await clock.sleep(until: clock.now + .milliseconds(1500))
say("The user moves away.")
engagement.set(.hover, active: false, input: "proximity")
try await clock.sleep(until: clock.now + .milliseconds(2000))

say("A blocker stays until it is dismissed; this one is dismissed 2 s after it shows.")
let door = await enqueue(NookActivity(title: "Front door open", presentation: .blocker(timeout: .seconds(30))))
while await queue.snapshot().blockingActivity?.id != door {
    try await clock.sleep(until: clock.now + .milliseconds(50))
}
try await clock.sleep(until: clock.now + .seconds(2))
say("Dismissing the blocker.")
await queue.dismissing(door)
try await clock.sleep(until: clock.now + .milliseconds(600))

await queue.quiesce()
say("Quiesced: the queue has let go of the surface. Bye.")
watcher.cancel()
