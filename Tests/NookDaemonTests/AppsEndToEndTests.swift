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

    /// nookd keeps 64 apps: the 65th is refused as a full queue, its message saying why once
    /// (the field is named as the field), and an app kept can still be updated.
    @Test func a1_theSixtyFifthAppIsRefusedSayingWhyOnce() throws {
        let scratch = Scratch()
        let daemon = try start(scratch)
        let client = try daemon.client()
        let set = { (name: String) in Request(id: .number(1), operation: .appSet(NookApp(name: name, content: .text(name)))) }
        for index in 1...NookApp.Limits.count { _ = try client.request(set("app\(index)")) }
        // Matched as a result, not caught: `catch ClientError.daemon(let …)` of the request's typed
        // error crashed Swift 6.0.3's SIL ownership verifier ("Found outside of lifetime use").
        let attempt = Result<JSONValue, ClientError> { () throws(ClientError) in try client.request(set("one too many")) }
        var refusal: ProtocolError?
        if case .failure(.daemon(let problem)) = attempt { refusal = problem }
        #expect(refusal != nil, "not refused: \(attempt)")
        #expect(refusal?.code == .queueFull && refusal?.field == "app.name", "\(String(describing: refusal))")
        #expect(refusal?.message.hasPrefix("nookd keeps at most 64 apps") == true, "\(String(describing: refusal?.message))")
        _ = try client.request(set("app1"))
        #expect(try apps(daemon).count == NookApp.Limits.count)
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
        try eventually("the recall taken", timeout: 30) { daemon.log.contains("recall: long press on an idle display") }
        // The recall ran to its end: its card ended, after its stay on the glass (nothing here
        // ends it sooner), and the glass holds one card at a time, so the app gave way. (Polled
        // by nookctl, the app's few seconds off the glass under AddressSanitizer once passed
        // between two polls.)
        try eventually("the recall over", timeout: 30) { daemon.log.contains("recall: done") }
        try eventually("app a back after it", timeout: 30) { try apps(daemon).first?.showing == true }
        #expect(daemon.stop().status == 0)
    }
}
