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
    func set(_ value: Int, device: String = "iio:device0") { set(text: "\(value)", device: device) }
    /// The file's text as a driver would print it, such as `64.000000000`.
    func set(text: String, device: String = "iio:device0") { write(text + "\n", to: device + "/in_proximity_raw") }
    func write(_ text: String, to path: String) {
        try! FileManager.default.createDirectory(atPath: root + "/" + (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try! text.write(toFile: root + "/" + path, atomically: true, encoding: .utf8)
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

    func start(_ settings: ProximitySensor.Settings, clock: ManualClock, engagement: NookEngagement, warnings: Warnings) async -> (ProximitySensor, Task<Void, Never>) {
        let sensor = ProximitySensor(settings: settings, engagement: engagement, clock: clock, warn: { warnings.add($0) })
        let task = Task { await sensor.run() }
        await clock.waitForSleepers()
        return (sensor, task)
    }

    /// The kernel prints a VCNL4040's reading as a fraction (`64.000000000` for the
    /// register's 1024); nookd called it not a number and never engaged.
    @Test func i2_fractionalAndNegativeReadingsAreComparedExactlyWithTheThreshold() async {
        let tree = FakeIIOTree(name: "ltr559")
        let clock = ManualClock()
        let engagement = NookEngagement()
        let warnings = Warnings()
        let (sensor, task) = await start(.init(name: "ltr559", threshold: 64, hysteresis: 4, sysfsRoot: tree.root),
                                         clock: clock, engagement: engagement, warnings: warnings)
        defer { task.cancel() }
        for (reading, expected) in [("63.999999999", false), ("64.000000000", true), ("60.000001", true), ("59.999999", false),
                                    ("-0.500000", false), ("1024.000000000", true), ("60", true), ("-7", false), ("64.0625", true)] {
            tree.set(text: reading)
            await step(clock)
            #expect(engagement.isHovering == expected, "reading \(reading)")
            #expect(sensor.observation.reading == IIOValue(parsing: reading) && sensor.observation.problem == nil, "reading \(reading)")
        }
        #expect(warnings.all.isEmpty, "\(warnings.all)")
    }

    /// A present sensor whose file holds something else is not "missing": the warning says it
    /// is there and not understood, the input is unavailable with the reason, and a number
    /// later brings it back.
    @Test func i4_aPresentButUnparseableReadingIsItsOwnWarning() async {
        let tree = FakeIIOTree(name: "ltr559")
        let clock = ManualClock()
        let engagement = NookEngagement()
        let warnings = Warnings()
        tree.set(text: "12 13")
        let (sensor, task) = await start(.init(name: "ltr559", threshold: 10, hysteresis: 0, sysfsRoot: tree.root),
                                         clock: clock, engagement: engagement, warnings: warnings)
        defer { task.cancel() }
        #expect(warnings.all.count == 1)
        #expect(warnings.all.first?.contains("holds '12 13', not a value as the IIO core prints one") == true)
        #expect(warnings.all.first?.contains("its reading is not understood") == true)
        #expect(warnings.all.first?.contains("until it appears") == false)
        #expect(engagement.inputs.first?.problem?.contains("holds '12 13'") == true)
        #expect(sensor.observation.problem?.kind == .unparseable)
        tree.set(text: "12")
        await step(clock, by: .seconds(1))
        #expect(engagement.isHovering && engagement.inputs.first?.problem == nil)
        #expect(warnings.all.last?.contains("reading again (12)") == true)
    }

    /// A driver that fails the read (EIO from a chip that does not answer) is there but
    /// unreadable: named with the call and errno, not "until it appears". /proc/self/mem is a
    /// regular file whose read at offset 0 fails with EIO, like such a driver.
    @Test func i4_aPresentButUnreadableSensorNamesTheCallAndErrno() async throws {
        let tree = FakeIIOTree(name: "ltr559")
        try FileManager.default.removeItem(atPath: tree.root + "/iio:device0/in_proximity_raw")
        try FileManager.default.createSymbolicLink(atPath: tree.root + "/iio:device0/in_proximity_raw", withDestinationPath: "/proc/self/mem")
        let clock = ManualClock()
        let engagement = NookEngagement()
        let warnings = Warnings()
        let (sensor, task) = await start(.init(name: "ltr559", sysfsRoot: tree.root), clock: clock, engagement: engagement, warnings: warnings)
        defer { task.cancel() }
        #expect(sensor.observation.problem?.kind == .unreadable)
        #expect(warnings.all.first?.contains("'read' failed for \(tree.root)/iio:device0/in_proximity_raw: (5) Input/output error") == true, "\(warnings.all)")
        #expect(warnings.all.first?.contains("is there but cannot be read") == true)
    }

    @Test func i2_aDeviceWithoutAProximityChannelIsNotWaitedFor() async {
        let tree = FakeIIOTree(name: "vcnl4035")
        try? FileManager.default.removeItem(atPath: tree.root + "/iio:device0/in_proximity_raw")
        let clock = ManualClock()
        let engagement = NookEngagement()
        let warnings = Warnings()
        let (sensor, task) = await start(.init(name: "vcnl4035", sysfsRoot: tree.root), clock: clock, engagement: engagement, warnings: warnings)
        defer { task.cancel() }
        #expect(sensor.observation.problem?.kind == .unusable)
        #expect(warnings.all.first?.contains("('vcnl4035') has no in_proximity_raw: not a proximity sensor") == true, "\(warnings.all)")
    }

    /// A configured device path that is some other directory is not waited for either.
    @Test func i2_aDevicePathThatIsNoIIODeviceIsNotWaitedFor() async {
        let tree = FakeIIOTree(name: "ltr559")
        let clock = ManualClock()
        let engagement = NookEngagement()
        let warnings = Warnings()
        let (sensor, task) = await start(.init(device: tree.root, sysfsRoot: tree.root), clock: clock, engagement: engagement, warnings: warnings)
        defer { task.cancel() }
        #expect(sensor.observation.problem?.kind == .unusable)
        #expect(warnings.all.first?.contains("\(tree.root) has no in_proximity_raw: not a proximity sensor") == true, "\(warnings.all)")
    }

    /// `iio:deviceN` follows the order devices appeared in: with a name configured too, a
    /// renumbered device that is now another sensor is refused, not read.
    @Test func i2_aDeviceNumberThatNowBelongsToAnotherSensorIsRefused() async {
        let tree = FakeIIOTree(name: "ltr559")
        tree.write("vcnl4000\n", to: "iio:device1/name")
        tree.write("0.000100\n", to: "iio:device1/in_proximity_integration_time")
        tree.set(500, device: "iio:device0")
        tree.set(text: "1.000000000", device: "iio:device1")
        let clock = ManualClock()
        let engagement = NookEngagement()
        let warnings = Warnings()
        let (sensor, task) = await start(.init(device: "iio:device0", name: "vcnl4000", threshold: 100, hysteresis: 0, sysfsRoot: tree.root),
                                         clock: clock, engagement: engagement, warnings: warnings)
        defer { task.cancel() }
        #expect(!engagement.isHovering, "the ltr559's 500 must not count")
        #expect(sensor.observation.problem?.kind == .unusable)
        #expect(warnings.all.first?.contains("iio:device0 is named 'ltr559', not 'vcnl4000'") == true, "\(warnings.all)")
    }

    /// Several devices of one name (two chips of the vcnl4000 driver): always the lowest
    /// number, whatever order the directory lists them in.
    @Test func i2_byNameTheLowestNumberedDeviceIsRead() async {
        let tree = FakeIIOTree(name: "ltr559", device: "iio:device10")
        tree.set(5, device: "iio:device10")
        tree.write("ltr559\n", to: "iio:device2/name")
        tree.set(500, device: "iio:device2")
        let clock = ManualClock()
        let engagement = NookEngagement()
        let (_, task) = await start(.init(name: "ltr559", threshold: 100, hysteresis: 0, sysfsRoot: tree.root),
                                    clock: clock, engagement: engagement, warnings: Warnings())
        defer { task.cancel() }
        #expect(engagement.isHovering)
    }

    /// A VCNL4010 and a VCNL4040 share the name `vcnl4000`: by name, the one nookd can read.
    @Test func i2_byNameARefusedChipIsPassedOverForOneOfTheSameNameThatCanBeRead() async {
        let tree = FakeIIOTree(name: "vcnl4000")
        tree.set(5)
        tree.write("vcnl4000\n", to: "iio:device1/name")
        tree.write("0.000100\n", to: "iio:device1/in_proximity_integration_time")
        tree.set(text: "500.000000000", device: "iio:device1")
        let clock = ManualClock()
        let engagement = NookEngagement()
        let (sensor, task) = await start(.init(name: "vcnl4000", threshold: 100, hysteresis: 0, sysfsRoot: tree.root),
                                         clock: clock, engagement: engagement, warnings: Warnings())
        defer { task.cancel() }
        #expect(engagement.isHovering && sensor.observation.reading == IIOValue(500))
    }

    /// Linux 6.12's vcnl4000 driver oopses (divide error) when a VCNL4000/4010/4020's
    /// in_proximity_raw is read: nookd must not read it. A VCNL4040 of the same name is read.
    @Test func i2_aVCNL4010IsNotReadBecauseItsDriverOopses() async {
        let tree = FakeIIOTree(name: "vcnl4000")
        tree.set(500)
        let clock = ManualClock()
        let engagement = NookEngagement()
        let warnings = Warnings()
        let (sensor, task) = await start(.init(name: "vcnl4000", threshold: 100, hysteresis: 0, sysfsRoot: tree.root),
                                         clock: clock, engagement: engagement, warnings: warnings)
        defer { task.cancel() }
        #expect(!engagement.isHovering && sensor.observation.reading == nil)
        #expect(warnings.all.first?.contains("divides by zero") == true, "\(warnings.all)")
        tree.write("0.000100\n", to: "iio:device0/in_proximity_integration_time")
        await step(clock, by: .seconds(1))
        #expect(engagement.isHovering, "a VCNL4040 publishes in_proximity_integration_time and is read")
    }

    /// A FIFO configured as the device's file must not hang the sensor in open(2).
    @Test func i4_aFIFOInPlaceOfTheReadingDoesNotHang() async {
        let tree = FakeIIOTree(name: "ltr559")
        try? FileManager.default.removeItem(atPath: tree.root + "/iio:device0/in_proximity_raw")
        #expect(mkfifo(tree.root + "/iio:device0/in_proximity_raw", 0o600) == 0)
        let clock = ManualClock()
        let engagement = NookEngagement()
        let warnings = Warnings()
        let (sensor, task) = await start(.init(name: "ltr559", sysfsRoot: tree.root), clock: clock, engagement: engagement, warnings: warnings)
        defer { task.cancel() }
        #expect(sensor.observation.problem?.kind == .unusable)
        #expect(warnings.all.first?.contains("in_proximity_raw is a FIFO, not a regular file") == true, "\(warnings.all)")
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

    /// Z3: the same sensor, read against a second, lower threshold, says someone is in the
    /// room (the `presence` role, with the same hysteresis) without engaging the queue.
    @Test func z3_aSecondThresholdReportsPresenceBeyondTheEngagementReach() async {
        let tree = FakeIIOTree()
        let clock = ManualClock()
        let engagement = NookEngagement()
        var settings = ProximitySensor.Settings(name: "vcnl4040", threshold: 200, hysteresis: 10, sysfsRoot: tree.root)
        settings.presenceThreshold = 40
        let (sensor, task) = await start(settings, clock: clock, engagement: engagement, warnings: Warnings())
        defer { task.cancel() }
        #expect(engagement.inputs.map(\.input) == ["proximity:vcnl4040", "proximity:vcnl4040:presence"])
        #expect(engagement.inputs.map(\.role) == [.hover, .presence])
        #expect(sensor.presenceLabel == "proximity:vcnl4040:presence")
        for (reading, present, engaged) in [(39, false, false), (40, true, false), (31, true, false), (29, false, false),
                                            (200, true, true), (35, true, false), (0, false, false)] {
            tree.set(reading)
            await step(clock)
            #expect(engagement.isPresent == present && engagement.isEngaged == engaged, "reading \(reading)")
        }
        tree.remove()
        await step(clock)
        #expect(engagement.inputs.last?.problem != nil, "a sensor that is gone reports nobody, and why")
    }
}

extension ProximitySensorTests {
    /// After a stall or a suspend (time jumps a second past the next reading) the loop reads
    /// once and sleeps a whole interval; it read back to back twenty times to catch up, and with
    /// a read slower than the interval it never slept at all.
    @Test func i2_afterAStallTheSensorReadsOnceAndSleepsAWholeInterval() async {
        let tree = FakeIIOTree()
        let clock = CountingClock()
        let engagement = NookEngagement()
        let sensor = ProximitySensor(settings: .init(name: "vcnl4040", threshold: 200, hysteresis: 30, interval: .milliseconds(50), sysfsRoot: tree.root),
                                     engagement: engagement, clock: clock, warn: { _ in })
        let task = Task { await sensor.run() }
        defer { task.cancel() }
        await clock.manual.waitForSleepers()
        #expect(clock.sleeps == 1)
        clock.manual.advance(by: .seconds(1))
        await clock.manual.waitForSleepers()
        #expect(clock.sleeps == 2, "\(clock.sleeps) sleeps")
        tree.set(250)
        clock.manual.advance(by: .milliseconds(49))
        #expect(clock.manual.sleeperCount == 1 && !engagement.isHovering, "a whole interval from the read")
        clock.manual.advance(by: .milliseconds(1))
        await clock.manual.waitForSleepers()
        #expect(engagement.isHovering)
    }
}
