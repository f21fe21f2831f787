import Foundation
import NookActivities
import NookConfig
import NookInput
import NookProtocol
@testable import NookDaemon
import NookSystem
import NookTestSupport
import Testing

/// A brightness output that keeps every level written (levels 0…100).
private final class RecordedLevels: BrightnessOutput {
    let maximum = 100
    let name = "recorded levels"
    private let written = Locked<[Int]>([])
    var all: [Int] { written.withLock { $0 } }
    var last: Int? { all.last }
    func apply(level: Int) async throws(DaemonError) { written.withLock { $0.append(level) } }
}

/// gpio-backlight: off or on.
private final class OneStep: BrightnessOutput {
    let maximum = 1
    let name = "gpio-backlight"
    private let written = Locked<[Int]>([])
    var all: [Int] { written.withLock { $0 } }
    func apply(level: Int) async throws(DaemonError) { written.withLock { $0.append(level) } }
}

@Suite("Z2 auto-brightness from an ambient light sensor")
struct AmbientBrightnessTests {
    /// Runs the fade under way to its end (every step is due at once on the manual clock).
    func finishFade(_ clock: ManualClock, _ service: BrightnessController) async {
        clock.advance(by: .seconds(2))
        await service.settle()
    }

    @Test func z2_theCurveInterpolatesBetweenItsPointsAndHoldsBeyondItsEnds() {
        let curve = AmbientBrightness(points: [.init(lux: 10, scale: 0.2), .init(lux: 110, scale: 0.6), .init(lux: 1000, scale: 1)])
        #expect(curve.scale(at: 0) == 0.2 && curve.scale(at: 10) == 0.2)
        #expect(abs(curve.scale(at: 60) - 0.4) < 1e-9)
        #expect(abs(curve.scale(at: 110) - 0.6) < 1e-9)
        #expect(abs(curve.scale(at: 555) - 0.8) < 1e-9)
        #expect(curve.scale(at: 1000) == 1 && curve.scale(at: 100_000) == 1)
        #expect(AmbientBrightness.point("250.5 : 80") == .init(lux: 250.5, scale: 0.8))
        for bad in ["", "80", "a:10", "10:101", "-1:10", "10:5.5", "1:2:3", "inf:10", "nan:10"] {
            #expect(AmbientBrightness.point(bad) == nil, "\(bad)")
        }
    }

    /// A lamp flickering around the point where the curve steps: without hysteresis the panel
    /// would fade between 20 % and full at every reading.
    @Test func z2_aLampFlickeringAroundAThresholdDoesNotMakeTheDisplayHunt() async {
        let clock = ManualClock()
        let output = RecordedLevels()
        let curve = AmbientBrightness(points: [.init(lux: 0, scale: 0.2), .init(lux: 49, scale: 0.2), .init(lux: 51, scale: 1)], hysteresis: 0.2)
        let service = BrightnessController(backlight: output, levels: .init(idle: 1.0), fade: .milliseconds(400), clock: clock, ambient: curve, warn: { _ in })
        await service.setQuiet(false)
        #expect(output.all == [100], "no reading yet: the fixed level")
        await service.setAmbient(lux: 48)
        await finishFade(clock, service)
        #expect(output.last == 20)
        #expect(Set(output.all).count >= 10, "a fade, not a jump: \(output.all)")

        let settled = output.all.count
        for lux in [52.0, 47, 53, 50, 57, 41] {
            await service.setAmbient(lux: lux)
            await finishFade(clock, service)
        }
        #expect(output.all.count == settled, "within 20 % of 48 lx nothing moves: \(output.all.suffix(from: settled))")

        await service.setAmbient(lux: 60)  // the lamp stays on: past the band
        await finishFade(clock, service)
        #expect(output.last == 100)
        let bright = output.all.count
        for lux in [52.0, 58, 51, 70] {
            await service.setAmbient(lux: lux)
            await finishFade(clock, service)
        }
        #expect(output.all.count == bright, "the band now lies around 60 lx")
        await service.setAmbient(lux: 49)
        await finishFade(clock, service)
        #expect(output.last == 20, "darker than the band: down again")
        let down = Array(output.all[bright...])
        #expect(down == down.sorted(by: >), "a monotonic fade down: \(down)")
    }

    /// Z2: nookd reads the room's light before it sets the first level: a dark room starts at
    /// its dark level instead of at the fixed one and fading down.
    @Test func z2_aReadingBeforeTheFirstLevelStartsADarkRoomDark() async {
        let clock = ManualClock()
        let output = RecordedLevels()
        let curve = AmbientBrightness(points: [.init(lux: 0, scale: 0.2), .init(lux: 500, scale: 1)], hysteresis: 0.2)
        let service = BrightnessController(backlight: output, levels: .init(idle: 0.6), fade: .milliseconds(400), clock: clock, ambient: curve, warn: { _ in })
        await service.setAmbient(lux: 0)
        #expect(output.all.isEmpty, "a reading alone writes nothing before the first level")
        await service.setQuiet(false)
        #expect(output.all == [12], "the first level is already the dark room's: \(output.all)")
        #expect(await service.status?.lux == 0)
    }

    /// SPEC Z2: quiet hours, night and dim keep their fixed levels whatever the room's light;
    /// active and idle follow it; Z4's boost is not taken back by a reading.
    @Test func z2_quietNightAndDimKeepTheirLevelsWhateverTheLight() async {
        let clock = ManualClock()
        let output = RecordedLevels()
        let curve = AmbientBrightness(points: [.init(lux: 0, scale: 0.5), .init(lux: 1000, scale: 1)])
        let service = BrightnessController(backlight: output, levels: .init(active: 0.8, night: 0.3, idle: 0.6, quiet: 0.1, dim: 0.05),
                                        fade: .milliseconds(300), clock: clock, ambient: curve, warn: { _ in })
        await service.setQuiet(false)
        await service.setAmbient(lux: 0)
        await finishFade(clock, service)
        #expect(output.last == 30, "idle: 60 % of its level in the dark")
        let card = NookActivity(title: "Doorbell")
        await service.observe(NookActivityEvent(activity: card, kind: .animateIn, at: clock.now, module: nil))
        await finishFade(clock, service)
        #expect(output.last == 40, "active: 80 % scaled by half")
        await service.setQuiet(true)
        await finishFade(clock, service)
        #expect(output.last == 30, "night: its own level")
        await service.setAmbient(lux: 1000)
        await finishFade(clock, service)
        #expect(output.last == 30, "night does not follow the light")
        await service.observe(NookActivityEvent(activity: card, kind: .hidden(.completed), at: clock.now, module: nil))
        await finishFade(clock, service)
        #expect(output.last == 10, "quiet")
        await service.setQuiet(false)
        await finishFade(clock, service)
        #expect(output.last == 60, "idle in daylight: its full level")
        await service.setDimmed(true)
        await service.setAmbient(lux: 0)
        await finishFade(clock, service)
        #expect(output.last == 5, "dim: its own level")
        await service.setDimmed(false)
        await finishFade(clock, service)
        #expect(output.last == 30)
        await service.boost()
        await service.setAmbient(lux: 1000)
        await finishFade(clock, service)
        #expect(output.last == 100, "a reading does not take back Z4's boost")
    }

    /// Z2: at 0 lx the default curve scales active to 20 %; night's fixed 40 % must not light a
    /// dark room brighter during quiet hours than outside them (nor quiet above idle, nor dim).
    @Test func z2_quietNightAndDimAreNeverBrighterThanTheScaledLevelsInADarkRoom() async {
        let clock = ManualClock()
        let output = RecordedLevels()
        let service = BrightnessController(backlight: output, levels: .init(active: 1, night: 0.4, idle: 0.6, quiet: 0.3, dim: 0.5),
                                        fade: .milliseconds(300), clock: clock, ambient: AmbientBrightness(points: AmbientSettings.defaultCurve), warn: { _ in })
        await service.setQuiet(false)
        await service.setAmbient(lux: 0)
        await finishFade(clock, service)
        #expect(output.last == 12, "idle: a fifth of 60 %")
        await service.setQuiet(true)
        await finishFade(clock, service)
        #expect(output.last == 12, "quiet's 30 % capped at the scaled idle level")
        let card = NookActivity(title: "Doorbell")
        await service.observe(NookActivityEvent(activity: card, kind: .animateIn, at: clock.now, module: nil))
        await finishFade(clock, service)
        #expect(output.last == 20, "night's 40 % capped at the scaled active level (20 %)")
        await service.setDimmed(true)
        await finishFade(clock, service)
        #expect(output.last == 20, "dim's 50 % capped too")
        await service.setAmbient(lux: 1000)
        await finishFade(clock, service)
        #expect(output.last == 50, "daylight: dim's own level, below full active")
        await service.setDimmed(false)
        await finishFade(clock, service)
        #expect(output.last == 40, "daylight: night's own level")
    }

    /// Z2: a gpio-backlight has one step; any scale under a half rounded its level to off.
    @Test func z2_autoBrightnessNeverTurnsAOneStepBacklightOff() async {
        let clock = ManualClock()
        let output = OneStep()
        let service = BrightnessController(backlight: output, levels: .init(), fade: .milliseconds(300), clock: clock,
                                        ambient: AmbientBrightness(points: AmbientSettings.defaultCurve), warn: { _ in })
        await service.setQuiet(false)
        await service.setAmbient(lux: 0)
        await finishFade(clock, service)
        #expect(output.all.last == 1, "idle at 0 lx: 60 % × 20 % of one step is still on: \(output.all)")
        await service.setQuiet(true)
        await finishFade(clock, service)
        #expect(output.all.last == 0, "quiet's fixed 10 % rounds to off as it does without a sensor")
    }

    /// The real sensor against a fake IIO tree on the manual clock: the room darkens, the
    /// sensor disappears (a clear warning, the fixed level again, no crash), and comes back.
    @Test func z2_i4_theSensorDisappearingFadesBackToTheFixedLevel() async throws {
        let scratch = Scratch()
        let device = scratch.path + "/iio/iio:device0"
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        _ = scratch.file("iio/iio:device0/name", "vcnl4000\n")
        _ = scratch.file("iio/iio:device0/in_illuminance_scale", "0.250000\n")  // 0.25 lx a count
        _ = scratch.file("iio/iio:device0/in_illuminance_raw", "2000\n")  // 500 lx
        let clock = ManualClock()
        let output = RecordedLevels()
        let warnings = Locked<[String]>([])
        let curve = AmbientBrightness(points: [.init(lux: 0, scale: 0.2), .init(lux: 500, scale: 1)])
        let service = BrightnessController(backlight: output, levels: .init(idle: 0.6), fade: .milliseconds(400), clock: clock, ambient: curve, warn: { _ in })
        await service.setQuiet(false)
        let sensor = AmbientLightSensor(settings: .init(name: "vcnl4000", interval: .milliseconds(500), sysfsRoot: scratch.path + "/iio"),
                                        clock: clock, warn: { text in warnings.withLock { $0.append(text) } })
        let task = Task { await sensor.run { await service.setAmbient(lux: $0) } }
        defer { task.cancel() }
        /// Lets time pass in small steps until `done` (the bound only matters if it never is).
        func runUntil(_ done: () async -> Bool) async throws {
            var rounds = 0
            while rounds < 400, await !done() {
                rounds += 1
                clock.advance(by: .milliseconds(50))
                for _ in 0..<2000 where clock.sleeperCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
            }
        }
        try await runUntil { await service.ambientLux == 500 }
        #expect(output.all == [60], "500 lx: the idle level as configured")

        _ = scratch.file("iio/iio:device0/in_illuminance_raw", "0\n")  // the lights go out
        try await runUntil { output.last == 12 }
        #expect(output.last == 12, "dark: a fifth of the idle level")
        #expect(Set(output.all).count >= 10, "faded: \(output.all)")

        try FileManager.default.removeItem(atPath: device)
        try await runUntil { output.last == 60 }
        #expect(output.last == 60, "no sensor: the fixed level again")
        let up = Array(output.all[try #require(output.all.firstIndex(of: 12))...])
        #expect(up == up.sorted() && up.count >= 10, "a fade up, not a jump: \(up)")
        let told = warnings.withLock { $0 }
        #expect(told.count == 1 && told.first?.contains("light:vcnl4000: no IIO device named 'vcnl4000'") == true, "\(told)")
        #expect(told.first?.contains("the brightness keeps its fixed levels") == true)

        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        _ = scratch.file("iio/iio:device0/name", "vcnl4000\n")
        _ = scratch.file("iio/iio:device0/in_illuminance_raw", "garbage\n")
        try await runUntil { warnings.withLock { $0.count } >= 2 }
        #expect(warnings.withLock { $0.last }?.contains("in_illuminance_raw holds 'garbage'") == true)
        #expect(output.last == 60, "unparseable: still the fixed level")
        _ = scratch.file("iio/iio:device0/in_illuminance_raw", "0\n")
        try await runUntil { output.last == 12 }
        #expect(output.last == 12, "back: following the room again")
    }

    @Test func z2_ambientKeysAreReadAndCheckedWithTheirLine() throws {
        func parse(_ text: String) throws -> DaemonConfig { try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml"))) }
        let config = try parse("""
            [brightness]
            ambient_sensor = "vcnl4000"
            ambient_curve = ["0:10", "300.5:100"]
            ambient_hysteresis_pct = 30
            ambient_interval_ms = 250
            """)
        let ambient = try #require(config.brightness.ambient)
        #expect(ambient.sensor.name == "vcnl4000" && ambient.sensor.interval == .milliseconds(250))
        #expect(ambient.curve.points == [.init(lux: 0, scale: 0.1), .init(lux: 300.5, scale: 1)] && ambient.curve.hysteresis == 0.3)
        #expect(try parse("[brightness]\nambient_sensor = \"x\"\n").brightness.ambient?.curve.points == AmbientSettings.defaultCurve)
        #expect(try parse("[brightness]\nidle = 50\n").brightness.ambient == nil)

        for (text, wanted) in [
            ("[brightness]\nambient_curve = [\"0:10\"]\n", "nook.toml:2: brightness.ambient_curve: needs brightness.ambient_sensor"),
            ("[brightness]\nambient_sensor = \"x\"\nambient_curve = [\"100:10\", \"50:20\"]\n", "nook.toml:3: brightness.ambient_curve: points must rise in lux, got \"50:20\""),
            ("[brightness]\nambient_sensor = \"x\"\nambient_curve = [\"dark:10\"]\n", "each point is \"LUX:PERCENT\""),
            ("[brightness]\nambient_sensor = \"x\"\nambient_curve = []\n", "needs at least one point"),
            ("[brightness]\nambient_sensor = \"x\"\nambient_curve = [\"0:0\", \"500:100\"]\n", "nook.toml:3: brightness.ambient_curve: \"0:0\" would turn the backlight off in that light; the lowest percent is 1"),
            ("[brightness]\nambient_sensor = \"x\"\nambient_hysteresis_pct = 150\n", "brightness.ambient_hysteresis_pct"),
            ("[brightness]\nambient_sensr = \"x\"\n", "brightness.ambient_sensr: is not a known setting"),
        ] {
            var message = "no error"
            do { _ = try parse(text) } catch { message = "\(error)" }
            #expect(message.contains(wanted), "\(message)")
        }
    }
}

@Suite("Z2 auto-brightness through nookd", .serialized, .ownThreads)
struct AmbientBrightnessEndToEndTests {
    /// nookd wired to a fake light sensor and a fake backlight: the room's light sets the idle
    /// level, and a sensor that goes away leaves the configured level, with the warning logged.
    @Test func z2_nookdFollowsTheRoomsLightAndFallsBackWhenTheSensorGoes() throws {
        let scratch = Scratch()
        let device = scratch.path + "/iio/iio:device0"
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        _ = scratch.file("iio/iio:device0/name", "vcnl4000\n")
        _ = scratch.file("iio/iio:device0/in_illuminance_raw", "0\n")
        try FileManager.default.createDirectory(atPath: scratch.path + "/backlight/panel", withIntermediateDirectories: true)
        _ = scratch.file("backlight/panel/max_brightness", "100\n")
        _ = scratch.file("backlight/panel/brightness", "100\n")
        let config = scratch.file("nook.toml", """
            [brightness]
            backlight = "panel"
            sysfs_root = "\(scratch.path)/backlight"
            idle = 60
            ambient_sensor = "vcnl4000"
            ambient_curve = ["0:20", "500:100"]
            ambient_interval_ms = 100
            ambient_sysfs_root = "\(scratch.path)/iio"
            """)
        // A file is not truncated by a write as a sysfs attribute is: the first line is the level.
        func level() -> Int? {
            (try? String(contentsOfFile: scratch.path + "/backlight/panel/brightness", encoding: .utf8))
                .flatMap { $0.split(separator: "\n").first.flatMap { Int($0) } }
        }
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        // The room's light is read before the first level is set and before the socket
        // listens: no bright start (100 in the file before nookd, 60 the fixed idle level).
        #expect(level() == 12, "dark from the start")
        try eventually("a dark room: a fifth of the idle level") { level() == 12 }
        // Z2: status says what the room's light did to the level.
        let status = try StatusAnswer(json: daemon.request(.status))
        // A hub reads 20 %: the active level a fifth of the way, which keeps this idle 12 % if written back.
        #expect(status.brightness == .init(state: "idle", level: 12, maximum: 100, output: scratch.path + "/backlight/panel/brightness", lux: 0,
                                           percent: 20))
        let shown = try nookctl(["status"], socket: daemon.socket)
        #expect(shown.output.contains("brightness: idle, 12 % (12 of 100 on \(scratch.path)/backlight/panel/brightness), the room at 0 lux"), "\(shown.output)")
        try FileManager.default.removeItem(atPath: device)
        try eventually("no sensor: the idle level as configured") { level() == 60 }
        #expect(daemon.log.contains("light:vcnl4000: no IIO device named 'vcnl4000'"), "\(daemon.log)")
        #expect(daemon.stop().status == 0)
    }
}
