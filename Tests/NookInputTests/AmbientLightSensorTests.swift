import Foundation
import NookActivities
import NookInput
import NookTestSupport
import Testing

/// The lux readings the sensor reports, in order (nil: it stopped giving one).
private final class Readings: Sendable {
    private let list = Locked<[Double?]>([])
    func add(_ lux: Double?) { list.withLock { $0.append(lux) } }
    var all: [Double?] { list.withLock { $0 } }
}

@Suite("Z2 I4 ambient light sensor")
struct AmbientLightSensorTests {
    func sensor(_ tree: FakeIIOTree, name: String = "vcnl4040", warnings: Warnings = Warnings(), clock: any NookClock = ManualClock()) -> AmbientLightSensor {
        AmbientLightSensor(settings: .init(name: name, sysfsRoot: tree.root), clock: clock, warn: { warnings.add($0) })
    }

    /// As the kernel prints them: a processed value in lux, or raw counts with scale and
    /// offset ((raw + offset) × scale), with or without the channel's index.
    @Test func z2_luxFromInputOrFromRawWithScaleAndOffset() throws {
        let tree = FakeIIOTree()
        let light = sensor(tree)
        tree.write("1234\n", to: "iio:device0/in_illuminance_raw")
        #expect(try light.readLux().get() == 1234, "no scale, no offset: the raw value")
        tree.write("0.250000\n", to: "iio:device0/in_illuminance_scale")  // vcnl4040: 0.25 lx a count
        #expect(try light.readLux().get() == 308.5)
        tree.write("-34\n", to: "iio:device0/in_illuminance_offset")
        #expect(try light.readLux().get() == 300)
        tree.write("412.500000\n", to: "iio:device0/in_illuminance_input")
        #expect(try light.readLux().get() == 412.5, "a processed value is taken as it is")

        let numbered = FakeIIOTree(name: "tsl2563")
        numbered.write("80\n", to: "iio:device0/in_illuminance0_raw")
        numbered.write("0.5\n", to: "iio:device0/in_illuminance_scale")  // shared by the channels
        #expect(try sensor(numbered, name: "tsl2563").readLux().get() == 40)
        numbered.write("2\n", to: "iio:device0/in_illuminance0_scale")  // the channel's own wins
        #expect(try sensor(numbered, name: "tsl2563").readLux().get() == 160)
    }

    @Test func i4_unparseableUnreadableAndNotALightSensorAreNamed() throws {
        let tree = FakeIIOTree(name: "ltr559")
        let light = sensor(tree, name: "ltr559")
        var problem: SensorProblem?
        if case .failure(let failure) = light.readLux() { problem = failure }
        #expect(problem?.kind == .unusable)
        #expect(problem?.description.contains("('ltr559') has no in_illuminance_input or in_illuminance_raw: not a light sensor") == true, "\(String(describing: problem))")

        tree.write("12 13\n", to: "iio:device0/in_illuminance_raw")
        if case .failure(let failure) = light.readLux() { problem = failure }
        #expect(problem?.kind == .unparseable)
        #expect(problem?.description.contains("in_illuminance_raw holds '12 13', not a value as the IIO core prints one") == true)

        tree.write("12\n", to: "iio:device0/in_illuminance_raw")
        tree.write("0x10\n", to: "iio:device0/in_illuminance_scale")
        if case .failure(let failure) = light.readLux() { problem = failure }
        #expect(problem?.description.contains("in_illuminance_scale holds '0x10'") == true, "a bad scale is named, not taken as 1")

        // /proc/self/mem is a regular file whose read at offset 0 fails with EIO, like a chip
        // that does not answer.
        try FileManager.default.removeItem(atPath: tree.root + "/iio:device0/in_illuminance_scale")
        try FileManager.default.removeItem(atPath: tree.root + "/iio:device0/in_illuminance_raw")
        try FileManager.default.createSymbolicLink(atPath: tree.root + "/iio:device0/in_illuminance_raw", withDestinationPath: "/proc/self/mem")
        if case .failure(let failure) = light.readLux() { problem = failure }
        #expect(problem?.kind == .unreadable)
        #expect(problem?.description.contains("'read' failed for \(tree.root)/iio:device0/in_illuminance_raw: (5) Input/output error") == true, "\(String(describing: problem))")
    }

    /// The sensor unplugged: one warning, one "no reading" (the caller's fixed levels), no
    /// crash, looked at once a second; plugged back, readings resume with a note.
    @Test func i4_aSensorThatDisappearsReportsNoReadingOnceAndComesBack() async {
        let tree = FakeIIOTree()
        tree.write("200\n", to: "iio:device0/in_illuminance_input")
        let clock = ManualClock()
        let warnings = Warnings()
        let readings = Readings()
        let light = AmbientLightSensor(settings: .init(name: "vcnl4040", interval: .milliseconds(500), sysfsRoot: tree.root),
                                       clock: clock, warn: { warnings.add($0) })
        let task = Task { await light.run { readings.add($0) } }
        defer { task.cancel() }
        await clock.waitForSleepers()
        #expect(readings.all == [200])

        tree.remove()
        for _ in 0..<3 {
            clock.advance(by: .seconds(1))
            await clock.waitForSleepers()
        }
        #expect(readings.all == [200, nil], "no reading, told once")
        #expect(warnings.all.count == 1)
        #expect(warnings.all.first?.contains("light:vcnl4040: no IIO device named 'vcnl4040'") == true, "\(warnings.all)")
        #expect(warnings.all.first?.contains("keeps its fixed levels") == true)

        tree.restore()
        tree.write("35.5\n", to: "iio:device0/in_illuminance_input")
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers()
        #expect(readings.all == [200, nil, 35.5], "\(readings.all)")
        #expect(warnings.all.last?.contains("reading again (35.5 lx)") == true, "\(warnings.all)")
    }
}

extension AmbientLightSensorTests {
    /// After a stall or a suspend (time jumps ten seconds past the next reading) the loop reads
    /// once and sleeps a whole interval; it read back to back twenty times to catch up, and with
    /// a read slower than the interval it never slept at all.
    @Test func z2_afterAStallTheSensorReadsOnceAndSleepsAWholeInterval() async {
        let tree = FakeIIOTree()
        tree.write("200\n", to: "iio:device0/in_illuminance_input")
        let clock = CountingClock()
        let readings = Readings()
        let light = AmbientLightSensor(settings: .init(name: "vcnl4040", interval: .milliseconds(500), sysfsRoot: tree.root),
                                       clock: clock, warn: { _ in })
        let task = Task { await light.run { readings.add($0) } }
        defer { task.cancel() }
        await clock.manual.waitForSleepers()
        #expect(readings.all.count == 1 && clock.sleeps == 1)
        clock.manual.advance(by: .seconds(10))
        await clock.manual.waitForSleepers()
        #expect(readings.all.count == 2 && clock.sleeps == 2, "\(readings.all.count) readings, \(clock.sleeps) sleeps")
        clock.manual.advance(by: .milliseconds(499))
        #expect(clock.manual.sleeperCount == 1, "a whole interval from the read")
    }

    /// Z2: one failed read (a bus glitch) keeps the last reading, so a dark room does not flash
    /// to the fixed level; only the third failed read in a row reports no reading.
    @Test func z2_transientFailuresKeepTheLastReadingUntilTheThirdInARow() async {
        let tree = FakeIIOTree()
        tree.write("5\n", to: "iio:device0/in_illuminance_input")
        let clock = ManualClock()
        let readings = Readings()
        let warnings = Warnings()
        let light = AmbientLightSensor(settings: .init(name: "vcnl4040", interval: .milliseconds(500), sysfsRoot: tree.root),
                                       clock: clock, warn: { warnings.add($0) })
        let task = Task { await light.run { readings.add($0) } }
        defer { task.cancel() }
        await clock.waitForSleepers()
        func step(_ duration: Duration) async {
            clock.advance(by: duration)
            await clock.waitForSleepers()
        }
        // Two glitches, then a reading: nothing but readings.
        tree.write("garbage\n", to: "iio:device0/in_illuminance_input")
        await step(.milliseconds(500))
        await step(.seconds(1))
        tree.write("6\n", to: "iio:device0/in_illuminance_input")
        await step(.seconds(1))
        #expect(readings.all == [5, 6], "\(readings.all)")
        #expect(warnings.all.first?.contains("keeps its last level") == true, "\(warnings.all)")

        tree.write("garbage\n", to: "iio:device0/in_illuminance_input")
        await step(.milliseconds(500))
        await step(.seconds(1))
        #expect(readings.all == [5, 6], "two failures: the last reading stands")
        await step(.seconds(1))
        #expect(readings.all == [5, 6, nil], "the third in a row: no reading")
        await step(.seconds(1))
        #expect(readings.all == [5, 6, nil], "told once")
    }
}

extension FakeIIOTree {
    /// The device back after ``remove(device:)``, with its name.
    func restore(name: String = "vcnl4040") { write(name + "\n", to: "iio:device0/name") }
}
