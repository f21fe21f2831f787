#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NookActivities
import NookDisplay
import NookProtocol
import NookRender
import NookTestSupport
import Testing

/// M1: AWTRIX's mood light as nookd's `home light`: the whole glass one colour while no card is
/// on it, the apps' rotation waiting, a card still shown over it; off, the home content it covered
/// comes back, and a reload meanwhile changes what comes back, not the light.
@Suite("M1 the mood light", .serialized)
struct MoodLightTests {
    func status(_ daemon: DaemonProcess) throws -> StatusAnswer {
        try daemon.client().request(Request(id: .number(1), operation: .status), as: StatusAnswer.self).0
    }

    /// Whether every pixel of the glass is `pixel` now.
    func glassIs(_ pixel: UInt32, _ frames: String) -> Bool {
        ((try? PNG.read(from: frames + "/latest.png"))?.pixels.allSatisfy { $0 == pixel }) ?? false
    }

    @Test func m1_theMoodLightHoldsTheAppsShowsCardsOverItAndGivesBackTheHomeItCovered() throws {
        let scratch = Scratch()
        let frames = scratch.path + "/frames"
        let config = scratch.file("nook.toml", "[apps]\nduration_ms = 1000\n[home]\ncontent = \"text\"\ntext = \"Kitchen\"\n")
        let daemon = try DaemonProcess(scratch: scratch, arguments: ["--config", config, "--journal", "none", "--frames", frames, "--size", "320x170"])
        let socket = daemon.socket
        #expect(try nookctl(["app", "set", "weather", "--text", "21 °C"], socket: socket).status == 0)
        try eventually("the app takes its turn") { try status(daemon).apps?.showing == "weather" }

        let lit = try nookctl(["home", "light", "--color", "#336699"], socket: socket)
        #expect(lit.status == 0 && lit.output == "home: light #336699\n", "\(lit)")
        try eventually("the glass lit, the app gone") { try glassIs(0xFF33_6699, frames) && status(daemon).apps?.showing == nil }
        #expect(try status(daemon).home == "light #336699" && status(daemon).apps?.rotation == .moodLight)
        #expect(try nookctl(["status"], socket: socket).output.contains("apps: 1, none on the glass, waiting while the mood light is on"))
        let moved = try nookctl(["app", "switch", "weather"], socket: socket)
        #expect(moved.output.contains("showing app weather once the mood light is off"), "\(moved)")

        // A card still slides in over it, and the light comes back after it.
        #expect(try nookctl(["enqueue", "--title", "Doorbell", "--dwell", "0.5", "--wait"], socket: socket).status == 0)
        try eventually("the light again after the card") { try glassIs(0xFF33_6699, frames) && daemon.activities().first?.current == nil }
        #expect((try status(daemon).apps?.showing) == nil, "the apps still wait")

        // A reload's home goes under the light; the light stays.
        _ = scratch.file("nook.toml", "[apps]\nduration_ms = 1000\n[home]\ncontent = \"blank\"\n")
        kill(daemon.process.processIdentifier, SIGHUP)
        try eventually("the reload done") { daemon.log.contains("SIGHUP: reloaded") }
        #expect(try status(daemon).home == "light #336699" && glassIs(0xFF33_6699, frames))

        // nook-lcdproc's screens (sent every second for a clock widget) go under it too.
        let glance = try GlanceAnswer(json: daemon.request(.glance(NookGlance(columns: 20, rows: 4, lines: ["Load 0.42", "", "", ""]))))
        #expect(try glance.home == "light #336699" && status(daemon).home == "light #336699" && glassIs(0xFF33_6699, frames))

        let off = try nookctl(["home", "light-off"], socket: socket)
        #expect(off.status == 0 && off.output == "home: glance 20x4\n", "the last home given meanwhile comes back: \(off)")
        try eventually("the rotation turns again") { try status(daemon).apps?.showing == "weather" }
        #expect(try nookctl(["home", "light-off"], socket: socket).output == "home: glance 20x4\n", "with no light on, nothing changes")
        #expect(try GlanceAnswer(json: daemon.request(.glance(nil))).home == "blank", "the bridge gone, the reload's home")

        // `home` itself replaces a light; nookctl refuses what it cannot send.
        #expect(try nookctl(["home", "light", "--color", "ff0000"], socket: socket).status == 0)
        #expect(try nookctl(["home", "clock"], socket: socket).output == "home: clock\n")
        #expect(try status(daemon).apps?.rotation != .moodLight)
        for (arguments, words) in [(["home", "light"], "'light' needs --color #rrggbb"), (["home", "light", "--color", "#12345g"], "got '#12345g'"),
                                   (["home", "clock", "--color", "#ffffff"], "only 'light' takes --color")] {
            let refused = try nookctl(arguments, socket: socket)
            #expect(refused.status != 0 && refused.error.contains(words), "\(arguments): \(refused)")
        }
        #expect(daemon.stop().status == 0)
    }

    /// Changes of the home content asked at once are made one after another: a `light-off` beside
    /// a `light` never leaves a light under a light, which no `light-off` could end, nor the apps
    /// waiting under a glass that is no light. A black light is off.
    @Test func m1_aLightAndALightOffAtOnceLeaveNoLightUnderALight() throws {
        let daemon = try DaemonProcess(arguments: ["--journal", "none"])
        #expect(try nookctl(["app", "set", "weather", "--text", "21 °C"], socket: daemon.socket).status == 0)
        let socket = daemon.socket
        @Sendable func home(_ setting: HomeSetting) throws -> String {
            try HomeAnswer(json: NookClient(path: socket).request(Request(id: .number(1), operation: .home(setting)))).home
        }
        for round in 0..<40 {
            _ = try home(.clock)
            _ = try home(.light(0x112233))
            let asked: [HomeSetting] = round % 2 == 0 ? [.lightOff, .light(0x445566)] : [.light(0x445566), .lightOff]
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                do { _ = try home(asked[index]) } catch { failures.withLock { $0.append("\(error)") } }
            }
            #expect(failures.withLock { $0 }.isEmpty)
            let off = try home(.lightOff)
            #expect(off == "clock", "round \(round): \(off)")
            #expect(try status(daemon).apps?.rotation != .moodLight, "round \(round)")
            guard off == "clock" else { break }
        }
        #expect(try home(.light(0)) == "clock" && status(daemon).home == "clock", "a black lamp is no lamp")
        #expect(daemon.stop().status == 0)
    }
}
