import Foundation
import NookActivities
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// A3 over nook-http's native API, with U3: apps set, listed, shown, removed and the rotation
/// turned through the built nook-http and a real nookd, with curl and three tokens. A publish
/// token reaches only the apps it set, as it reaches only its cards.
@Suite("A3 apps over the native API", .serialized, .ownThreads)
struct NativeAPIAppsTests {
    let alice = "nook_alice-app-token", bob = "nook_bob-app-token", viewer = "nook_viewer-app-token", owner = "nook_owner-app-token"

    func service(nookdConfig: String? = nil, http: String = "") throws -> HTTPService {
        let tokens = NSTemporaryDirectory() + "nook-http-app-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try """
        alice publish sha256:\(sha256Hex(alice))
        bob publish sha256:\(sha256Hex(bob))
        viewer read sha256:\(sha256Hex(viewer))
        owner admin sha256:\(sha256Hex(owner))

        """.write(toFile: tokens, atomically: true, encoding: .utf8)
        chmod(tokens, 0o600)
        let service = try HTTPService(config: "[http]\ntokens = \"\(tokens)\"\nrate_limit_per_s = 0\n" + http, nookdConfig: nookdConfig)
        try? FileManager.default.removeItem(atPath: tokens)
        return service
    }

    /// curl as `token`: the status and the body's JSON (a string when it is not JSON).
    func curl(_ token: String, _ method: String, _ url: String, _ body: String? = nil) throws -> (status: Int, json: JSONValue) {
        try curlJSON(as: token, method, url, body)
    }

    /// The apps as nookd itself lists them.
    func apps(_ service: HTTPService) throws -> [AppState] {
        try NookClient(path: service.socket).request(Request(id: .number(1), operation: .appList), as: AppListAnswer.self).0.apps
    }

    @Test func a3_u3_appsAreSetListedShownTurnedAndRemovedAndATokenReachesOnlyItsOwn() throws {
        let service = try service(nookdConfig: "[apps]\nduration_ms = 3600000\n")
        let apps = service.url + "/api/v1/apps/"
        let created = try curl(alice, "PUT", apps + "weather", #"{"text":"21 °C","tint":"orange","chart":[1,4,9],"chartStyle":"line","pos":2}"#)
        #expect(created.status == 201 && created.json["replaced"] == .bool(false), "\(created)")
        // A name with a space and an accent, percent-encoded in the path.
        #expect(try curl(alice, "PUT", apps + "n%C3%A4chster%20Bus", ##"{"text":[{"text":"Bus 12 ","tint":"#FF0000"},{"text":"in 4 min"}],"pos":1}"##).status == 201)
        let updated = try curl(alice, "PUT", apps + "weather", #"{"name":"weather","text":"22 °C","pos":2}"#)
        #expect(updated.status == 200 && updated.json["replaced"] == .bool(true), "\(updated)")

        // Anyone with read sees them, in the rotation's order, with the token as their sender.
        let listed = try curl(viewer, "GET", service.url + "/api/v1/apps")
        #expect(listed.status == 200, "\(listed)")
        let names = listed.json["apps"]?.items.compactMap { $0["app"]?["name"]?.text }
        #expect(names == ["nächster Bus", "weather"], "\(listed)")
        #expect(listed.json["apps"]?.items.last?["sender"]?["name"]?.text == "alice", "\(listed)")
        let one = try curl(viewer, "GET", apps + "weather")
        #expect(one.status == 200 && one.json["app"]?["text"]?.text == "22 °C" && one.json["setAt"]?.numberValue != nil, "\(one)")
        #expect(try self.apps(service).first { $0.app.name == "nächster Bus" }?.app.content
                == .fragments([NookApp.Fragment("Bus 12 ", tint: NookTint(parsing: "#FF0000")), NookApp.Fragment("in 4 min")]))

        // Scopes: read cannot set, remove or turn the rotation.
        #expect(try curl(viewer, "PUT", apps + "mine", #"{"text":"x"}"#).status == 403)
        #expect(try curl(viewer, "POST", service.url + "/api/v1/rotation/next").status == 403)

        // U3: bob cannot replace or remove alice's app; it stays as she set it.
        let taken = try curl(bob, "PUT", apps + "weather", #"{"text":"Bob was here"}"#)
        #expect(taken.status == 403 && taken.json["error"]?["field"]?.text == "name", "\(taken)")
        #expect(taken.json["error"]?["message"]?.text?.contains("was not set by token 'bob'") == true, "\(taken)")
        #expect(taken.json["error"]?["message"]?.text?.contains("alice") == false, "another token's name stays out of the answer: \(taken)")
        #expect(try curl(bob, "DELETE", apps + "weather").status == 403)
        #expect(try self.apps(service).first { $0.app.name == "weather" }?.app.content == .text("22 °C"))

        // Bad input is refused naming the field, in nookd's words, before nookd.
        let bad = try curl(alice, "PUT", apps + "x", #"{"text":"t","progress":2}"#)
        #expect(bad.status == 422 && bad.json["error"]?["field"]?.text == "progress", "\(bad)")
        let unknown = try curl(alice, "PUT", apps + "x", #"{"text":"t","colour":"red"}"#)
        #expect(unknown.status == 422 && unknown.json["error"]?["field"]?.text == "colour", "\(unknown)")
        let renamed = try curl(alice, "PUT", apps + "x", #"{"name":"y","text":"t"}"#)
        #expect(renamed.status == 422 && renamed.json["error"]?["field"]?.text == "name", "\(renamed)")
        let slash = try curl(alice, "PUT", apps + "a%2Fb", #"{"text":"t"}"#)
        #expect(slash.status == 422 && slash.json["error"]?["field"]?.text == "name", "\(slash)")

        // The rotation: next from home is the first app, switch to one by name, previous back.
        let next = try curl(bob, "POST", service.url + "/api/v1/rotation/next")
        #expect(next.status == 200 && next.json["showing"]?.text == "nächster Bus", "\(next)")
        let switched = try curl(bob, "POST", service.url + "/api/v1/rotation/switch", #"{"name":"weather"}"#)
        #expect(switched.status == 200 && switched.json["showing"]?.text == "weather", "\(switched)")
        let previous = try curl(bob, "POST", service.url + "/api/v1/rotation/previous")
        #expect(previous.status == 200 && previous.json["showing"]?.text == "nächster Bus", "\(previous)")
        #expect(try curl(bob, "POST", service.url + "/api/v1/rotation/switch", #"{"name":"nope"}"#).status == 404)

        // Status names them.
        let status = try curl(viewer, "GET", service.url + "/api/v1/status")
        #expect(status.json["apps"]?["count"] == .number(2), "\(status)")

        // Removed by its token; an admin token removes any.
        let removed = try curl(alice, "DELETE", apps + "weather")
        #expect(removed.status == 200 && removed.json["removed"]?.text == "weather", "\(removed)")
        #expect(try curl(viewer, "GET", apps + "weather").status == 404)
        #expect(try curl(owner, "DELETE", apps + "n%C3%A4chster%20Bus").status == 200)
        #expect(try self.apps(service).isEmpty)
        #expect(try curl(bob, "POST", service.url + "/api/v1/rotation/next").status == 404, "no apps to move between")
    }

    /// `apps.per_sender`: a token that keeps its share of apps is refused a new one, naming the
    /// limit, and another token still sets its own (one sender cannot lock the others out).
    @Test func u3_a3_aTokenThatFillsItsShareOfTheAppsLeavesRoomForTheOthers() throws {
        // nook-http runs as this test's uid: nookd is told it is the relay.
        let service = try service(nookdConfig: "[daemon]\nrelay_users = [\"\(getuid())\"]\n[apps]\nper_sender = 2\n")
        let apps = service.url + "/api/v1/apps/"
        for number in 1...2 { #expect(try curl(alice, "PUT", apps + "alice\(number)", #"{"text":"A"}"#).status == 201) }
        let refused = try curl(alice, "PUT", apps + "alice3", #"{"text":"A"}"#)
        #expect(refused.status == 429 && refused.json["error"]?["code"]?.text == "queue_full", "\(refused)")
        #expect(refused.json["error"]?["message"]?.text?.contains("sender \"alice\" (relayed by uid \(getuid())) already keeps 2 apps, the most apps.per_sender allows (2)") == true,
                "\(refused)")
        #expect(try curl(alice, "PUT", apps + "alice1", #"{"text":"A again"}"#).status == 200, "her own app is still set again")
        #expect(try curl(bob, "PUT", apps + "bob1", #"{"text":"B"}"#).status == 201, "bob's share is his own")
        #expect(Set(try self.apps(service).map(\.app.name)) == ["alice1", "alice2", "bob1"])
    }
}
