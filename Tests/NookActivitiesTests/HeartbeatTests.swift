import NookActivities
import NookTestSupport
import Testing

@Suite("W1 the display loops' heartbeat")
struct HeartbeatTests {
    @Test func w1_onlyWhenEveryLoopHasBeatenAndAtMostOncePerInterval() {
        let clock = ManualClock()
        let alive = Locked(0)
        let heartbeat = NookLoopHeartbeat(interval: .milliseconds(100), clock: clock, onAlive: { alive.withLock { $0 += 1 } })
        let idle = heartbeat.register()
        let stuck = heartbeat.register()
        heartbeat.beat(idle)
        heartbeat.beat(stuck)
        #expect(alive.withLock { $0 } == 1)
        // One loop stops coming round: the idle one beating on its own is not enough.
        for _ in 0..<5 {
            clock.advance(by: .milliseconds(100))
            heartbeat.beat(idle)
        }
        #expect(alive.withLock { $0 } == 1, "a stuck loop stops the pings")
        // A loop that ended is not waited for.
        heartbeat.unregister(stuck)
        heartbeat.beat(idle)
        #expect(alive.withLock { $0 } == 2)
        // Beats in a burst (a slide's frames) ping once per interval, not once per beat.
        for _ in 0..<10 { heartbeat.beat(idle) }
        #expect(alive.withLock { $0 } == 2)
        clock.advance(by: .milliseconds(100))
        heartbeat.beat(idle)
        #expect(alive.withLock { $0 } == 3)
        #expect(heartbeat.wakeInterval == heartbeat.interval / 3, "idle loops wake often enough to keep the gap under 1⅓ intervals")
    }
}
