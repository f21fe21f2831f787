import NookActivities
import NookTestSupport

/// A burst through the whole queue: `count` enqueues of mixed priority, half of them under
/// coalescing keys (one key per 20 activities), a tenth cancelled by id, then every survivor
/// drained through claim, animate-in, dwell, animate-out and release on a clock whose waits
/// are instant. Linear scaling between sizes shows enqueue, coalesce, cancel and dequeue stay
/// O(1)/O(log n) amortised.
struct QueueBurst {
    let count: Int

    func run() async -> Double {
        let clock = InstantClock()
        let queue = NookActivityQueue(clock: clock, configuration: .init(capacity: count))
        let activities = (0..<count).map { index in
            NookActivity(
                coalescingKey: index % 2 == 0 ? "key-\(index % (count / 20))" : nil,
                priority: [.low, .normal, .normal, .normal, .high][index % 5],
                title: "Activity \(index)")
        }
        return await milliseconds {
            for activity in activities { await queue.enqueue(activity) }
            for activity in activities where activity.title.hasSuffix("7") { await queue.cancel(activity.id) }
            let survivors = await queue.pendingCount
            // Subscribed only now: buffering the burst's own enqueue events would measure the stream.
            let events = queue.events()
            await queue.bind(to: NookSurfaceArbiter(foreground: "bench", clock: clock))
            var hidden = 0
            for await event in events where event.kind == .hidden(.completed) {
                hidden += 1
                if hidden == survivors { break }
            }
        }
    }
}
