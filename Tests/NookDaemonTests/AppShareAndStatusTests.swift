import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// Each sender's share of the apps (`apps.per_sender`, U3 with A1) and `status`'s apps member
/// (A2), through the real nookd and nookctl on the mock display.
@Suite("U3 A1 a sender's share of the apps, and the apps in status", .serialized, .ownThreads)
struct AppShareAndStatusTests {
    /// This test's uid is nookd's own (an admin): it speaks for senders the way nook-http does,
    /// stating their names as a relay (`daemon.relay_users`), each with a share of its own.
    func start(_ scratch: Scratch, perSender: Int) throws -> DaemonProcess {
        let config = scratch.file("nook.toml", """
            [daemon]
            relay_users = ["\(getuid())"]
            [queue]
            poll_interval_ms = 50
            [apps]
            duration_ms = 3600000
            per_sender = \(perSender)

            """)
        return try DaemonProcess(scratch: scratch, arguments: ["--config", config, "--journal", "none"])
    }

    func set(_ name: String, as sender: String?, on client: NookClient) throws -> Result<JSONValue, ProtocolError> {
        // Matched as a result, not caught: `catch ClientError.daemon(let …)` of the request's typed
        // error crashes Swift 6.0.3's SIL ownership verifier ("Found outside of lifetime use").
        let request = Request(id: .number(1), operation: .appSet(NookApp(name: name, content: .text(name))), sender: sender)
        switch Result<JSONValue, ClientError>(catching: { () throws(ClientError) in try client.request(request) }) {
        case .success(let answer): return .success(answer)
        case .failure(.daemon(let refusal)): return .failure(refusal)
        case .failure(let other): throw other
        }
    }

    /// `app-set-all` (an AWTRIX array) refuses the whole array naming the member at fault as
    /// `apps[N].FIELD`, alone or among others, and sets none of it; `app-set` names `app.FIELD`.
    @Test func a3_appSetAllNamesTheMemberAtFaultAndSetsNoneOfTheArray() throws {
        let scratch = Scratch()
        let daemon = try start(scratch, perSender: 0)
        let client = try NookClient(path: daemon.socket)
        let good = NookApp(name: "good", content: .text("fine"))
        let bad = NookApp(name: "bad", content: .text("x"), icon: scratch.path + "/no-such-icon.png")
        for (operation, field, unset) in [(NookOperation.appSetAll([bad]), "apps[0].icon", "it was not set"),
                                          (.appSetAll([good, bad]), "apps[1].icon", "none of the 2 apps was set"),
                                          (.appSet(bad), "app.icon", "")] {
            switch Result<JSONValue, ClientError>(catching: { () throws(ClientError) in try client.request(Request(id: .number(1), operation: operation)) }) {
            case .success(let answer): Issue.record("\(operation.name.rawValue) with a missing icon was taken: \(answer)")
            case .failure(.daemon(let refusal)):
                #expect(refusal.field == field && (unset.isEmpty || refusal.message.contains(unset)), "\(refusal)")
            case .failure(let other): throw other
            }
        }
        #expect(try AppListAnswer(json: client.request(Request(id: .number(1), operation: .appList))).apps.isEmpty)
        let answer = try AppSetAllAnswer(json: client.request(Request(id: .number(1), operation: .appSetAll([good, NookApp(name: "also", content: .text("y"))]))))
        #expect(answer.apps.map(\.name) == ["good", "also"] && answer.apps.allSatisfy { !$0.replaced })
    }

    @Test func u3_a1_aSenderBeyondItsShareOfTheAppsIsRefusedNamingTheLimitAndTheOthersStillSetTheirs() throws {
        let scratch = Scratch()
        let daemon = try start(scratch, perSender: 2)
        let client = try daemon.client()
        for name in ["alice 1", "alice 2"] { #expect(try set(name, as: "alice", on: client).get()["replaced"] == .bool(false)) }
        guard case .failure(let refusal) = try set("alice 3", as: "alice", on: client) else {
            Issue.record("alice's third app was taken beyond apps.per_sender = 2")
            return
        }
        #expect(refusal.code == .queueFull && refusal.field == "app.name", "\(refusal)")
        #expect(refusal.message.contains("sender \"alice\" (relayed by uid \(getuid())) already keeps 2 apps, the most apps.per_sender allows (2)"),
                "\(refusal.message)")
        // Her own apps can still be set again (an update takes no new slot), and another sender has a share of its own.
        #expect(try set("alice 1", as: "alice", on: client).get()["replaced"] == .bool(true))
        for name in ["bob 1", "bob 2"] { _ = try set(name, as: "bob", on: client).get() }
        // nookd's own user (an admin) stating no sender has no share: only the 64 bound holds.
        for index in 1...3 { _ = try set("admin \(index)", as: nil, on: client).get() }
        // A removal frees a slot of the share.
        _ = try client.request(Request(id: .number(2), operation: .appRemove("alice 2"), sender: "alice"))
        _ = try set("alice 3", as: "alice", on: client).get()
        let names = try client.request(Request(id: .number(3), operation: .appList), as: AppListAnswer.self).0.apps.map(\.app.name)
        #expect(Set(names) == ["alice 1", "alice 3", "bob 1", "bob 2", "admin 1", "admin 2", "admin 3"], "\(names)")
        #expect(daemon.stop().status == 0)
    }

    @Test func u3_a1_aReloadChangesTheShare() throws {
        let scratch = Scratch()
        let daemon = try start(scratch, perSender: 1)
        let client = try daemon.client()
        _ = try set("one", as: "carol", on: client).get()
        guard case .failure = try set("two", as: "carol", on: client) else {
            Issue.record("carol's second app was taken beyond apps.per_sender = 1")
            return
        }
        _ = scratch.file("nook.toml", "[daemon]\nrelay_users = [\"\(getuid())\"]\n[queue]\npoll_interval_ms = 50\n[apps]\nduration_ms = 3600000\nper_sender = 0\n")
        kill(daemon.process.processIdentifier, SIGHUP)
        try eventually("the reload's share (0: none) in force", timeout: 30) { (try? set("two", as: "carol", on: client).get()) != nil }
        #expect(daemon.stop().status == 0)
    }

    func status(_ daemon: DaemonProcess) throws -> StatusAnswer {
        try daemon.client().request(Request(id: .number(1), operation: .status), as: StatusAnswer.self).0
    }

    @Test func a2_statusNamesTheAppOnTheGlassAndWhatHoldsTheRotation() throws {
        let scratch = Scratch()
        let daemon = try start(scratch, perSender: 16)
        #expect(try status(daemon).apps == StatusAnswer.Apps(count: 0, showing: nil, rotation: .noApps))
        #expect(try nookctl(["app", "set", "weather", "--text", "21 °C"], socket: daemon.socket).status == 0)
        #expect(try nookctl(["app", "switch", "weather"], socket: daemon.socket).status == 0)
        try eventually("weather on the glass in status", timeout: 30) {
            try status(daemon).apps == StatusAnswer.Apps(count: 1, showing: "weather", rotation: .turning)
        }
        let shown = try nookctl(["status"], socket: daemon.socket)
        #expect(shown.output.contains("apps: 1, showing \"weather\""), "\(shown)")
        // A card goes first: the rotation waits for it, and nothing of the apps is on the glass.
        let card = try daemon.request(.enqueue(NookActivity(title: "A card", presentation: .blocker(timeout: nil)), module: nil, wait: false))
        try eventually("the rotation held by the card", timeout: 30) {
            try status(daemon).apps == StatusAnswer.Apps(count: 1, showing: nil, rotation: .card)
        }
        #expect(try nookctl(["status"], socket: daemon.socket).output.contains("apps: 1, none on the glass, held by a card"))
        let id = try #require(card["id"]?.text.flatMap(NookActivityID.init))
        _ = try daemon.request(.dismiss(id))
        try eventually("weather back after the card", timeout: 30) { try status(daemon).apps?.showing == "weather" }
        #expect(daemon.stop().status == 0)
    }
}
