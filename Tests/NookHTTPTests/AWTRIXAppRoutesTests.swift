import Foundation
import NookActivities
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// A3, A6: AWTRIX 3's custom-app routes through the built nook-http and a real nookd, with
/// curl sending the payloads of AWTRIX's API documentation, and the PyPI package
/// `awtrix-light-client` driving nook-http as it drives a clock. What reached nookd is read
/// from nookd itself (`app-list`, `app-show`).
@Suite("A3 AWTRIX's custom apps over HTTP", .serialized, .ownThreads)
struct AWTRIXAppRoutesTests {
    let alice = "nook_alice-awtrix-token", bob = "nook_bob-awtrix-token", viewer = "nook_viewer-awtrix-token"

    func service(nookdConfig: String? = nil) throws -> HTTPService {
        let tokens = NSTemporaryDirectory() + "nook-http-awtrix-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try """
        alice read,publish sha256:\(sha256Hex(alice))
        bob publish sha256:\(sha256Hex(bob))
        viewer read sha256:\(sha256Hex(viewer))

        """.write(toFile: tokens, atomically: true, encoding: .utf8)
        chmod(tokens, 0o600)
        defer { try? FileManager.default.removeItem(atPath: tokens) }
        return try HTTPService(config: "[http]\ntokens = \"\(tokens)\"\nrate_limit_per_s = 0\n", nookdConfig: nookdConfig)
    }

    /// curl as `token`: the status and the body as text.
    func curl(_ token: String, _ method: String, _ url: String, _ body: String? = nil) throws -> (status: Int, text: String) {
        try NookHTTPTests.curl(as: token, method, url, body)
    }

    func apps(_ service: HTTPService) throws -> [AppState] {
        try AppListAnswer(json: NookClient(path: service.socket).request(Request(id: .number(1), operation: .appList))).apps
    }

    func app(_ service: HTTPService, _ name: String) throws -> AppState? {
        try apps(service).first { $0.app.name == name }
    }

    @Test func a3_curlWithAWTRIXsDocumentedAppsSetsThemNamingWhatNookDoesNotDraw() throws {
        let service = try service()
        let custom = service.url + "/api/custom?name="
        // AWTRIX's own example: rainbow text for 10 s.
        let hello = try curl(alice, "POST", custom + "hello", #"{"text": "Hello, AWTRIX 3!", "rainbow": true, "duration": 10}"#)
        #expect(hello.status == 200 && hello.text == "OK\nignored (Nook does not draw them): rainbow", "\(hello)")
        let set = try #require(try app(service, "hello"))
        #expect(set.app.content == .text("Hello, AWTRIX 3!") && set.app.duration == .seconds(10))
        #expect(set.app.sender?.name == "alice" && set.app.sender?.relayed == true)

        // Its coloured fragments, and `repeat` left out.
        let fragments = try curl(alice, "POST", custom + "colours",
                                 #"{"text": [{"t": "Hello, ", "c": "FF0000"}, {"t": "world!", "c": "00FF00"}], "repeat": 2}"#)
        #expect(fragments.status == 200 && fragments.text.contains("ignored (Nook does not draw them): repeat"), "\(fragments)")
        #expect(try app(service, "colours")?.app.content == .fragments([NookApp.Fragment("Hello, ", tint: .rgb(red: 255, green: 0, blue: 0)),
                                                                         NookApp.Fragment("world!", tint: .rgb(red: 0, green: 255, blue: 0))]))

        // Every field Nook draws, AWTRIX's units converted; a field AWTRIX does not know is named.
        let full = try curl(alice, "POST", custom + "power", """
            {"text": "1.2 kW", "icon": "bolt", "color": [255, 136, 0], "progress": 40, "bar": [3, 4, 9, 7],
             "duration": 600, "pos": 1, "lifetime": 120, "lifetimeMode": 1, "colour": "red", "effect": "Fade", "save": true}
            """)
        #expect(full.status == 200, "\(full)")
        #expect(full.text.contains("ignored (Nook does not draw them): effect, save") && full.text.contains("unknown fields (not AWTRIX's), ignored: colour"),
                "\(full.text)")
        let power = try #require(try app(service, "power")).app
        #expect(power.icon == "bolt" && power.tint == .rgb(red: 255, green: 136, blue: 0) && power.progress == 0.4)
        #expect(power.chart == NookApp.Chart(.bar, [3, 4, 9, 7]) && power.duration == .seconds(600) && power.position == 1)
        #expect(power.lifetime == .seconds(120) && power.lifetimeMode == .stale)
        let line = try curl(alice, "POST", custom + "line", ##"{"text": "trend", "line": [1, 5, 2], "color": "#00FF00", "icon": "2355"}"##)
        #expect(line.status == 200 && line.text.contains("icon '2355' is not a built-in icon and no 2355.png, 2355.gif in ") && line.text.contains(": the app shows no icon"), "\(line)")
        #expect(try app(service, "line")?.app.chart == NookApp.Chart(.line, [1, 5, 2]))

        // An array makes APP0, APP1 as AWTRIX does.
        let array = try curl(alice, "POST", custom + "test", #"[{"text": "1"}, {"text": "2"}]"#)
        #expect(array.status == 200, "\(array)")
        #expect(try app(service, "test0")?.app.content == .text("1") && app(service, "test1")?.app.content == .text("2"))

        // Wrong types are refused naming the field, and nothing is set.
        let before = try apps(service).count
        let wrong = try curl(alice, "POST", custom + "bad", #"{"text": "x", "progress": "high"}"#)
        #expect(wrong.status == 400 && wrong.text.contains(#""field":"progress""#), "\(wrong)")
        let inArray = try curl(alice, "POST", custom + "bad", #"[{"text": "fine"}, {"text": "x", "color": "sky"}]"#)
        #expect(inArray.status == 422 && inArray.text.contains(#""field":"[1].color""#), "\(inArray)")
        let tooLong = try curl(alice, "POST", custom + "bad", #"{"text": "x", "bar": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}"#)
        #expect(tooLong.status == 422 && tooLong.text.contains(#""field":"bar""#), "\(tooLong)")
        let noText = try curl(alice, "POST", custom + "bad", ##"{"duration": 5, "color": "#FF0000"}"##)
        #expect(noText.status == 422 && noText.text.contains(#""field":"text""#), "\(noText)")
        let noName = try curl(alice, "POST", service.url + "/api/custom", #"{"text": "x"}"#)
        #expect(noName.status == 400 && noName.text.contains(#""field":"name""#), "\(noName)")
        #expect(try apps(service).count == before)

        // AWTRIX's lists: /api/apps and /api/loop, read with a read token.
        let listed = try curl(viewer, "GET", service.url + "/api/apps")
        let names = (try JSONValue.parse(Array(listed.text.utf8))).items.compactMap { $0["name"]?.text }
        #expect(listed.status == 200 && names == ["power", "hello", "colours", "line", "test0", "test1"], "\(listed)")
        #expect((try JSONValue.parse(Array(listed.text.utf8))).items.first?["icon"]?.text == "bolt")
        let loop = try JSONValue.parse(Array(try curl(viewer, "GET", service.url + "/api/loop").text.utf8))
        #expect(loop["power"]?.numberValue == 0 && loop["test1"]?.numberValue == 5, "\(loop)")
        #expect(try curl(viewer, "POST", custom + "hello", #"{"text": "no"}"#).status == 403)
    }

    @Test func a3_switchNextAndPreviousTurnTheRotationAndAnEmptyBodyRemoves() throws {
        let service = try service()
        let custom = service.url + "/api/custom?name="
        for name in ["one", "two", "three"] {
            #expect(try curl(alice, "POST", custom + name, #"{"text": "\#(name)", "duration": 600}"#).status == 200)
        }
        func showing() throws -> String? { try apps(service).first(where: \.showing)?.app.name }
        let switched = try curl(alice, "POST", service.url + "/api/switch", #"{"name": "two"}"#)
        #expect(switched.status == 200 && switched.text == "OK", "\(switched)")
        try eventually("two on the glass") { try showing() == "two" }
        #expect(try curl(bob, "POST", service.url + "/api/nextapp").status == 200)
        try eventually("three on the glass") { try showing() == "three" }
        #expect(try curl(bob, "POST", service.url + "/api/previousapp").status == 200)
        try eventually("two on the glass again") { try showing() == "two" }
        let unknown = try curl(alice, "POST", service.url + "/api/switch", #"{"name": "Time"}"#)
        #expect(unknown.status == 404 && unknown.text.contains("no app named 'Time'"), "\(unknown)")
        let noName = try curl(alice, "POST", service.url + "/api/switch", #"{"fast": true}"#)
        #expect(noName.status == 400 && noName.text.contains(#""field":"name""#), "\(noName)")

        // Removal: an empty body, `{}`, and an array's APP0, APP1 by their common name.
        let empty = try curl(alice, "POST", custom + "one", "")
        #expect(empty.status == 200, "\(empty)")
        #expect(try app(service, "one") == nil)
        #expect(try curl(alice, "POST", custom + "two", "{}").status == 200)
        #expect(try app(service, "two") == nil)
        #expect(try curl(alice, "POST", custom + "batch", #"[{"text": "a"}, {"text": "b"}, {"text": "c"}]"#).status == 200)
        // Another token's batch9 is no part of alice's batch.
        #expect(try curl(bob, "POST", custom + "batch9", #"{"text": "bob's"}"#).status == 200)
        let removed = try curl(alice, "POST", custom + "batch", "")
        #expect(removed.status == 200 && removed.text.contains("removed batch0, batch1, batch2"), "\(removed)")
        #expect(try apps(service).map(\.app.name) == ["three", "batch9"])
        let gone = try curl(alice, "POST", custom + "nothing", "")
        #expect(gone.status == 200 && gone.text == "OK\nno app named nothing to remove", "\(gone)")
    }

    @Test func a3_anotherTokenCannotReplaceOrRemoveAnAppThroughAWTRIXsRoutes() throws {
        let service = try service()
        let custom = service.url + "/api/custom?name="
        #expect(try curl(alice, "POST", custom + "weather", #"{"text": "21 °C"}"#).status == 200)
        let replaced = try curl(bob, "POST", custom + "weather", #"{"text": "hacked"}"#)
        #expect(replaced.status == 403 && replaced.text.contains("'bob'"), "\(replaced)")
        let removed = try curl(bob, "POST", custom + "weather", "")
        #expect(removed.status == 403, "\(removed)")
        // Nor through nookd's socket under another stated name (the side door a bridge would be).
        let client = try NookClient(path: service.socket)
        var request = Request(id: .number(1), operation: .appSet(NookApp(name: "weather", content: .text("side door"))))
        request.sender = "nook-mqtt"
        #expect(throws: ClientError.self) { try client.request(request) }
        #expect(try app(service, "weather")?.app.content == .text("21 °C"))
        #expect(try app(service, "weather")?.app.sender?.name == "alice")
        // Its owner updates it in place.
        #expect(try curl(alice, "POST", custom + "weather", #"{"text": "22 °C"}"#).status == 200)
        #expect(try app(service, "weather")?.app.content == .text("22 °C"))
    }

    /// An array is set whole or not at all: a part another token holds (bob's `APP` would make
    /// alice's `APP1`) or a rotation too full for all of it refuses it before any part is set.
    @Test func a3_anArrayIsSetWholeOrNotAtAllAndNamesWhatStoppedIt() throws {
        // The rotation's room, not a sender's share (`apps.per_sender`), is what this fills.
        let service = try service(nookdConfig: "[apps]\nper_sender = 0\n")
        let custom = service.url + "/api/custom?name="
        #expect(try curl(alice, "POST", custom + "APP1", #"{"text": "alice's"}"#).status == 200)
        let taken = try curl(bob, "POST", custom + "APP", #"[{"text": "b0"}, {"text": "b1"}, {"text": "b2"}]"#)
        #expect(taken.status == 403 && taken.text.contains("APP1") && taken.text.contains("'alice'"), "\(taken)")
        #expect(try apps(service).map(\.app.name) == ["APP1"])
        #expect(try app(service, "APP1")?.app.content == .text("alice's"))

        // 60 of alice's leave room for 4: bob's 5 are refused, none set, hers all kept.
        for index in 0..<59 { #expect(try curl(alice, "POST", custom + "a\(index)", #"{"text": "x"}"#).status == 200) }
        let five = "[" + Array(repeating: #"{"text": "y"}"#, count: 5).joined(separator: ",") + "]"
        let full = try curl(bob, "POST", custom + "many", five)
        #expect(full.status == 429 && full.text.contains(#""field":"body""#) && full.text.contains("room for 4"), "\(full)")
        #expect(try apps(service).count == 60 && app(service, "many0") == nil)
        // Four fit.
        let four = "[" + Array(repeating: #"{"text": "y"}"#, count: 4).joined(separator: ",") + "]"
        #expect(try curl(bob, "POST", custom + "many", four).status == 200)
        #expect(try apps(service).count == 64)
    }

    /// An array under the body's limit whose one request to nookd would be over nookd's line
    /// (names, field names and `#` tints grow in translation) is refused saying so; none is set.
    @Test func a3_anArrayWhoseOneRequestWouldOutgrowNookdsLineIsRefusedSayingSo() throws {
        let service = try service(nookdConfig: "[apps]\nper_sender = 0\n")
        let fragments = "[" + Array(repeating: #"{"t":"abcd","c":"FF0000"}"#, count: 32).joined(separator: ",") + "]"
        let body = "[" + Array(repeating: #"{"text":\#(fragments),"color":"00FF00","progress":33}"#, count: 64).joined(separator: ",") + "]"
        #expect(body.utf8.count < 64 * 1024)
        let refused = try curl(alice, "POST", service.url + "/api/custom?name=clock", body)
        #expect(refused.status == 413 && refused.text.contains("these 64 apps make one request to nookd"), "\(refused)")
        #expect(try apps(service).isEmpty)
    }

    /// An array the token's share (`apps.per_sender`) has room for only in part is refused whole
    /// (`429`, naming the share and the part it stopped at): no part of it is set.
    @Test func a3_anArrayBeyondItsTokensShareSetsNoPartOfIt() throws {
        // nook-http's user relays: each token's name has a share of its own.
        let service = try service(nookdConfig: "[daemon]\nrelay_users = [\"\(getuid())\"]\n[apps]\nper_sender = 4\n")
        let custom = service.url + "/api/custom?name="
        #expect(try curl(alice, "POST", custom + "A", #"[{"text": "0"}, {"text": "1"}, {"text": "2"}]"#).status == 200)
        let refused = try curl(alice, "POST", custom + "B", #"[{"text": "0"}, {"text": "1"}]"#)
        #expect(refused.status == 429 && refused.text.contains(#""field":"[1].name""#) && refused.text.contains("apps.per_sender")
                && refused.text.contains("none of the 2 apps was set"), "\(refused)")
        #expect(try apps(service).map(\.app.name) == ["A0", "A1", "A2"])
        // Another token's share is its own.
        #expect(try curl(bob, "POST", custom + "B", #"[{"text": "0"}, {"text": "1"}]"#).status == 200)
        #expect(try apps(service).count == 5)
    }

    /// An empty body removing APP and its numbered parts removes all or nothing: APP held by
    /// another token refuses the removal before the caller's APP0, APP1 go.
    @Test func a3_aRemovalRefusedForAnotherTokensAppRemovesNoneOfItsParts() throws {
        let service = try service()
        let custom = service.url + "/api/custom?name="
        #expect(try curl(alice, "POST", custom + "W", #"[{"text": "0"}, {"text": "1"}]"#).status == 200)
        #expect(try curl(bob, "POST", custom + "W", #"{"text": "bob's"}"#).status == 200)
        let refused = try curl(alice, "POST", custom + "W", "")
        #expect(refused.status == 403 && refused.text.contains("'W'") && refused.text.contains("'bob'"), "\(refused)")
        #expect(try apps(service).map(\.app.name) == ["W0", "W1", "W"])
    }

    /// `name` twice is ambiguous (a proxy may read the last where nook-http reads the first):
    /// refused, naming it, and nothing is set or removed.
    @Test func a3_aNameGivenTwiceIsRefused() throws {
        let service = try service()
        #expect(try curl(alice, "POST", service.url + "/api/custom?name=one", #"{"text": "one"}"#).status == 200)
        let twice = try curl(alice, "POST", service.url + "/api/custom?name=two&name=one", #"{"text": "two"}"#)
        #expect(twice.status == 400 && twice.text.contains(#""field":"name""#) && twice.text.contains("2 times"), "\(twice)")
        let removal = try curl(alice, "POST", service.url + "/api/custom?name=two&name=one", "")
        #expect(removal.status == 400, "\(removal)")
        #expect(try apps(service).map(\.app.name) == ["one"] && app(service, "one")?.app.content == .text("one"))
    }

    /// Runs `body`, Python inside `async def main()` with `client` an `AwtrixLightHttpClient` of
    /// nook-http's `/api/` as `token`, and `imports` besides the client's own; a call the client
    /// raises on ends the script with its status and body.
    static func runAWTRIXClient(_ service: HTTPService, token: String, imports: String, _ body: String) throws -> (status: Int32, output: String, error: String) {
        let indented = body.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "        " + $0 }.joined(separator: "\n")
        let script = """
            import asyncio, sys
            from httpx import AsyncClient
            from awtrix_light_client.http_client import AwtrixLightHttpClient, AwtrixLightHttpClientError
            \(imports)

            async def main():
                headers = {"Authorization": "Bearer " + sys.argv[2]}
                async with AsyncClient(base_url=sys.argv[1] + "/api/", headers=headers) as http:
                    client = AwtrixLightHttpClient(http)
            \(indented)
            try:
                asyncio.run(main())
            except AwtrixLightHttpClientError as error:
                sys.exit(f"{error.status_code} {error.content!r}")
            """
        let path = service.directory + "/awtrix-client-\(UInt32.random(in: 0 ... .max)).py"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        let python = try #require(Senders.path("python3"))
        let run = try Senders.run(python, [path, service.url, token])
        return (run.status, run.output, run.error)
    }

    static let awtrixLightClient: Bool = {
        guard let python = Senders.path("python3") else { return false }
        return (try? Senders.run(python, ["-c", "import awtrix_light_client"]).status) == 0
    }()

    @Test(.enabled(if: awtrixLightClient, "needs awtrix-light-client (pip install awtrix-light-client==2.0.0; Hardware/dev/install-deps)"))
    func a6_awtrixLightClientDrivesNookHTTPAsItDrivesAClock() throws {
        let service = try service()
        let run = try Self.runAWTRIXClient(service, token: alice, imports: "from awtrix_light_client.models.application import CustomApplication, Fragment", """
            await client.set_custom_application("weather", CustomApplication(
                text="21 °C", icon="cloud.sun", color="#FF8800", duration=600, progress=40, rainbow=True, lifetime=3600, lifetimeMode=1))
            await client.set_custom_application("power", [
                CustomApplication(text="1.2 kW", bar=[1, 2, 3], duration=600),
                CustomApplication(text=[Fragment(t="up ", c="#FF0000"), Fragment(t="2", c="#00FF00")], line=[3, 2], duration=600)])
            print("loop", ",".join((await client.get_loops()).loops))
            await client.switch_app("power1")
            print("switched")
            await client.next_app()
            await client.previous_app()
            print("turned")
            """)
        #expect(run.status == 0, "\(run.output)\n\(run.error)")
        #expect(run.output.contains("loop weather,power0,power1") && run.output.contains("switched") && run.output.contains("turned"), "\(run.output)")
        let weather = try #require(try app(service, "weather")).app
        #expect(weather.content == .text("21 °C") && weather.icon == "cloud.sun" && weather.tint == .rgb(red: 255, green: 136, blue: 0))
        #expect(weather.progress == 0.4 && weather.lifetime == .seconds(3600) && weather.lifetimeMode == .stale && weather.sender?.name == "alice")
        #expect(try app(service, "power0")?.app.chart == NookApp.Chart(.bar, [1, 2, 3]))
        let power1 = try #require(try app(service, "power1")).app
        #expect(power1.chart == NookApp.Chart(.line, [3, 2]) && power1.content.plainText == "up 2")
        try eventually("power1 on the glass (switched to, then next and previous)") { try apps(service).first(where: \.showing)?.app.name == "power1" }
        // What the client sent that Nook does not draw is in nook-http's log, named.
        #expect(service.waitForLog("AWTRIX app weather: ignored (Nook does not draw them): rainbow"), "\(service.logText)")
    }
}

/// Waits (on wall time: these tests run real processes) until `condition` holds.
private func eventually(_ what: String, timeout: Double = 10, _ condition: () throws -> Bool) throws {
    if try Waiting.until(seconds: timeout, condition) { return }
    throw TestFailure("timed out waiting for \(what)")
}
