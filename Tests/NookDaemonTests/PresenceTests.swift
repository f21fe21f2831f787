import Foundation
import NookLogging
import NookActivities
import NookConfig
@testable import NookDaemon
import NookProtocol
import NookTestSupport
import Testing

/// What a ``PresenceTracker`` asked the daemon to do, in order.
final class PresenceEffects: Sendable {
    private let list = Locked<[String]>([])
    private let cards = Locked<[NookActivity]>([])
    var all: [String] { list.withLock { $0 } }
    var digests: [NookActivity] { cards.withLock { $0 } }

    var effects: PresenceTracker.Effects {
        .init(dim: { dim in self.list.withLock { $0.append(dim ? "dim" : "undim") } },
              dark: { dark in self.list.withLock { $0.append(dark ? "dark" : "light") } },
              digest: { card in
                  self.cards.withLock { $0.append(card) }
                  self.list.withLock { $0.append("digest") }
              })
    }
}

private func ended(_ activity: NookActivity, _ reason: NookEndReason = .completed, at clock: ManualClock) -> NookActivityEvent {
    NookActivityEvent(activity: activity, kind: .hidden(reason), at: clock.now, module: nil)
}

@Suite("Z3 presence on the manual clock")
struct PresenceServiceTests {
    let clock = ManualClock()
    let recorded = PresenceEffects()

    func service(dim: Int = 60, blank: Int = 300) -> PresenceTracker {
        PresenceTracker(settings: .init(dimAfter: .seconds(dim), blankAfter: .seconds(blank), digestDwell: .seconds(8)),
                        clock: clock, logger: Logger(label: "test"), effects: recorded.effects)
    }

    /// Lets the absence timer run up to `instant` and act.
    func advance(to seconds: Int, _ presence: PresenceTracker) async {
        await clock.waitForSleepers()
        clock.advance(to: .origin + .seconds(seconds))
        // The timer acts on the actor, then sleeps again or ends; the bound only matters if it never does.
        for _ in 0..<2000 where clock.sleeperCount == 0 {
            if await presence.state == .away { break }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test func z3_nobodyThereDimsThenDarkensAndSomeoneBackLightsItAgain() async {
        let presence = service()
        await presence.set(present: false)
        await advance(to: 59, presence)
        #expect(await presence.state == .present && recorded.all.isEmpty, "nothing before dim_after")
        await advance(to: 60, presence)
        #expect(await presence.state == .dimmed)
        #expect(recorded.all == ["dim"])
        await advance(to: 300, presence)
        #expect(await presence.state == .away)
        #expect(recorded.all == ["dim", "dark"])
        await presence.set(present: true)
        #expect(await presence.state == .present)
        #expect(recorded.all == ["dim", "dark", "light", "undim"], "nothing was missed: no digest")
    }

    @Test func z3_someoneBackBeforeTheDimStopsTheAbsenceClock() async {
        let presence = service()
        await presence.set(present: false)
        await advance(to: 30, presence)
        await presence.set(present: true)
        clock.advance(to: .origin + .seconds(400))
        await presence.settle()
        #expect(await presence.state == .present && recorded.all.isEmpty)
        // The clock counts again from the last time someone was seen.
        await presence.set(present: false)
        await advance(to: 459, presence)
        #expect(await presence.state == .present)
        await advance(to: 460, presence)
        #expect(await presence.state == .dimmed)
    }

    @Test func z3_cardsThatEndWhileNobodyIsThereAreDigestedOnceTheMostImportantFirst() async {
        let presence = service(dim: 10, blank: 20)
        let seenCard = NookActivity(title: "Seen")
        await presence.observe(ended(seenCard, at: clock))
        await presence.set(present: false)
        await advance(to: 10, presence)
        let low = NookActivity(priority: .low, title: "Backup done")
        let normal1 = NookActivity(title: "Build finished")
        let high = NookActivity(priority: .high, title: "Doorbell")
        let normal2 = NookActivity(title: "Mail from Ann\nsecond line")
        let cancelled = NookActivity(title: "Cancelled")
        let transient = NookActivity(title: "Volume 40%", isTransient: true)
        let alarm = NookActivity(title: "Alarm", presentation: .blocker(timeout: .seconds(5)))
        for event in [ended(low, at: clock), ended(normal1, at: clock), ended(cancelled, .cancelled, at: clock),
                      ended(transient, at: clock), ended(high, at: clock), ended(normal2, at: clock), ended(alarm, .timedOut, at: clock)] {
            await presence.observe(event)
        }
        await advance(to: 20, presence)
        #expect(await presence.unseen.map(\.title) == ["Backup done", "Build finished", "Doorbell", "Mail from Ann\nsecond line", "Alarm"])
        await presence.set(present: true)
        #expect(recorded.all == ["dim", "dark", "light", "undim", "digest"])
        let digest = try! #require(recorded.digests.first)
        #expect(digest.title == "5 while you were away")
        #expect(digest.subtitle == "Doorbell · Build finished · Mail from Ann · Alarm · Backup done")
        #expect(digest.priority == .high, "at the priority of the most important card missed")
        #expect(digest.dwell == .seconds(8) && digest.presentation == .timed)
        let left = (await presence.unseen.count, await presence.unseenCount)
        #expect(left == (0, 0))

        // Shown once: away and back again with nothing missed, and the digest itself ending
        // unseen, brings no second digest.
        await presence.set(present: false)
        await advance(to: 30, presence)
        await presence.observe(ended(digest, at: clock))
        await presence.set(present: true)
        #expect(recorded.digests.count == 1)
    }

    /// `presence_to_home_ms` from inside nookd: a return is timed from nookd hearing it until
    /// the panel is lit and the backlight up again (here a DPMS-on taking 40 ms, the undim 10).
    @Test func z3_aReturnIsTimedUntilThePanelIsLitAndUndimmed() async {
        let clock = clock
        let presence = PresenceTracker(settings: .init(dimAfter: .seconds(60), blankAfter: .seconds(300), digestDwell: .seconds(8)),
                                       clock: clock, logger: Logger(label: "test"), effects: .init(
                                           dim: { dim in if !dim { clock.advance(by: .milliseconds(10)) } },
                                           dark: { dark in if !dark { clock.advance(by: .milliseconds(40)) } },
                                           digest: { _ in }))
        await presence.set(present: false)
        #expect(await presence.lastReturn == nil)
        await advance(to: 300, presence)
        #expect(await presence.state == .away)
        await presence.set(present: true)
        #expect(await presence.lastReturn == .milliseconds(50))
    }

    @Test func z3_aDigestOfManyListsFiveAndCountsTheRest() throws {
        let missed = (1...9).map { NookActivity(title: "Card \($0)") }
        let digest = try #require(PresenceTracker.digest(of: missed, dwell: .seconds(8)))
        #expect(digest.title == "9 while you were away")
        #expect(digest.subtitle == "Card 1 · Card 2 · Card 3 · Card 4 · Card 5 · and 4 more")
        let long = NookActivity(title: String(repeating: "x", count: 512))
        let many = try #require(PresenceTracker.digest(of: Array(repeating: long, count: 9), dwell: .seconds(8)))
        #expect(throws: Never.self) { try many.validate() }
        #expect(PresenceTracker.digest(of: [], dwell: .seconds(8)) == nil)
    }

    /// A long absence keeps only what the digest lists, and counts the rest.
    @Test func z3_aLongAbsenceKeepsTheMostImportantAndCountsEveryCard() async throws {
        let presence = service(dim: 10, blank: 20)
        await presence.set(present: false)
        await advance(to: 10, presence)
        for index in 0..<10_000 {
            let priority: NookActivityPriority = index == 7_000 ? .high : index % 1000 == 0 ? .normal : .low
            await presence.observe(ended(NookActivity(priority: priority, title: "Card \(index)"), at: clock))
        }
        let kept = (await presence.unseen.count, await presence.unseenCount)
        #expect(kept == (PresenceTracker.digestTitles, 10_000))
        await presence.set(present: true)
        let digest = try #require(recorded.digests.first)
        #expect(digest.title == "10000 while you were away")
        #expect(digest.subtitle == "Card 7000 · Card 0 · Card 1000 · Card 2000 · Card 3000 · and 9995 more")
    }
}

@Suite("Z3 [presence] and proximity.presence_threshold in the config")
struct PresenceConfigTests {
    func parse(_ text: String) throws(ConfigError) -> DaemonConfig {
        try DaemonConfig(reading: ConfigReader(try ConfigDocument(parsing: text, source: "nook.toml")))
    }

    func error(_ text: String) -> String {
        do { _ = try parse(text) } catch { return error.description }
        return "no error"
    }

    @Test func z3_aPIRLineOrASecondProximityThresholdTurnsPresenceOn() throws {
        let pir = try parse("[gpio.pir]\nline = \"NOOK_PIR\"\nrole = \"presence\"\n\n[presence]\ndim_after_s = 30\nblank_after_s = 120\ndigest_dwell_s = 5\n")
        #expect(pir.inputs.gpioLines.first?.role == .presence)
        #expect(pir.presence == PresenceTracker.Settings(dimAfter: .seconds(30), blankAfter: .seconds(120), digestDwell: .seconds(5)))
        let proximity = try parse("[proximity]\nname = \"vcnl4040\"\nthreshold = 200\npresence_threshold = 40\n")
        #expect(proximity.inputs.proximity?.presenceThreshold == 40)
        #expect(proximity.presence == PresenceTracker.Settings(), "defaults without a [presence] table")
        #expect(try parse("[presence]\n").presence == nil, "an empty table says nothing")
        let dimLate = try parse("[gpio.pir]\nline = \"P\"\nrole = \"presence\"\n[presence]\ndim_after_s = 600\n")
        #expect(dimLate.presence?.blankAfter == .seconds(600), "the default blank time follows a later dim")
    }

    @Test func z3_presenceSettingsThatCannotWorkAreClearErrors() {
        #expect(error("[presence]\ndim_after_s = 30\n")
            == "nook.toml:2: presence.dim_after_s: needs an input that reports presence: proximity.presence_threshold, or a [gpio.NAME] table with role = \"presence\" (a PIR sensor)")
        #expect(error("[gpio.pir]\nline = \"P\"\nrole = \"presence\"\n[presence]\ndim_after_s = 60\nblank_after_s = 30\n")
            .contains("nook.toml:6: presence.blank_after_s: must not be shorter than presence.dim_after_s (60 s)"))
        #expect(error("[gpio.pir]\nline = \"P\"\nrole = \"presence\"\n[presence]\ndim_after = 60\n").contains("presence.dim_after: is not a known setting"))
        #expect(error("[proximity]\nname = \"v\"\nthreshold = 100\npresence_threshold = 150\n")
            .contains("nook.toml:4: proximity.presence_threshold: must not exceed proximity.threshold (100)"))
        #expect(error("[proximity]\nname = \"v\"\nthreshold = 100\nhysteresis = 20\npresence_threshold = 10\n")
            .contains("proximity.presence_threshold: must not be below proximity.hysteresis (20), got 10"))
        #expect(error("[proximity]\npresence_threshold = 10\n").contains("proximity.presence_threshold: needs proximity.device or proximity.name"))
        #expect(error("[gpio.pir]\nline = \"P\"\nrole = \"pir\"\n").contains("gpio.pir.role"))
    }
}

@Suite("Z3 presence through nookd", .serialized, .ownThreads)
struct PresenceEndToEndTests {
    /// A proximity sensor's farther threshold: nobody there dims and darkens the display, a
    /// card that ends meanwhile is unseen, and someone back gets the digest and the home.
    @Test func z3_nookdDarkensWithNobodyThereAndShowsTheDigestWhenSomeoneIsBack() throws {
        let scratch = Scratch()
        let device = scratch.path + "/iio/iio:device0"
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        try "vcnl4040\n".write(toFile: device + "/name", atomically: true, encoding: .utf8)
        try "0\n".write(toFile: device + "/in_proximity_raw", atomically: true, encoding: .utf8)
        let config = scratch.file("nook.toml", """
            [proximity]
            name = "vcnl4040"
            threshold = 200
            hysteresis = 5
            presence_threshold = 30
            interval_ms = 20
            sysfs_root = "\(scratch.path)/iio"

            [presence]
            dim_after_s = 1
            blank_after_s = 2
            digest_dwell_s = 30
            """)
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config])
        try eventually("nobody there: away") { try nookctl(["status"], socket: daemon.socket).output.contains("presence: away (nobody there, display off)") }
        #expect(try nookctl(["status"], socket: daemon.socket).output.contains("input proximity:vcnl4040:presence (presence): idle, reading 0\n"))
        try daemon.request(.enqueue(NookActivity(title: "Parcel delivered", dwell: .milliseconds(200)), module: nil, wait: false))
        try eventually("the card counted unseen") { try nookctl(["status"], socket: daemon.socket).output.contains("presence: away (nobody there, display off, 1 unseen)") }
        #expect((try daemon.request(.status))["modules"]?.items.first?["parked"] == .null, "presence never makes the queue yield")

        // Someone walks in: in the room, not at the nook.
        try "50\n".write(toFile: device + "/in_proximity_raw", atomically: true, encoding: .utf8)
        try eventually("the digest on the glass") {
            (try daemon.request(.status))["modules"]?.items.first?["current"]?["title"] == .string("1 while you were away")
        }
        let status = try nookctl(["status"], socket: daemon.socket).output
        #expect(status.contains("presence: present (someone is there)"), "\(status)")
        #expect(status.contains("engaged: no"))
        #expect((try daemon.request(.status))["modules"]?.items.first?["current"]?["subtitle"] == .string("Parcel delivered"))
        #expect(daemon.log.contains("presence: someone is back, 1 missed"))
        #expect(daemon.stop().status == 0)
    }
}
