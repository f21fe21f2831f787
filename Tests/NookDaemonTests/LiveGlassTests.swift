import Foundation
import NookActivities
@testable import NookDaemon
import NookDisplay
import NookTestSupport
import Testing

/// V1: what the screen hands the live view. Unwatched, a frame costs a counter; watched, a
/// copy the screen's next frame cannot change; a waiter is woken by the next frame, never
/// held past its bound, and no more than ``LiveGlass/maximumWaiters`` wait.
@Suite("V1 the live view's glass")
struct LiveGlassTests {
    static func frame(_ pixel: UInt32) -> Frame { Frame(width: 8, height: 4, fill: pixel) }

    @Test func v1_anUnwatchedGlassCountsFramesAndKeepsNoCopy() {
        let glass = LiveGlass()
        for pixel in [UInt32(0xFF11_1111), 0xFF22_2222, 0xFF33_3333] { glass.presented(Self.frame(pixel)) }
        #expect(glass.generation == 3)
        #expect(glass.current == nil)
        glass.showing(Self.frame(0xFF33_3333))
        #expect(glass.current == nil, "not watched: the offered frame is not copied either")
    }

    @Test func v1_aWatchedGlassKeepsACopyOfTheNewestFrameThatTheScreensNextFrameCannotChange() {
        let glass = LiveGlass()
        glass.presented(Self.frame(0xFF11_1111))
        glass.watch(for: .seconds(60))
        var screens = Self.frame(0xFF22_2222)
        glass.showing(screens)
        #expect(glass.current?.generation == 1 && glass.current?.frame == Self.frame(0xFF22_2222), "the offered frame, under the generation on the glass")
        screens.fill(0xFF99_9999)  // the screen draws its next frame into its own buffer
        #expect(glass.current?.frame == Self.frame(0xFF22_2222))
        glass.presented(screens)
        #expect(glass.current?.generation == 2 && glass.current?.frame == screens)
    }

    /// A reader of the glass while frames are presented always finds the frame of the count it
    /// reads: the copy is in before the count moves (a viewer opened as a card slid in was told
    /// "the glass changed while its frame was taken" when the count moved first).
    @Test func v1_whileWatchedTheFrameOnTheGlassIsNeverMissingAsFramesArePresented() {
        let glass = LiveGlass()
        glass.watch(for: .seconds(600))
        glass.presented(Self.frame(0xFF00_0000))
        let presenting = Locked(true)
        let missing = Locked(0)
        // A large frame, so each copy takes long enough for a reader to come between.
        let big = Frame(width: 1280, height: 400, fill: 0xFF11_1111)
        let reader = Thread {
            while presenting.withLock({ $0 }) {
                if glass.current == nil { missing.withLock { $0 += 1 } }
            }
        }
        reader.start()
        for _ in 0..<300 { glass.presented(big) }
        presenting.withLock { $0 = false }
        while reader.isExecuting { usleep(1000) }
        #expect(missing.withLock { $0 } == 0, "reads that found no frame on the glass")
        #expect(glass.current?.generation == 301)
    }

    @Test func v1_aWatchStopsCopyingOnceItLapses() {
        let time = Locked(Duration.seconds(100))
        let glass = LiveGlass(now: { time.withLock { $0 } })
        glass.watch(for: .seconds(30))
        glass.presented(Self.frame(0xFF11_1111))
        #expect(glass.current != nil)
        time.withLock { $0 += .seconds(31) }
        glass.presented(Self.frame(0xFF22_2222))
        #expect(glass.generation == 2 && glass.current == nil, "nobody asked for 30 s: the copies are let go")
    }

    @Test func v1_waitersAreWokenByTheNextFrameAndGiveUpAtTheirBound() async {
        let glass = LiveGlass()
        let clock = ManualClock()
        glass.presented(Self.frame(0xFF11_1111))
        let early = await glass.waitForFrame(after: 0, timeout: .seconds(25), clock: clock)
        #expect(early == .newer, "a newer frame than 0 is already there")
        async let woken = glass.waitForFrame(after: 1, timeout: .seconds(25), clock: clock)
        for _ in 0..<100_000 where glass.waiting < 1 { await Task.yield() }
        #expect(glass.waiting == 1, "the waiter waits for a newer frame")
        glass.presented(Self.frame(0xFF22_2222))
        #expect(await woken == .newer)
        async let bored = glass.waitForFrame(after: 2, timeout: .seconds(25), clock: clock)
        for _ in 0..<100_000 where glass.waiting < 1 { await Task.yield() }
        #expect(glass.waiting == 1, "the waiter waits for a newer frame")
        clock.advance(by: .seconds(25))
        #expect(await bored == .timedOut)
        #expect(glass.waiting == 0)
    }

    @Test func v1_moreWaitersThanTheBoundAreRefusedAtOnce() async {
        let glass = LiveGlass()
        let clock = ManualClock()
        await withTaskGroup(of: LiveGlass.WaitOutcome.self) { group in
            for _ in 0..<LiveGlass.maximumWaiters {
                group.addTask { await glass.waitForFrame(after: 0, timeout: .seconds(25), clock: clock) }
            }
            for _ in 0..<100_000 where glass.waiting < LiveGlass.maximumWaiters { await Task.yield() }
            #expect(glass.waiting == LiveGlass.maximumWaiters)
            #expect(await glass.waitForFrame(after: 0, timeout: .seconds(25), clock: clock) == .tooMany)
            glass.presented(Self.frame(0xFF11_1111))
            var outcomes: [LiveGlass.WaitOutcome] = []
            for await outcome in group { outcomes.append(outcome) }
            #expect(outcomes.count == LiveGlass.maximumWaiters && outcomes.allSatisfy { $0 == .newer })
        }
    }

    @Test func v1_waitersWhoseClientsHaveGoneMakeRoomWhenTheTableIsFull() async {
        let glass = LiveGlass()
        let clock = ManualClock()
        let gone = Locked(false)
        await withTaskGroup(of: LiveGlass.WaitOutcome.self) { group in
            for _ in 0..<LiveGlass.maximumWaiters {
                group.addTask { await glass.waitForFrame(after: 0, timeout: .seconds(25), clock: clock, isGone: { gone.withLock { $0 } }) }
            }
            for _ in 0..<100_000 where glass.waiting < LiveGlass.maximumWaiters { await Task.yield() }
            gone.withLock { $0 = true }  // their clients hung up
            async let newcomer = glass.waitForFrame(after: 0, timeout: .seconds(25), clock: clock)
            var abandoned = 0
            for await _ in group { abandoned += 1 }
            #expect(abandoned == LiveGlass.maximumWaiters, "every waiter of a gone client was let go")
            for _ in 0..<100_000 where glass.waiting < 1 { await Task.yield() }
            #expect(glass.waiting == 1, "the newcomer waits")
            glass.presented(Self.frame(0xFF11_1111))
            #expect(await newcomer == .newer)
        }
    }

    @Test func v1_oneUserHoldsNoMoreThanItsShareOfTheWaitersAndOthersStillWait() async {
        let glass = LiveGlass()
        let clock = ManualClock()
        let gone = Locked(false)
        await withTaskGroup(of: LiveGlass.WaitOutcome.self) { group in
            for _ in 0..<LiveGlass.maximumWaitersPerUser {
                group.addTask { await glass.waitForFrame(after: 0, timeout: .seconds(25), clock: clock, uid: 1000, isGone: { gone.withLock { $0 } }) }
            }
            for _ in 0..<100_000 where glass.waiting < LiveGlass.maximumWaitersPerUser { await Task.yield() }
            #expect(glass.waiting == LiveGlass.maximumWaitersPerUser)
            // One more of uid 1000's is refused at once; were it let in, it would wait for a frame.
            let extra = Task { await glass.waitForFrame(after: 0, timeout: .seconds(25), clock: clock, uid: 1000) }
            let settled = Locked(false)
            Task { _ = await extra.value; settled.withLock { $0 = true } }
            for _ in 0..<100_000 where !settled.withLock({ $0 }) && glass.waiting == LiveGlass.maximumWaitersPerUser { await Task.yield() }
            #expect(glass.waiting == LiveGlass.maximumWaitersPerUser, "the request past uid 1000's share holds no place")
            if glass.waiting > LiveGlass.maximumWaitersPerUser { glass.presented(Self.frame(0xFF00_0000)) }  // let everyone go
            #expect(await extra.value == .tooManyForUser, "uid 1000 already holds its share")
            guard glass.waiting == LiveGlass.maximumWaitersPerUser else { return }
            // Another uid still finds room.
            group.addTask { await glass.waitForFrame(after: 0, timeout: .seconds(25), clock: clock, uid: 1001) }
            for _ in 0..<100_000 where glass.waiting < LiveGlass.maximumWaitersPerUser + 1 { await Task.yield() }
            #expect(glass.waiting == LiveGlass.maximumWaitersPerUser + 1, "another uid waits")
            // The uid's own clients that hung up make room for it.
            gone.withLock { $0 = true }
            group.addTask { await glass.waitForFrame(after: 0, timeout: .seconds(25), clock: clock, uid: 1000) }
            for _ in 0..<100_000 where glass.waiting != 2 { await Task.yield() }
            #expect(glass.waiting == 2, "the gone waiters were let go; the newcomer of uid 1000 waits beside uid 1001's")
            glass.presented(Self.frame(0xFF11_1111))
            var outcomes: [LiveGlass.WaitOutcome] = []
            for await outcome in group { outcomes.append(outcome) }
            #expect(outcomes.count == LiveGlass.maximumWaitersPerUser + 2 && !outcomes.contains(.tooManyForUser) && !outcomes.contains(.tooMany))
        }
    }
}
