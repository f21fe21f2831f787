import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// A1–A4 through the real nookd and nookctl on the mock display: apps set, updated, listed,
/// shown and removed; kept across a restart; the rotation drawing them between cards; the
/// dismiss press moving it on; and a display without apps drawing nothing new.
@Suite("A1 A2 A4 end to end: apps through nookd and nookctl", .serialized, .ownThreads)
struct AppsEndToEndTests {
    func start(_ scratch: Scratch, durationMs: Int = 7000) throws -> DaemonProcess {
        let config = scratch.file("nook.toml", "[debug]\npress_inputs = true\n[queue]\npoll_interval_ms = 50\n[apps]\nduration_ms = \(durationMs)\n")
        return try DaemonProcess(scratch: scratch, arguments: ["--config", config, "--journal", scratch.path + "/journal"])
    }

    func apps(_ daemon: DaemonProcess) throws -> [AppState] {
        let listed = try nookctl(["app", "list", "--json"], socket: daemon.socket)
        #expect(listed.status == 0, "\(listed)")
        return try AppListAnswer(json: JSONValue.parse(Array(listed.output.utf8))).apps
    }

    /// The glass's frame generation: it counts every frame presented.
    func generation(_ daemon: DaemonProcess) throws -> Int {
        try daemon.client().request(Request(id: .number(1), operation: .frame(after: nil)), as: FrameAnswer.self).0.generation
    }

    @Test func a1_nookctlSetsUpdatesListsShowsAndRemovesAnApp() throws {
        let scratch = Scratch()
        let daemon = try start(scratch)
        let socket = daemon.socket
        let added = try nookctl(["app", "set", "weather", "--text", "21 °C", "--icon", "cloud", "--tint", "orange", "--chart", "1,4,9",
                                 "--line", "--lifetime", "10m", "--stale", "--duration", "5s", "--pos", "2"], socket: socket)
        #expect(added.status == 0 && added.output.contains("added app weather"), "\(added)")
        #expect(try nookctl(["app", "set", "bus", "--text", "Bus 12", "--pos", "1"], socket: socket).status == 0)
        let updated = try nookctl(["app", "set", "weather", "--text", "22 °C", "--pos", "2"], socket: socket)
        #expect(updated.status == 0 && updated.output.contains("updated app weather"), "\(updated)")
        let listed = try apps(daemon)
        #expect(listed.map(\.app.name) == ["bus", "weather"], "position order")
        #expect(listed.last?.app.content == .text("22 °C"))
        #expect(listed.last?.app.chart == nil, "an update replaces the whole app")
        #expect(listed.first?.app.sender?.uid == getuid())
        let shown = try nookctl(["app", "show", "bus"], socket: socket)
        #expect(shown.status == 0 && shown.output.contains("text: Bus 12") && shown.output.contains("pos: 1"), "\(shown)")
        let human = try nookctl(["app", "list"], socket: socket)
        #expect(human.output.contains("bus  \"Bus 12\""), "\(human)")

        // Bad input is refused naming what was wrong, before and after the socket.
        let tooMany = try nookctl(["app", "set", "x", "--text", "t", "--chart", Array(repeating: "1", count: 17).joined(separator: ",")], socket: socket)
        #expect(tooMany.status == 64 && tooMany.error.contains("--chart must have from 1 to 16 values, got 17"), "\(tooMany)")
        let badTint = try nookctl(["app", "set", "x", "--text", "t", "--tint", "mauve"], socket: socket)
        #expect(badTint.status == 64 && badTint.error.contains("--tint"), "\(badTint)")
        let client = try daemon.client()
        try client.send(Request(id: .number(1), operation: .appSet(NookApp(name: "x", content: .text("t"), progress: 2))).encoded())
        let raw = try JSONValue.parse(try #require(try client.readLine()))
        #expect(raw["ok"] == .bool(false) && raw["error"]?["field"] == .string("app.progress"), "\(raw)")
        let missing = try nookctl(["app", "rm", "nope"], socket: socket)
        #expect(missing.status == 4 && missing.error.contains("no app named 'nope'"), "\(missing)")

        #expect(try nookctl(["app", "rm", "bus"], socket: socket).status == 0)
        #expect(try apps(daemon).map(\.app.name) == ["weather"])
        #expect(daemon.stop().status == 0)
    }

    @Test func a1_appsAreKeptAcrossARestartAndAnOlderJournalStillReads() throws {
        let scratch = Scratch()
        var daemon = try start(scratch)
        #expect(try nookctl(["app", "set", "weather", "--text", "21 °C", "--lifetime", "2h", "--stale"], socket: daemon.socket).status == 0)
        #expect(try nookctl(["app", "set", "bus", "--text", "Bus 12", "--pos", "1"], socket: daemon.socket).status == 0)
        #expect(try nookctl(["app", "set", "gone", "--text", "removed"], socket: daemon.socket).status == 0)
        #expect(try nookctl(["app", "rm", "gone"], socket: daemon.socket).status == 0)
        try daemon.request(.enqueue(NookActivity(title: "Pending across the restart", presentation: .blocker(timeout: nil)), module: nil, wait: false))
        daemon.crash()
        daemon = try start(scratch)
        let restored = try apps(daemon)
        #expect(restored.map(\.app.name) == ["bus", "weather"], "\(daemon.log)")
        #expect(restored.last?.app.lifetime == .seconds(7200) && restored.last?.app.lifetimeMode == .stale)
        #expect(restored.last?.app.sender?.uid == getuid(), "still its sender's")
        let listed = try daemon.request(.list(module: nil))
        #expect("\(listed)".contains("Pending across the restart"), "the cards come back beside the apps")
        #expect(daemon.stop().status == 0)

        // A journal of a nookd before apps: card records only. It reads as before.
        let older = Scratch()
        let card = NookActivity(title: "From an older nookd")
        let record = CRC32.line(JSONValue.object([("seq", .number(1)), ("module", .string("default")), ("at", .number(Date().timeIntervalSince1970)),
                                                  ("activity", ActivityPayload.encode(card))]))
        _ = FileManager.default.createFile(atPath: older.path + "/journal", contents: Data(record))
        daemon = try start(older)
        #expect(try apps(daemon).isEmpty)
        #expect(!daemon.log.contains("corrupt"), "\(daemon.log)")
        #expect("\(try daemon.request(.list(module: nil)))".contains("From an older nookd"), "\(daemon.log)")
        #expect(daemon.stop().status == 0)
    }

    @Test func a2_a4_theRotationDrawsAppsBetweenCardsAndDismissMovesItOn() throws {
        let scratch = Scratch()
        let daemon = try start(scratch, durationMs: 60_000)
        let socket = daemon.socket
        // No apps: the glass draws nothing new (the clock's minute aside, which nothing here waits for).
        try eventually("the first frame", timeout: 30) { try generation(daemon) > 0 }
        let idle = try generation(daemon)
        #expect(try nookctl(["app", "next"], socket: socket).status == 4, "no apps to move between")
        usleep(useconds_t(TestBounds.seconds(1) * 1_000_000))
        let stillIdle = try generation(daemon)
        #expect(stillIdle - idle <= 2, "no apps, no frames (a minute's clock at most): \(idle) → \(stillIdle)")

        #expect(try nookctl(["app", "set", "a", "--text", "App A", "--pos", "1", "--action"], socket: socket).status == 0)
        #expect(try nookctl(["app", "set", "b", "--text", "App B", "--pos", "2"], socket: socket).status == 0)
        // Each turn is a minute long here: only the presses move it.
        #expect(try apps(daemon).allSatisfy { !$0.showing }, "the home content's turn first")
        try daemon.request(.press(.dismiss))
        try eventually("app a on the glass", timeout: 30) { try apps(daemon).first { $0.showing }?.app.name == "a" }
        let status = try daemon.request(.status)
        #expect(status["modules"]?.items.first?["current"] == .null, "an app is not a module's card")

        // Open on an app with an action: its sender hears `invoked`, with the app's key.
        let watcher = try daemon.watcher()
        try daemon.request(.press(.open))
        var heard = false
        while !heard, let line = try watcher.readLine() {
            let text = String(decoding: line, as: UTF8.self)
            heard = text.contains("\"invoked\"") && text.contains("\"app\":\"a\"")
        }
        #expect(heard)

        // A card goes first; the rotation shows its turn again after it.
        try daemon.request(.enqueue(NookActivity(title: "Doorbell", dwell: .milliseconds(300)), module: nil, wait: false))
        try eventually("the app's card off the glass for the card", timeout: 30) { try apps(daemon).allSatisfy { !$0.showing } }
        try eventually("app a back after the card", timeout: 30) { try apps(daemon).first { $0.showing }?.app.name == "a" }

        try daemon.request(.press(.dismiss))
        try eventually("dismiss moves on to b", timeout: 30) { try apps(daemon).first { $0.showing }?.app.name == "b" }
        let switched = try nookctl(["app", "switch", "a"], socket: socket)
        #expect(switched.status == 0 && switched.output.contains("showing app a"), "\(switched)")
        try eventually("switched to a", timeout: 30) { try apps(daemon).first { $0.showing }?.app.name == "a" }
        #expect(try nookctl(["app", "previous"], socket: socket).output.contains("showing the home content"))

        // Removing the apps leaves the display as it was: no more frames.
        #expect(try nookctl(["app", "rm", "a"], socket: socket).status == 0)
        #expect(try nookctl(["app", "rm", "b"], socket: socket).status == 0)
        try eventually("nothing on the glass", timeout: 30) { try apps(daemon).isEmpty }
        usleep(useconds_t(TestBounds.seconds(0.5) * 1_000_000))
        let after = try generation(daemon)
        usleep(useconds_t(TestBounds.seconds(1) * 1_000_000))
        #expect(try generation(daemon) - after <= 1, "no apps again, no frames again")
        #expect(daemon.stop().status == 0)
    }

    /// An app card stays on the glass until the rotation moves on, yet a stop does not wait for
    /// it: the rotation stops turning and its queue quiesces with the others (N2).
    @Test func a2_n2_aStopDoesNotWaitForTheAppOnTheGlass() throws {
        let scratch = Scratch()
        let daemon = try start(scratch, durationMs: 3_600_000)
        #expect(try nookctl(["app", "set", "a", "--text", "App A"], socket: daemon.socket).status == 0)
        #expect(try nookctl(["app", "next"], socket: daemon.socket).status == 0)
        try eventually("app a on the glass", timeout: 30) { try apps(daemon).first?.showing == true }
        let (status, seconds) = daemon.stop()
        #expect(status == 0)
        #expect(seconds < 300, "took \(seconds) s: it waited for the app's hour-long turn")
        #expect(!daemon.log.contains("did not quiesce"), "\(daemon.log)")
    }

    /// A recall (U5) is asked for at the device: the app on the glass gives way to it as to a
    /// card, and comes back after it.
    @Test func a2_u5_aRecallGoesBeforeTheAppsAndTheRotationResumesAfterIt() throws {
        let scratch = Scratch()
        let daemon = try start(scratch, durationMs: 3_600_000)
        #expect(try nookctl(["app", "set", "a", "--text", "App A"], socket: daemon.socket).status == 0)
        #expect(try nookctl(["app", "next"], socket: daemon.socket).status == 0)
        try eventually("app a on the glass", timeout: 30) { try apps(daemon).first?.showing == true }
        try daemon.request(.press(.open, holdMs: 900))
        try eventually("the app off the glass for the recall", timeout: 30) { try apps(daemon).first?.showing == false }
        try eventually("the recall over", timeout: 30) { daemon.log.contains("recall: done") }
        try eventually("app a back after it", timeout: 30) { try apps(daemon).first?.showing == true }
        #expect(daemon.stop().status == 0)
    }
}
