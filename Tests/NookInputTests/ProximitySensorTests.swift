import Foundation
import NookActivities
import NookInput
import NookTestSupport
import Testing

/// A fake `/sys/bus/iio/devices` with one proximity sensor whose reading the test sets.
final class FakeIIOTree {
    let root: String
    init(name: String = "vcnl4040", device: String = "iio:device0") {
        root = NSTemporaryDirectory() + "nook-iio-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: root + "/" + device, withIntermediateDirectories: true)
        try! (name + "\n").write(toFile: root + "/" + device + "/name", atomically: true, encoding: .utf8)
        set(0, device: device)
    }
    func set(_ value: Int, device: String = "iio:device0") {
        try! "\(value)\n".write(toFile: root + "/" + device + "/in_proximity_raw", atomically: true, encoding: .utf8)
    }
    func remove(device: String = "iio:device0") { try? FileManager.default.removeItem(atPath: root + "/" + device) }
    deinit { try? FileManager.default.removeItem(atPath: root) }
}

final class Warnings: Sendable {
    private let list = Locked<[String]>([])
    func add(_ text: String) { list.withLock { $0.append(text) } }
    var all: [String] { list.withLock { $0 } }
}

@Suite("I2 I3 I4 proximity sensor engagement")
struct ProximitySensorTests {
    /// Lets the sensor take one reading: advance one interval and wait until it sleeps again.
    func step(_ clock: ManualClock, by duration: Duration = .milliseconds(50)) async {
        clock.advance(by: duration)
        await clock.waitForSleepers()
    }

    @Test func i2_hoverStartsAtTheThresholdAndEndsBelowItsHysteresis() async {
        let tree = FakeIIOTree()
        let clock = ManualClock()
        let engagement = NookEngagement()
        let sensor = ProximitySensor(settings: .init(name: "vcnl4040", threshold: 200, hysteresis: 30, sysfsRoot: tree.root),
                                     engagement: engagement, clock: clock, warn: { _ in })
        let task = Task { await sensor.run() }
        defer { task.cancel() }
        await clock.waitForSleepers()
        #expect(!engagement.isHovering)
        #expect(engagement.inputs.map(\.input) == ["proximity:vcnl4040"])

        for (reading, expected) in [(199, false), (200, true), (185, true), (171, true), (169, false), (199, false), (250, true)] {
            tree.set(reading)
            await step(clock)
            #expect(engagement.isHovering == expected, "reading \(reading)")
        }
    }

    @Test func i4_aMissingSensorIsAWarningAndIsPickedUpWhenItAppears() async {
        let tree = FakeIIOTree(name: "apds9960")
        let clock = ManualClock()
        let engagement = NookEngagement()
        let warnings = Warnings()
        let sensor = ProximitySensor(settings: .init(name: "vcnl4040", sysfsRoot: tree.root), engagement: engagement,
                                     clock: clock, warn: { warnings.add($0) })
        let task = Task { await sensor.run() }
        defer { task.cancel() }
        await clock.waitForSleepers()
        #expect(warnings.all.count == 1 && warnings.all[0].contains("no IIO device named 'vcnl4040'"))
        await step(clock, by: .seconds(1))
        #expect(warnings.all.count == 1, "the same problem is reported once")
        #expect(!engagement.isEngaged)

        try? FileManager.default.createDirectory(atPath: tree.root + "/iio:device1", withIntermediateDirectories: true)
        try? "vcnl4040\n".write(toFile: tree.root + "/iio:device1/name", atomically: true, encoding: .utf8)
        tree.set(500, device: "iio:device1")
        await step(clock, by: .seconds(1))
        #expect(engagement.isHovering, "found once it appeared")
        #expect(warnings.all.last?.contains("reading again") == true)

        tree.remove(device: "iio:device1")
        await step(clock)
        #expect(!engagement.isHovering, "a vanished sensor stops hovering instead of sticking")
    }

    @Test func i3_hoverHoldsTheQueueAndMovingAwayLetsTheNextCardShowAtOnce() async throws {
        let tree = FakeIIOTree()
        let clock = ManualClock()
        let engagement = NookEngagement()
        let sensor = ProximitySensor(settings: .init(device: "iio:device0", threshold: 100, hysteresis: 10, sysfsRoot: tree.root),
                                     engagement: engagement, clock: clock, warn: { _ in })
        let sensorTask = Task { await sensor.run() }
        defer { sensorTask.cancel() }
        await clock.waitForSleepers()
        tree.set(400)
        await step(clock)
        #expect(engagement.isEngaged)

        let arbiter = NookSurfaceArbiter(foreground: "main", clock: clock)
        let queue = NookActivityQueue(clock: clock, engagement: engagement)
        let recorder = EventRecorder(queue.events())
        await queue.bind(to: arbiter)
        let card = NookActivity(title: "Doorbell")
        await queue.enqueue(card)
        await clock.waitForSleepers(atLeast: 2)
        #expect(await queue.snapshot().parkReason == .engaged)

        tree.set(20)
        let movedAwayAt = clock.now + .milliseconds(50)
        clock.advance(by: .milliseconds(50))
        let shown = try await recorder.next(.animateIn, of: card.id)
        #expect(shown.at == movedAwayAt, "the engagement change wakes the queue without waiting for its poll")
    }
}
