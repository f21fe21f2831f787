import Foundation
import NookActivities
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
    @Test func z2_levelsFollowCardIdleAndQuietAndFadeThroughTenLevels() async throws {
        let scratch = Scratch()
        let root = fakeBacklight(scratch)
        let clock = ManualClock()
        let service = BrightnessService(backlight: try Backlight(name: "panel", root: root),
                                        levels: .init(active: 1.0, idle: 0.4, quiet: 0.05), fade: .milliseconds(300), clock: clock, warn: { _ in })
        await service.setQuiet(false)
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

    @Test func z2_aMissingOrBadBacklightIsAClearError() {
        let scratch = Scratch()
        let root = fakeBacklight(scratch, maximum: "zero")
        #expect(throws: DaemonError.self) { try Backlight(name: "panel", root: root) }
        do { _ = try Backlight(name: "panel", root: root) } catch { #expect(error.description.contains("max_brightness must be a positive number")) }
        do { _ = try Backlight(name: "../../etc", root: root) } catch { #expect(error.description.contains("must be a device name")) }
        do { _ = try Backlight(name: "gone", root: root) } catch { #expect(error.description.contains("no backlight 'gone'")) }
    }
}
