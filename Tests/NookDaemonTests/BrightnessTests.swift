import Foundation
import NookActivities
import NookConfig
import NookDisplay
import NookRender
@testable import NookDaemon
import NookTestSupport
import Testing

/// A fake `/sys/class/backlight/panel` (as the proximity tests fake IIO).
private func fakeBacklight(_ scratch: Scratch, maximum: String = "255") -> String {
    let root = scratch.path + "/backlight"
    try! FileManager.default.createDirectory(atPath: root + "/panel", withIntermediateDirectories: true)
    _ = scratch.file("backlight/panel/max_brightness", maximum + "\n")
    _ = scratch.file("backlight/panel/brightness", "255\n")
    return root
}

private func level(_ root: String) -> Int? {
    (try? String(contentsOfFile: root + "/panel/brightness", encoding: .utf8)).flatMap { Int($0.trimmingSpaces) }
}

@Suite("Z2 brightness through the backlight class")
struct BrightnessTests {
    /// A fake backlight (max 255) driven at active 100 %, idle 40 %, quiet 5 %, started idle.
    func idleAtFortyPercent() async throws -> (Scratch, String, ManualClock, BrightnessController) {
        let scratch = Scratch()
        let root = fakeBacklight(scratch)
        let clock = ManualClock()
        let service = BrightnessController(backlight: try Backlight(name: "panel", root: root),
                                        levels: .init(active: 1.0, idle: 0.4, quiet: 0.05), fade: .milliseconds(300), clock: clock, warn: { _ in })
        await service.setQuiet(false)
        return (scratch, root, clock, service)
    }

    @Test func z2_levelsFollowCardIdleAndQuietAndFadeThroughTenLevels() async throws {
        let (scratch, root, clock, service) = try await idleAtFortyPercent()
        defer { withExtendedLifetime(scratch) {} }  // the fake sysfs tree lives as long as the test
        #expect(level(root) == 102, "idle at start, at once")
        let card = NookActivity(title: "Doorbell")
        await service.observe(NookActivityEvent(activity: card, kind: .animateIn, at: clock.now, module: nil))
        var seen: [Int] = []
        for _ in 0..<40 {
            await clock.waitForSleepers()
            clock.advance(by: .milliseconds(10))
            // The fade writes its step, then sleeps for the next one (or ends at the target);
            // the bound only matters if it never does.
            for _ in 0..<2000 where clock.sleeperCount == 0 && level(root) != 255 {
                try await Task.sleep(for: .milliseconds(1))
            }
            if let value = level(root), seen.last != value { seen.append(value) }
            if seen.last == 255 { break }
        }
        await service.settle()
        #expect(level(root) == 255)
        #expect(Set(seen).count >= 10, "a fade, not a jump: \(seen)")
        #expect(seen == seen.sorted(), "monotonic: \(seen)")
        await service.observe(NookActivityEvent(activity: card, kind: .hidden(.completed), at: clock.now, module: nil))
        await service.setQuiet(true)
        clock.advance(by: .seconds(1))
        for _ in 0..<40 { await Task.yield(); clock.advance(by: .milliseconds(20)) }
        await service.settle()
        #expect(level(root) == 13, "quiet with nothing on the glass")
    }

    /// Q15: a re-probed backlight comes back at its driver's default; the level goes to it again.
    @Test func z2_q15_aBacklightProbedAgainGetsItsLevelBack() async throws {
        let (scratch, root, _, service) = try await idleAtFortyPercent()
        #expect(level(root) == 102)
        _ = scratch.file("backlight/panel/brightness", "255\n")  // the driver's default after the re-probe
        await service.displayReturned()
        #expect(level(root) == 102, "the idle level again, without a state change")
        #expect(await service.state == .idle)
    }

    @Test func z2_aMissingOrBadBacklightIsAClearError() {
        let scratch = Scratch()
        let root = fakeBacklight(scratch, maximum: "zero")
        #expect(throws: DaemonError.self) { try Backlight(name: "panel", root: root) }
        do { _ = try Backlight(name: "panel", root: root) } catch { #expect(error.description.contains("max_brightness must be a positive number")) }
        do { _ = try Backlight(name: "../../etc", root: root) } catch { #expect(error.description.contains("must be a device name")) }
        do { _ = try Backlight(name: "gone", root: root) } catch { #expect(error.description.contains("no backlight 'gone'")) }
    }

    /// Z2: a card allowed on the glass during quiet hours shows at the night level, not at full.
    @Test func z2_aCardDuringQuietHoursShowsAtTheNightLevel() async throws {
        let scratch = Scratch()
        let root = fakeBacklight(scratch, maximum: "100")
        _ = scratch.file("backlight/panel/brightness", "0\n")  // sysfs is not truncated by a write; a file is
        let clock = ManualClock()
        let service = BrightnessController(backlight: try Backlight(name: "panel", root: root),
                                        levels: .init(active: 1.0, night: 0.3, idle: 0.6, quiet: 0.05), fade: .milliseconds(300), clock: clock, warn: { _ in })
        await service.setQuiet(true)
        #expect(level(root) == 5)
        let card = NookActivity(priority: .high, title: "Doorbell")
        await service.observe(NookActivityEvent(activity: card, kind: .animateIn, at: clock.now, module: nil))
        #expect(await service.state == .night)
        for _ in 0..<40 where level(root) != 30 {
            clock.advance(by: .milliseconds(20))
            // The bound only matters if the fade never writes its next step.
            for _ in 0..<2000 where clock.sleeperCount == 0 && level(root) != 30 { try await Task.sleep(for: .milliseconds(1)) }
        }
        await service.settle()
        #expect(level(root) == 30)
        await service.setQuiet(false)
        #expect(await service.state == .active, "quiet ends while it shows: full brightness")
    }
}

@Suite("Z2 dimming the drawn frame where there is no backlight")
struct FrameDimmingTests {
    @Test func z2_scalingIsExactAtTheEndsAndKeepsAlpha() {
        let frame = Frame(width: 3, height: 1, pixels: [0xFFFF_FFFF, 0xFF80_4020, 0x0000_00FF])
        #expect(DimmingDisplay.scaled(frame, level: 255) == frame)
        #expect(DimmingDisplay.scaled(frame, level: 0).pixels == [0xFF00_0000, 0xFF00_0000, 0x0000_0000])
        #expect(DimmingDisplay.scaled(frame, level: 128).pixels == [0xFF80_8080, 0xFF40_2010, 0x0000_0080])
    }

    /// The screen draws as always; what reaches the panel is scaled, and a fade re-presents
    /// the home frame at each step (at least ten distinct levels, as `brightness_fade_steps` asks).
    @Test func z2_withoutABacklightTheFramesFadeOnTheWayToThePanel() async throws {
        TestFonts.pin()
        let clock = ManualClock()
        let mock = MockDisplay(size: PixelSize(width: 64, height: 32), refreshHz: 60, clock: InstantClock(), keepFrames: 100)
        let dimmer = DimmingDisplay(mock)
        let screen = NookScreen(display: dimmer, clock: clock, settings: .init(home: .text("Hi")),
                                localTime: { LocalTime(hour: 9, minute: 0, weekday: 1, day: 1, month: 1) })
        dimmer.redraw { await screen.redisplay() }
        await screen.showHome()
        let drawn = try #require(await screen.lastPresentedFrame)
        #expect(mock.lastFrame?.frame == drawn, "full level: the frame as drawn")
        let service = BrightnessController(backlight: dimmer, levels: .init(idle: 0.5), fade: .milliseconds(300), clock: clock, warn: { _ in })
        await service.setQuiet(false)  // the first level is set at once (start-up)
        #expect(mock.lastFrame?.frame == DimmingDisplay.scaled(drawn, level: 128))
        #expect(await screen.lastPresentedFrame == drawn, "the screen's own frame is untouched")

        let before = mock.frameCount
        await service.setDimmed(true)  // 5 %: a fade down from 128 to 13
        for _ in 0..<40 {
            await clock.waitForSleepers()
            clock.advance(by: .milliseconds(10))
            for _ in 0..<2000 where clock.sleeperCount == 0 && dimmer.level != 13 { try await Task.sleep(for: .milliseconds(1)) }
            if dimmer.level == 13 { break }
        }
        await service.settle()
        #expect(dimmer.level == 13)
        let fade = mock.frames.suffix(mock.frameCount - before).map(\.frame)
        #expect(Set(fade.map(\.pixels)).count >= 10, "a fade of at least ten distinct frames: \(fade.count)")
        #expect(mock.lastFrame?.frame == DimmingDisplay.scaled(drawn, level: 13))
    }

    /// Z4's pulse step: the level swings down and up again, fading, until the blocker ends.
    @Test func z4_thePulseStepSwingsTheBrightnessUntilTheBlockerEnds() async throws {
        let clock = ManualClock()
        let mock = MockDisplay(size: PixelSize(width: 8, height: 8), clock: InstantClock())
        let dimmer = DimmingDisplay(mock)
        let service = BrightnessController(backlight: dimmer, levels: .init(active: 1.0, idle: 0.6), fade: .milliseconds(300), clock: clock, warn: { _ in })
        let alarm = NookActivity(title: "Alarm", presentation: .blocker(timeout: nil))
        await service.observe(NookActivityEvent(activity: alarm, kind: .animateIn, at: clock.now, module: nil))
        #expect(dimmer.level == 255)
        await service.pulse()
        var seen: [Int] = []
        for _ in 0..<200 {
            await clock.waitForSleepers()
            clock.advance(by: .milliseconds(10))
            for _ in 0..<2000 where clock.sleeperCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
            if seen.last != dimmer.level { seen.append(dimmer.level) }
        }
        // Two seconds: at least two swings down to a fifth and back up.
        let bottoms = zip(seen, seen.dropFirst()).filter { $0.0 == 51 && $0.1 > 51 }.count
        #expect(bottoms >= 2, "\(seen)")
        #expect(Set(seen).count >= 10, "fades, not jumps")
        await service.observe(NookActivityEvent(activity: alarm, kind: .hidden(.dismissed), at: clock.now, module: nil))
        for _ in 0..<40 where dimmer.level != 153 {
            clock.advance(by: .milliseconds(20))
            for _ in 0..<2000 where clock.sleeperCount == 0 && dimmer.level != 153 { try await Task.sleep(for: .milliseconds(1)) }
        }
        await service.settle()
        #expect(dimmer.level == 153, "acknowledged: the pulse ends and home's level returns")
    }

    @Test func z2_aBrightnessTableWithoutABacklightDimsTheFramesAndNightIsALevel() throws {
        func parse(_ text: String) throws -> DaemonConfig { try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml"))) }
        let frames = try parse("[brightness]\nidle = 50\nnight = 20\n")
        #expect(frames.brightness.configured && frames.brightness.backlightName == nil)
        #expect(frames.brightness.levels.idle == 0.5 && frames.brightness.levels.night == 0.2)
        #expect(try !parse("").brightness.configured, "no table: the brightness is left alone")
        var message = "no error"
        do { _ = try parse("[brightness]\nnight = 120\n") } catch { message = "\(error)" }
        #expect(message.contains("nook.toml:2: brightness.night"), "\(message)")
    }
}
