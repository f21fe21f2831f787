import Foundation
import NookActivities
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// M1 over HTTP: AWTRIX 3's device routes through the built nook-http and a real nookd, driven
/// by the PyPI package `awtrix-light-client` as it drives a clock, by curl on every route of
/// docs/awtrix-device.md's table, and by what the `awtrix3` Home Assistant integration reads.
@Suite("M1 AWTRIX's device routes over HTTP", .serialized, .ownThreads)
struct AWTRIXDeviceRoutesTests {
    let token = "nook_alice-awtrix-device-token"

    func service() throws -> HTTPService {
        let tokens = NSTemporaryDirectory() + "nook-http-awtrix-device-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try "alice read,publish sha256:\(sha256Hex(token))\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        chmod(tokens, 0o600)
        defer { try? FileManager.default.removeItem(atPath: tokens) }
        return try HTTPService(config: "[http]\ntokens = \"\(tokens)\"\nrate_limit_per_s = 0\n")
    }

    /// docs/awtrix-device.md's table: `GET /api/stats`, … (a `—` where AWTRIX has no route).
    static func documentedRoutes() throws -> [String] {
        let text = try String(contentsOfFile: Built.root + "/docs/awtrix-device.md", encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 3, cells[0].hasPrefix("`"), cells[0].hasSuffix("`") else { return nil }
            return String(cells[0].dropFirst().dropLast())
        }
    }

    /// The AWTRIX routes docs/apps.md and docs/publishing.md describe instead.
    static let appRoutes: Set<String> = ["POST /api/notify", "POST /api/custom", "GET /api/apps", "POST /api/switch",
                                         "POST /api/nextapp", "POST /api/previousapp"]

    @Test func m1_theDeviceTableListsEveryAWTRIXRouteButTheAppsAndNoOther() throws {
        let rows = HTTPRouteTable.standard().routes.filter { $0.shape == .awtrix }.map { "\($0.method) \($0.pattern)" }
        let found = DocumentedLists.differences(rows: rows.filter { !Self.appRoutes.contains($0) }, listed: try Self.documentedRoutes(),
                                                in: "docs/awtrix-device.md")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test func m1_everyRouteOfTheTableAnswersAWTRIXsOKOrSaysWhatNookDoesInsteadNever404() throws {
        let service = try service()
        let routes = try Self.documentedRoutes()
        #expect(routes.count >= 20, "\(routes)")
        for route in routes {
            let parts = route.split(separator: " ")
            let answer = try curl(as: token, String(parts[0]), service.url + parts[1], parts[0] == "POST" ? "" : nil)
            #expect(answer.status != 404, "\(route): \(answer)")
            switch answer.status {
            case 200: #expect(answer.text.hasPrefix("OK") || (try? JSONValue.parse(Array(answer.text.utf8))) != nil, "\(route): \(answer)")
            case 501:
                let error = try JSONValue.parse(Array(answer.text.utf8))["error"]
                #expect(error?["code"]?.text == "not_done" && error?["message"]?.text?.hasPrefix("not done: ") == true, "\(route): \(answer)")
            default: Issue.record("\(route) answered \(answer)")
            }
        }
        // Some are done as AWTRIX does them: an empty body to an indicator or the mood light is
        // off, which a Nook board is; a reboot is not done.
        #expect(try curl(as: token, "POST", service.url + "/api/indicator1", "").status == 200)
        #expect(try curl(as: token, "POST", service.url + "/api/moodlight", "").status == 200)
        #expect(try curl(as: token, "POST", service.url + "/api/reboot", "").status == 501)
        // A body that cannot be read is refused naming the field.
        let bad = try curl(as: token, "POST", service.url + "/api/power", #"{"power": [1]}"#)
        #expect(bad.status == 400 && bad.text.contains(#""field":"power""#), "\(bad)")
    }

    /// `power`, `sleep` and `settings`' `MATP`, `BRI` and `ABRI` switch the display and set its
    /// brightness through nookd, with a `[brightness]` table dimming the frames; the stats and
    /// settings read them back as the `awtrix3` integration's light entity does, and a card
    /// sent while the display is off is told so.
    @Test func m1_powerSleepAndTheBrightnessSettingsSwitchTheDisplayAndAreReadBack() throws {
        let tokens = NSTemporaryDirectory() + "nook-http-awtrix-display-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try "alice read,publish sha256:\(sha256Hex(token))\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        chmod(tokens, 0o600)
        defer { try? FileManager.default.removeItem(atPath: tokens) }
        let service = try HTTPService(config: "[http]\ntokens = \"\(tokens)\"\nrate_limit_per_s = 0\n", nookdConfig: "[brightness]\nactive = 100\nidle = 50\n")
        func status() throws -> StatusAnswer {
            try StatusAnswer(json: NookClient(path: service.socket).request(Request(id: .number(1), operation: .status)))
        }
        let off = try curl(as: token, "POST", service.url + "/api/power", #"{"power": false}"#)
        #expect(off.status == 200 && off.text == "OK", "\(off)")
        #expect(try status().display.on == false)
        var stats = try curlJSON(as: token, "GET", service.url + "/api/stats").json
        #expect(stats["matrix"] == .bool(false), "\(stats)")
        let card = try curl(as: token, "POST", service.url + "/api/notify", #"{"text": "Washer done"}"#)
        #expect(card.status == 200 && card.text.contains("the display is switched off"), "\(card)")
        #expect(try curl(as: token, "POST", service.url + "/api/power", "true").status == 200)
        #expect(try status().display.on == true)

        let asleep = try curl(as: token, "POST", service.url + "/api/sleep", #"{"sleep": 3600}"#)
        #expect(asleep.status == 200, "\(asleep)")
        let sleeping = try status().display
        #expect(sleeping.on == false && (sleeping.wakesInS ?? 0) > 3500, "\(sleeping)")
        #expect(try curl(as: token, "POST", service.url + "/api/settings", #"{"MATP": true}"#).status == 200)
        #expect(try status().display.on == true && status().display.wakesInS == nil, "switched on: the sleep is over")

        let dim = try curl(as: token, "POST", service.url + "/api/settings", #"{"BRI": 51, "TEFF": 1}"#)
        #expect(dim.status == 200 && dim.text == "OK", "\(dim)")
        #expect(try status().brightness?.percentSet == 20)
        stats = try curlJSON(as: token, "GET", service.url + "/api/stats").json
        let settings = try curlJSON(as: token, "GET", service.url + "/api/settings").json
        #expect(stats["bri"]?.numberValue == 51 && settings["BRI"]?.numberValue == 51 && settings["ABRI"] == .bool(false), "\(stats) \(settings)")
        let automatic = try curl(as: token, "POST", service.url + "/api/settings", #"{"ABRI": true, "ATIME": 10}"#)
        #expect(automatic.status == 501 && automatic.text.contains("ATIME: not changed") && !automatic.text.contains("ABRI"), "\(automatic)")
        #expect(try status().brightness?.percentSet == nil, "ABRI on: nook.toml's levels again, though ATIME was not done")
        // A word where a number goes is the wrong type (400); a number out of range is invalid (422).
        let bad = try curl(as: token, "POST", service.url + "/api/sleep", #"{"sleep": "later"}"#)
        #expect(bad.status == 400 && bad.text.contains(#""field":"sleep""#), "\(bad)")
        let long = try curl(as: token, "POST", service.url + "/api/sleep", #"{"sleep": 604801}"#)
        #expect(long.status == 422 && long.text.contains(#""field":"sleep""#) && long.text.contains("604800"), "\(long)")
        #expect(try status().display.on == true, "a refused sleep switches nothing")
    }

    /// `notify/dismiss` takes the caller's held notification off the glass, as AWTRIX does, and
    /// leaves another sender's card there.
    @Test func m1_notifyDismissTakesTheCallersHeldNotificationOnly() throws {
        let service = try service()
        func shown() throws -> [String] {
            try StatusAnswer(json: NookClient(path: service.socket).request(Request(id: .number(1), operation: .status))).modules.compactMap(\.current?.title)
        }
        #expect(try curl(as: token, "POST", service.url + "/api/notify", #"{"text": "Washer done", "hold": true}"#).status == 200)
        try waitFor("the washer's card on the glass") { try shown() == ["Washer done"] }
        let dismissed = try curl(as: token, "POST", service.url + "/api/notify/dismiss", "")
        #expect(dismissed.status == 200 && dismissed.text == "OK", "\(dismissed)")
        try waitFor("the washer's card gone") { try shown().isEmpty }
        // Another sender's held card (this test's own user, over nookd's socket) stays.
        _ = try NookClient(path: service.socket).request(Request(id: .number(2), operation: .enqueue(
            NookActivity(title: "Doorbell", presentation: .blocker(timeout: nil)), module: nil, wait: false)))
        try waitFor("the doorbell on the glass") { try shown() == ["Doorbell"] }
        let none = try curl(as: token, "POST", service.url + "/api/notify/dismiss", "")
        #expect(none.status == 200 && none.text == "OK\nthe held notification on the glass is another sender's: it stays", "\(none)")
        #expect(try shown() == ["Doorbell"])
        _ = try NookClient(path: service.socket).request(Request(id: .number(3), operation: .dismiss(nil)))
        try waitFor("the doorbell gone") { try shown().isEmpty }
        let nothing = try curl(as: token, "POST", service.url + "/api/notify/dismiss", "")
        #expect(nothing.status == 200 && nothing.text == "OK\nno held notification on the glass to dismiss", "\(nothing)")
    }

    /// The `awtrix3` integration (a HACS custom integration, not in Home Assistant core) sets up
    /// from `GET /api/stats` with Basic auth, taking `uid` as the device's id, and reads the
    /// stats' keys and `ABRI`/`ATRANS` of `GET /api/settings`.
    @Test func m1_theAwtrix3IntegrationsStatsAndSettingsAreThere() throws {
        let service = try service()
        let result = try runProgram("/usr/bin/curl", ["-sS", "-u", "alice:\(token)", service.url + "/api/stats"])
        let stats = try JSONValue.parse(Array(result.output.utf8))
        #expect(stats["uid"]?.text?.isEmpty == false, "\(result.output)")
        for key in ["bat", "bat_raw", "type", "lux", "ldr_raw", "ram", "bri", "temp", "hum", "uptime", "wifi_signal", "messages"] {
            #expect(stats[key]?.numberValue != nil, "\(key) in \(result.output)")
        }
        for key in ["version", "app", "uid", "ip_address"] { #expect(stats[key]?.text != nil, "\(key) in \(result.output)") }
        #expect(stats["matrix"] == .bool(true) && stats["indicator1"] == .bool(false) && stats["app"]?.text == "Time", "\(result.output)")
        let settings = try curlJSON(as: token, "GET", service.url + "/api/settings").json
        #expect(settings["ABRI"] == .bool(false) && settings["ATRANS"] == .bool(true) && settings["BRI"]?.numberValue == 255, "\(settings)")
    }

    /// `indicatorN` lights the glass as AWTRIX's does: with AWTRIX's colour forms, blink and
    /// fade; what is drawn otherwise than asked is said after the `OK`; `/api/stats` says which
    /// are lit; a body that cannot be read is refused naming the field.
    @Test func m1_theIndicatorRoutesLightTheGlassAndTheStatsSayIt() throws {
        let service = try service()
        let red = try curl(as: token, "POST", service.url + "/api/indicator1", #"{"color": [255, 0, 0]}"#)
        #expect(red.status == 200 && red.text == "OK", "\(red)")
        let quick = try curl(as: token, "POST", service.url + "/api/indicator3", ##"{"color": "#32a852", "blink": "40", "speed": 1}"##)
        #expect(quick.status == 200 && quick.text.hasPrefix("OK\nunknown fields (not AWTRIX's), ignored: speed\nblink: 40 ms is drawn as 100 ms"), "\(quick)")
        var stats = try curlJSON(as: token, "GET", service.url + "/api/stats").json
        #expect(stats["indicator1"] == .bool(true) && stats["indicator2"] == .bool(false) && stats["indicator3"] == .bool(true), "\(stats)")
        let status = try StatusAnswer(json: NookClient(path: service.socket).request(Request(id: .number(1), operation: .status)))
        #expect(status.indicators?.map(\.color) == ["#ff0000", nil, "#32a852"] && status.indicators?[2].blinkMs == 100)
        #expect(try curl(as: token, "POST", service.url + "/api/indicator1", #"{"color": "0"}"#).status == 200)
        stats = try curlJSON(as: token, "GET", service.url + "/api/stats").json
        #expect(stats["indicator1"] == .bool(false), "\(stats)")
        let bad = try curl(as: token, "POST", service.url + "/api/indicator2", #"{"color": "nope"}"#)
        #expect(bad.status == 422 && bad.text.contains(#""field":"color""#), "\(bad)")
        let long = try curl(as: token, "POST", service.url + "/api/indicator2", ##"{"color": "#fff", "fade": 600001}"##)
        #expect(long.status == 422 && long.text.contains(#""field":"fade""#), "\(long)")
    }

    /// Every call of `awtrix-light-client` answers: the reads parse into its models, what Nook
    /// does is done, and what it does not raises with Nook's words; none is a 404.
    @Test(.enabled(if: AWTRIXAppRoutesTests.awtrixLightClient, "needs awtrix-light-client (pip install awtrix-light-client==2.0.0; Hardware/dev/install-deps)"))
    func m1_awtrixLightClientsEveryCallAnswersAndNoneIs404() throws {
        let service = try service()
        let imports = """
            from pydantic_extra_types.color import Color
            from awtrix_light_client.models.application import CustomApplication, Notification
            from awtrix_light_client.models.moodlight import Moodlight
            from awtrix_light_client.models.setting import Settings
            """
        let run = try AWTRIXAppRoutesTests.runAWTRIXClient(service, token: token, imports: imports, """
            calls = [
                ("set_custom_application", client.set_custom_application("weather", CustomApplication(text="21 C", duration=600))),
                ("get_stats", client.get_stats()), ("get_effects", client.get_effects()),
                ("get_transitions", client.get_transitions()), ("get_loops", client.get_loops()),
                ("get_screen", client.get_screen()), ("get_settings", client.get_settings()),
                ("set_power_on", client.set_power(True)), ("set_power_off", client.set_power(False)),
                ("set_sleep", client.set_sleep(5)), ("set_sound", client.set_sound("alarm")),
                ("set_rtttl", client.set_rtttl("two short:d=4,o=5,b=100:16e6,16e6")),
                ("set_moodlight_off", client.set_moodlight(Moodlight())),
                ("set_moodlight", client.set_moodlight(Moodlight(brightness=170, kelvin=2300))),
                ("set_indicator_off", client.set_indicator(2, Color("black"))),
                ("set_indicator", client.set_indicator(1, Color("red"), blink=500)),
                ("notify", client.notify(Notification(text="Washer done", hold=True))),
                ("dismiss_notification", client.dismiss_notification()),
                ("switch_app", client.switch_app("weather")), ("next_app", client.next_app()),
                ("previous_app", client.previous_app()), ("set_settings", client.set_settings(Settings(TEFF=1, BRI=100))),
                ("update", client.update()), ("reboot", client.reboot()), ("erase", client.erase()),
                ("reset_settings", client.reset_settings()),
            ]
            for name, call in calls:
                try:
                    result = await call
                    print(name, "ok", repr(result).replace("\\n", " ")[:300])
                except AwtrixLightHttpClientError as error:
                    print(name, error.status_code, error.content.decode().replace("\\n", " "))
            """)
        #expect(run.status == 0, "\(run.output)\n\(run.error)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 26, "\(run.output)")
        func answer(_ name: String) -> String { lines.first { $0.hasPrefix(name + " ") }.map { String($0.dropFirst(name.count + 1)) } ?? "missing" }
        let done = ["get_stats", "get_effects", "get_transitions", "get_loops", "get_settings", "set_power_on", "set_power_off", "set_sleep", "set_moodlight_off", "set_moodlight",
                    "set_indicator_off", "set_indicator", "set_custom_application", "notify", "dismiss_notification", "switch_app", "next_app", "previous_app"]
        for name in done { #expect(answer(name).hasPrefix("ok"), "\(name): \(answer(name))") }
        let notDone = ["get_screen", "set_sound", "set_rtttl", "set_settings", "update", "reboot", "erase", "reset_settings"]
        for name in notDone { #expect(answer(name).hasPrefix("501 ") && answer(name).contains("not done: "), "\(name): \(answer(name))") }
        #expect(!lines.contains { $0.contains(" 404 ") }, "\(run.output)")
        #expect(answer("get_transitions").contains("SLIDE") && answer("get_effects") == "ok []", "\(run.output)")
        #expect(answer("set_sound").contains("sound: not played: no sound output is configured") && answer("reboot").contains("not rebooted over the API"))
        // Without a [brightness] table nookd leaves the brightness alone, and says so.
        #expect(answer("set_settings").contains("brightness: not set: nook.toml has no [brightness] table") && !answer("set_settings").contains("TEFF"),
                "\(answer("set_settings"))")
        #expect(answer("get_loops").contains("weather"), "\(answer("get_loops"))")
        // 2300 K (255, 151, 50) at 170 of 255: the glass one warm colour while no card is on it.
        let status = try StatusAnswer(json: NookClient(path: service.socket).request(Request(id: .number(1), operation: .status)))
        #expect(status.home == "light #aa6521", "\(status.home)")
    }
}

/// Waits (on wall time: these tests run real processes) until `condition` holds.
private func waitFor(_ what: String, _ condition: () throws -> Bool) throws {
    if try Waiting.until(seconds: 10, condition) { return }
    throw TestFailure("timed out waiting for \(what)")
}
