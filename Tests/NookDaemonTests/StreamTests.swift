import Foundation
import NookActivities
import NookProtocol
import NookTestTraits
import Testing
@testable import NookDaemon

/// C1, C2: what a client that follows events (`watch`, `enqueue --wait`) hears, including when
/// nookd goes away under it or it falls behind.
@Suite("C1 C2 event streams", .serialized, .ownThreads)
struct StreamTests {
    @Test func c2_enqueueWaitExits16WhenNookdStopsUnderIt() throws {
        let daemon = try DaemonProcess()
        let waiter = try startNookctl(["enqueue", "--title", "Long", "--dwell", "30", "--wait"], socket: daemon.socket)
        try eventually("the card presented") { (try daemon.request(.status))["modules"]?.items.first?["phase"] == .string("presented") }
        #expect(daemon.stop().status == 0)
        waiter.waitForExit()
        #expect(waiter.terminationStatus == ExitCodes.connectionLost, "16: accepted, then the connection was lost")

        // Never accepted: 3, nookd could not be reached.
        let unreachable = try nookctl(["enqueue", "--title", "x", "--wait"], socket: daemon.socket)
        #expect(unreachable.status == ExitCodes.unreachable)
    }

    @Test func c1_watchHearsEveryEventThatFollowsItsAnswer() throws {
        let daemon = try DaemonProcess()
        try daemon.request(.suspend(module: nil))
        let enqueuer = try daemon.client()
        for round in 0..<40 {
            let watcher = try daemon.client(timeout: .seconds(5))
            _ = try watcher.request(Request(id: .number(1), operation: .watch))
            let activity = NookActivity(title: "round \(round)")
            _ = try enqueuer.request(Request(id: .number(Double(round)), operation: .enqueue(activity, module: nil, wait: false)))
            let line = try #require(try watcher.readLine(), "round \(round): the watcher heard nothing")
            guard case .event(_, let event) = try ResponseLine.decode(line) else { Issue.record("not an event: \(line)"); return }
            #expect(event["id"] == .string(activity.id.description) && event["event"] == .string("enqueued"), "round \(round)")
        }
        #expect(daemon.stop().status == 0)
    }

    @Test func c1_aWatcherThatFallsBehindIsToldHowManyEventsItMissed() throws {
        let tap = WatchTap(limit: 3)
        let event = NookActivityEvent(activity: NookActivity(title: "t"), kind: .enqueued, at: .origin, module: "m")
        #expect((0..<3).allSatisfy { _ in tap.admit(event) })
        #expect(!tap.admit(event) && !tap.admit(event), "full: dropped")
        #expect(tap.consumed() == nil && tap.consumed() == nil)
        #expect(tap.consumed() == 2, "after the third event, the two that did not fit")
        #expect(tap.admit(event))
        #expect(tap.consumed() == nil)
    }

    @Test func c1_aBurstIsEitherWatchedWholeOrTheStreamSaysHowManyWereDropped() throws {
        let daemon = try DaemonProcess()
        try daemon.request(.suspend(module: nil))
        let watcher = try daemon.client(timeout: .seconds(10))
        _ = try watcher.request(Request(id: .number(1), operation: .watch))
        let sender = try daemon.client(timeout: .seconds(30))
        let count = 10_000
        var burst = ""
        for index in 0..<count {
            burst += Request(id: .number(Double(index)), operation: .enqueue(NookActivity(coalescingKey: "k", title: "b\(index)"), module: nil, wait: false)).encoded() + "\n"
        }
        try sender.sendRaw(Array(burst.utf8))
        for _ in 0..<count { _ = try sender.readLine() }
        // Each enqueue but the last coalesces the one before: 2 events each, 1 for the last.
        let expected = 2 * count - 1
        var seen = 0, dropped = 0
        while seen + dropped < expected, let line = try watcher.readLine() {
            guard case .event(_, let event) = try ResponseLine.decode(line) else { continue }
            if event["event"] == .string("overflow") { dropped += Int(event["dropped"]?.numberValue ?? 0) } else { seen += 1 }
        }
        #expect(seen + dropped == expected, "seen \(seen), dropped \(dropped)")
        #expect(daemon.stop().status == 0)
    }
    /// What `status` reports but no activity event tells reaches a watcher as a
    /// `status` event, so a mirror of the status (nook-mqtt's `state`) need not poll it.
    @Test func c1_aGlanceThatChangesNothingStatusReportsIsNotAnnounced() throws {
        // nook-lcdproc sends a glance whenever a widget changes (a clock, every second); each
        // used to announce `home`, so every watcher (nook-mqtt) asked `status` again, forever.
        let scratch = Scratch()
        let daemon = try DaemonProcess(scratch: scratch)
        let watcher = try daemon.client(timeout: .seconds(10))
        _ = try watcher.request(Request(id: .number(1), operation: .watch))
        for second in 0..<3 {
            try daemon.request(.glance(NookGlance(columns: 20, rows: 2, lines: ["12:00:0\(second)", "up 3 days"])))
        }
        // Something else that is announced, to know the stream has caught up.
        try daemon.request(.suspend(module: nil))
        var changes: [StatusChangeMessage.Change] = []
        while changes.last != .suspended, let line = try watcher.readLine() {
            guard case .event(_, let json) = try ResponseLine.decode(line), let change = StatusChangeMessage(json: json) else { continue }
            changes.append(change.change)
        }
        // The first glance replaced the clock; the other two changed only the grid's text.
        #expect(changes == [.home, .suspended])
        #expect(daemon.stop().status == 0)
    }

    @Test func c1_watchAnnouncesStatusChangesThatNoActivityEventTells() throws {
        let scratch = Scratch()
        let sensor = try FakeProximitySensor(in: scratch, reading: "1")
        let config = scratch.file("nook.toml", "[queue]\nmodules = [\"a\", \"b\"]\n" + sensor.configTable)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        let watcher = try daemon.client(timeout: .seconds(10))
        _ = try watcher.request(Request(id: .number(1), operation: .watch))
        var times: [Double] = []
        func next() throws -> StatusChangeMessage.Change? {
            while let line = try watcher.readLine() {
                guard case .event(_, let json) = try ResponseLine.decode(line) else { continue }
                if let change = StatusChangeMessage(json: json) {
                    times.append(change.at ?? -1)
                    return change.change
                }
            }
            return nil
        }
        let firstAsked = ContinuousClock.now
        try daemon.request(.suspend(module: "a"))
        #expect(try next() == .suspended)
        try daemon.request(.resume(module: nil))
        #expect(try next() == .suspended)
        try daemon.request(.home(.text("Back at 3")))
        #expect(try next() == .home)
        try daemon.request(.focus(module: "b"))
        #expect(try next() == .foreground)
        try sensor.read("64")
        #expect(try next() == .engaged)
        #expect((try daemon.request(.status))["engaged"] == .bool(true))
        try sensor.read("1")
        #expect(try next() == .engaged)
        // An activity's own events are not doubled as status changes.
        try daemon.request(.enqueue(NookActivity(title: "Card"), module: nil, wait: false))
        let lastAnswered = ContinuousClock.now
        let line = try #require(try watcher.readLine())
        guard case .event(_, let event) = try ResponseLine.decode(line) else { Issue.record("not an event: \(line)"); return }
        #expect(event["event"] == .string("enqueued"))
        // Each change stamped when nookd saw it, on the clock of the activity events' `at`
        // (the VM's proximity test measures the queue's wake from the one to the other).
        let enqueuedAt = try #require(event["at"]?.numberValue)
        #expect(times.count == 6 && times.allSatisfy { $0 >= 0 } && times == times.sorted(), "\(times)")
        // On the same clock, the first change to the card's enqueue spans no more than the test
        // saw between asking for the one and being answered the other (ms rounding aside).
        let span = (lastAnswered - firstAsked).nookSeconds
        #expect(times.last! <= enqueuedAt && enqueuedAt - times.first! <= span + 0.002, "\(times), enqueued at \(enqueuedAt), \(span) s apart")
        #expect(daemon.stop().status == 0)
    }
}
