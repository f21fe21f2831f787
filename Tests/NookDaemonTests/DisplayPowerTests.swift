import Foundation
import NookActivities
@testable import NookDaemon
import NookDisplay
import NookLogging
import NookProtocol
import NookRender
import NookTestSupport
import Testing

/// M1: the display switched off and on by a request, and on again by itself after a switch-off
/// for a while, on the injected clock; an empty room's darkness (Z3) and a switch-off each hold
/// the panel dark, and it lights only when neither does.
@Suite("M1 the display switched off and on")
struct DisplayPowerTests {
    struct Board {
        let clock = ManualClock()
        let mock: MockDisplay
        let screen: DaemonScreen
        let power: Service.DisplayPower

        init() async {
            mock = MockDisplay(size: PixelSize(width: 64, height: 32), refreshHz: 1000, clock: NookSystemClock())
            let cards = NookScreen(display: mock, clock: clock, settings: .init(home: .blank))
            await cards.showHome()
            screen = DaemonScreen(cards: cards, settings: .init(home: .blank))
            power = Service.DisplayPower(screen: screen, clock: clock, logger: Logger(label: "test"))
        }
    }

    @Test func m1_offHoldsThePanelDarkUntilSwitchedOnAndSaysSoToEachSender() async {
        let board = await Board()
        #expect(!board.mock.isBlanked && board.power.unseenNote.isEmpty)
        await board.power.set(.off)
        #expect(board.mock.isBlanked && board.power.isOff && board.power.wakesInS == nil)
        #expect(board.power.unseenNote.first?.contains("the display is switched off: this card goes by on a dark glass") == true,
                "\(board.power.unseenNote)")
        board.clock.advance(by: .seconds(7 * 86_400))
        #expect(board.mock.isBlanked, "off for good until switched on: no timer lights it")
        await board.power.set(.on)
        #expect(!board.mock.isBlanked && !board.power.isOff)
    }

    @Test func m1_offForAWhileLightsItselfAtItsEndOnTheInjectedClock() async throws {
        let board = await Board()
        await board.power.set(.offFor(seconds: 90))
        #expect(board.mock.isBlanked && board.power.wakesInS == 90)
        #expect(board.power.unseenNote.first?.contains("switched off for 1m 30s more") == true, "\(board.power.unseenNote)")
        await board.clock.waitForSleepers()
        board.clock.advance(by: .seconds(89))
        #expect(board.mock.isBlanked && board.power.wakesInS == 1, "one second left")
        let said = Locked(0)
        let observation = board.power.changes.add { _ in said.withLock { $0 += 1 } }
        defer { observation.cancel() }
        board.clock.advance(by: .seconds(1))
        // The timer's task lights the panel and tells the watchers; the bound only matters if it never does.
        #expect(try await settles { !board.mock.isBlanked && !board.power.isOff && said.withLock { $0 } == 1 }, "lit again, and said")
        #expect(board.power.wakesInS == nil)
    }

    @Test func m1_aNewerSwitchEndsTheEarlierOnesTimer() async throws {
        let board = await Board()
        await board.power.set(.offFor(seconds: 10))
        await board.clock.waitForSleepers()
        await board.power.set(.off)
        board.clock.advance(by: .seconds(20))
        for _ in 0..<50 { await Task.yield() }
        #expect(board.mock.isBlanked && board.power.isOff, "switched off for good after: the first timer lights nothing")
        await board.power.set(.on)
        await board.power.set(.offFor(seconds: 5))
        await board.power.set(.on)
        await board.power.set(.offFor(seconds: 30))
        board.clock.advance(by: .seconds(6))
        for _ in 0..<50 { await Task.yield() }
        #expect(board.mock.isBlanked && board.power.wakesInS == 24, "the 5 s switch-off's timer was ended by the switch on")
    }

    @Test func m1_z3_anEmptyRoomAndASwitchOffEachKeepThePanelDark() async {
        let board = await Board()
        await board.screen.holdDark(true, for: .nobodyThere)
        await board.power.set(.off)
        await board.screen.holdDark(false, for: .nobodyThere)
        #expect(board.mock.isBlanked, "someone back, but the display is switched off")
        await board.screen.holdDark(true, for: .nobodyThere)
        await board.power.set(.on)
        #expect(board.mock.isBlanked, "switched on, but nobody is there")
        #expect(board.screen.isHeldDark(for: .nobodyThere) && !board.screen.isHeldDark(for: .switchedOff))
        await board.screen.holdDark(false, for: .nobodyThere)
        #expect(!board.mock.isBlanked)
    }

    /// Two tasks switching at once: the panel ends as the last switch says, whichever call
    /// reached the screen last.
    @Test func m1_switchesRacingLeaveThePanelAsTheLastSays() async {
        let board = await Board()
        for round in 0..<200 {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await board.power.set(round.isMultiple(of: 2) ? .off : .on) }
                group.addTask { await board.screen.holdDark(round.isMultiple(of: 3), for: .nobodyThere) }
            }
            let dark = board.power.isOff || board.screen.isHeldDark(for: .nobodyThere)
            #expect(board.mock.isBlanked == dark, "round \(round)")
        }
    }
}

/// Z2 with a brightness set over the API (`display`): a card shows at it, the other states keep
/// their proportion to nook.toml's active level, and `auto` gives the levels back.
@Suite("Z2 M1 a brightness set over the API")
struct BrightnessSetTests {
    /// What a hub reads as the brightness (`percent`) keeps the glass when written back: in a
    /// state at 0 % it is the state under it, with the room's light; with an active level of 0,
    /// the glass's own. A change of it by the room's light is announced, so a hub reads it again.
    @Test func z2_m1_theBrightnessAHubReadsFollowsTheRoomAndIsAnnounced() async throws {
        let dimmer = DimmingDisplay(MockDisplay(size: PixelSize(width: 8, height: 8), refreshHz: 1000, clock: NookSystemClock()))
        let announced = Locked(0)
        let curve = AmbientBrightness(points: [.init(lux: 0, scale: 0.2), .init(lux: 500, scale: 1)], hysteresis: 0.2)
        let service = BrightnessController(backlight: dimmer, levels: .init(active: 1, idle: 0.5, quiet: 0), fade: .milliseconds(300),
                                           clock: ManualClock(), ambient: curve, warn: { _ in }, percentChanged: { announced.withLock { $0 += 1 } })
        await service.setAmbient(lux: 0)
        await service.setQuiet(false)
        #expect(await service.percent == 20, "idle in the dark: a fifth of the levels")
        await service.setAmbient(lux: 500)
        #expect(await service.percent == 100 && announced.withLock { $0 } == 1, "the room lit: read again")
        await service.setQuiet(true)
        #expect(await service.percent == 100, "quiet at 0 %: the idle under it, lit by the room")
        #expect(announced.withLock { $0 } == 1, "quiet hours changed the glass, not what a hub reads")

        let flat = BrightnessController(backlight: dimmer, levels: .init(active: 0, idle: 0.5), fade: .milliseconds(300),
                                        clock: ManualClock(), warn: { _ in })
        await flat.setQuiet(false)
        #expect(await flat.percent == 50, "an active level of 0: the glass's own level, which a set percentage keeps")
    }

    @Test func z2_m1_aSetBrightnessScalesEveryStateAndAutoGivesTheLevelsBack() async throws {
        let dimmer = DimmingDisplay(MockDisplay(size: PixelSize(width: 8, height: 8), refreshHz: 1000, clock: NookSystemClock()))
        let clock = ManualClock()
        let service = BrightnessController(backlight: dimmer, levels: .init(active: 0.8, idle: 0.4), fade: .milliseconds(300),
                                           clock: clock, warn: { _ in })
        await service.setQuiet(false)
        #expect(dimmer.level == 102, "idle: 40 % of 255")
        #expect(await service.percent == 80, "what keeps the glass as it is: the active 80 %")
        func settled(at level: Int) async throws -> Bool {
            for _ in 0..<60 where dimmer.level != level {
                await clock.waitForSleepers()
                clock.advance(by: .milliseconds(20))
                for _ in 0..<2000 where clock.sleeperCount == 0 && dimmer.level != level { try await Task.sleep(for: .milliseconds(1)) }
            }
            await service.settle()
            return dimmer.level == level
        }
        await service.setPercent(40)
        #expect(try await settled(at: 51), "idle keeps half the active level: 20 %")
        #expect(await service.status?.percentSet == 40)
        #expect(await service.percent == 40)
        let card = NookActivity(title: "Doorbell")
        await service.observe(NookActivityEvent(activity: card, kind: .animateIn, at: clock.now, module: nil))
        #expect(try await settled(at: 102), "a card at the set 40 %")
        await service.setPercent(100)
        #expect(try await settled(at: 255))
        await service.setPercent(nil)
        #expect(try await settled(at: 204), "auto: nook.toml's active 80 % again")
        #expect(await service.status?.percentSet == nil)
        await service.setPercent(0)
        #expect(try await settled(at: 0), "0 % is dark, as AWTRIX's BRI 0 is")
        await service.setPercent(1)
        #expect(try await settled(at: 3), "1 % of 255, rounded")
    }
}

/// M1 through nookd and nookctl: `nookctl display` switches the display and sets the brightness
/// a backlight then shows; what was asked and is not so is said on standard error, and a card
/// sent while the display is off is told.
@Suite("M1 nookctl display", .serialized, .ownThreads)
struct DisplayCommandTests {
    @Test func m1_z2_nookctlDisplaySwitchesTheDisplayAndSetsTheBacklightsBrightness() throws {
        let scratch = Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path + "/backlight/panel", withIntermediateDirectories: true)
        _ = scratch.file("backlight/panel/max_brightness", "255\n")
        _ = scratch.file("backlight/panel/brightness", "255\n")
        func level() -> Int? {
            (try? String(contentsOfFile: scratch.path + "/backlight/panel/brightness", encoding: .utf8)).flatMap { Int($0.trimmingSpaces) }
        }
        let config = scratch.file("nook.toml", """
            [brightness]
            backlight = "panel"
            sysfs_root = "\(scratch.path)/backlight"
            active = 100
            idle = 50
            fade_ms = 300
            """)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        func display(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
            try nookctl(["display"] + arguments, socket: daemon.socket)
        }
        #expect(try display([]).output == "display: on, brightness auto\n")
        try eventually("idle at 50 %") { level() == 128 }

        let set = try display(["--brightness", "40"])
        #expect(set.status == 0 && set.output == "display: on, brightness 40 %\n", "\(set)")
        try eventually("idle keeps half the set 40 %") { level() == 51 }
        #expect(try daemon.request(.status)["brightness"]?["set"] == .number(40))

        let off = try display(["off", "--for", "1h"])
        #expect(off.status == 0 && off.output.hasPrefix("display: off for "), "\(off)")
        #expect(try daemon.request(.status)["display"]?["power"] == .string("off"))
        let shown = try nookctl(["status"], socket: daemon.socket).output
        #expect(shown.contains(", switched off for ") && shown.contains("set to 40 %"), "\(shown)")
        let card = try nookctl(["enqueue", "--title", "Parcel", "--key", "parcel", "--dwell", "600"], socket: daemon.socket)
        #expect(card.status == 0 && card.error.contains("the display is switched off for "), "\(card)")
        try eventually("the parcel on the (dark) glass") { try daemon.request(.status)["modules"]?.items.first?["current"]?["title"] == .string("Parcel") }
        let changed = try nookctl(["update", "--key", "parcel", "--title", "Parcel at the door"], socket: daemon.socket)
        #expect(changed.status == 0 && changed.error.contains("the display is switched off for "), "an update on a dark glass is said too: \(changed)")

        let on = try display(["on", "--brightness", "auto"])
        #expect(on.status == 0 && on.output == "display: on, brightness auto\n", "\(on)")
        #expect(try daemon.request(.status)["display"]?["wakesInS"] == .null)
        #expect(try !nookctl(["status"], socket: daemon.socket).output.contains("switched off"))

        for (bad, said) in [(["sideways"], "the action must be on, off or status; got 'sideways'"), (["on", "--for", "5m"], "only 'off' takes --for"),
                            (["--brightness", "101"], "--brightness must be a percentage from 0 to 100, or auto; got '101'"),
                            (["off", "--for", "8d"], "--for"), (["status", "--brightness", "40"], "'status' only reads"),
                            (["--brightness", "-1"], "--brightness must be a percentage from 0 to 100, or auto; got '-1'")] {
            let refused = try display(bad)
            #expect(refused.status != 0 && refused.error.contains(said), "\(bad): \(refused)")
        }
        #expect(try daemon.request(.status)["display"]?["power"] == .string("on"), "nothing refused switched anything")
        // At 0 % the glass is dark though switched on: each card is told.
        #expect(try display(["--brightness", "0"]).status == 0)
        let unseen = try nookctl(["enqueue", "--title", "Dark"], socket: daemon.socket)
        #expect(unseen.error.contains("the brightness is set to 0 %: this card goes by on a dark glass"), "\(unseen)")
        #expect(daemon.stop().status == 0)
    }

    /// Without a `[brightness]` table nookd leaves the brightness alone: a brightness asked for
    /// is said not set, and the switch asked with it is still made.
    @Test func m1_aBrightnessWithoutABrightnessTableIsSaidAndTheSwitchStillMade() throws {
        let scratch = Scratch()
        let daemon = try DaemonProcess(scratch: scratch, arguments: [])
        let asked = try nookctl(["display", "off", "--brightness", "30"], socket: daemon.socket)
        #expect(asked.status == 0 && asked.output == "display: off, brightness not set by nookd (no [brightness] table)\n", "\(asked)")
        #expect(asked.error.contains("brightness: not set: nook.toml has no [brightness] table"), "\(asked)")
        #expect(try daemon.request(.status)["display"]?["power"] == .string("off"))
        #expect(daemon.stop().status == 0)
    }
}
