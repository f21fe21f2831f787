import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// LaMetric icon ids and AWTRIX icon names through nook-http (M3): nookd finds them as files
/// in its icon directories whichever route brings them, and says the name it finds nowhere.
/// curl against the built nook-http and a real nookd on mock LEDs; the cards are read from nookd.
@Suite(.serialized, .ownThreads, .enabled(if: Senders.curl != nil, "needs curl"))
struct IconFileRoutesTests {
    @Test func m3_idsAndNamesFromTheNativeAndAWTRIXRoutesAreDrawnFromTheIconDirectories() throws {
        let icons = NSTemporaryDirectory() + "nook-http-icons-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: icons, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: icons) }
        try Data(TestGIF.encode(width: 8, height: 8, palette: [0xFF0000, 0x00FF00], frames: [
            .init(indices: [UInt8](repeating: 0, count: 64), width: 8, height: 8),
            .init(indices: [UInt8](repeating: 1, count: 64), width: 8, height: 8),
        ])).write(to: URL(fileURLWithPath: icons + "/1234.gif"))
        try Data(TestGIF.encode(width: 8, height: 8, palette: [0x0000FF], frames: [.init(indices: [UInt8](repeating: 0, count: 64), width: 8, height: 8)]))
            .write(to: URL(fileURLWithPath: icons + "/weather.gif"))
        let service = try HTTPService(nookdConfig: "[daemon]\nicon_directories = [\"\(icons)\"]\n[led]\ngeometry = \"32x8\"\n", nookdDisplay: "led-mock")
        let base = service.url
        let created = try SaidNotDroppedTests.curl(["-d", #"{"title": "Door", "icon": "1234", "blocker": true}"#, base + "/api/v1/activities"])
        #expect(created.status == 201 && SaidNotDroppedTests.json(created.body)["warnings"] == nil, "\(created)")
        let id = try #require(SaidNotDroppedTests.json(created.body)["id"]?.text)
        let patched = try SaidNotDroppedTests.curl(["-X", "PATCH", "-d", #"{"icon": "weather"}"#, base + "/api/v1/activities/" + id])
        #expect(patched.status == 200 && SaidNotDroppedTests.json(patched.body)["warnings"] == nil, "\(patched)")
        #expect(try SaidNotDroppedTests.cards(service).first { $0.title == "Door" }?.systemImage == icons + "/weather.gif")
        // AWTRIX's custom app: a LaMetric id with its letter, AWTRIX's plain OK.
        let app = try SaidNotDroppedTests.curl(["-d", #"{"text": "21 C", "icon": "a1234"}"#, base + "/api/custom?name=door"])
        #expect(app.status == 200 && app.body == "OK", "\(app)")
        // A name found nowhere: drawn as today, and said.
        let unknown = try SaidNotDroppedTests.curl(["-d", #"{"text": "x", "icon": "nosuch"}"#, base + "/api/custom?name=other"])
        #expect(unknown.status == 200 && unknown.body.contains("unknown icon 'nosuch'"), "\(unknown)")
    }

    /// The routes whose bridge substitutes an icon (AWTRIX's notification the bell, a numbered
    /// AWTRIX app none, LaMetric icon_type's) send the sender's name or id with that substitute as
    /// its fallback: nookd draws the file it finds, else the fallback, and the answer says so.
    @Test(.enabled(if: LaMetricBench.openssl != nil, "needs openssl"))
    func m3_awtrixNotificationsNumberedAppsAndLaMetricCardsDrawAnIconFileBeforeTheirFallback() throws {
        let icons = NSTemporaryDirectory() + "nook-http-fallback-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: icons, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: icons) }
        let still = TestGIF.encode(width: 8, height: 8, palette: [0xFF0000], frames: [.init(indices: [UInt8](repeating: 0, count: 64), width: 8, height: 8)])
        for name in ["1234.gif", "heat.gif"] { try Data(still).write(to: URL(fileURLWithPath: icons + "/" + name)) }
        let lametric = try LaMetricBench(listen: "127.0.0.1:0", nookdConfig: "[daemon]\nicon_directories = [\"\(icons)\"]\n")
        defer { lametric.remove() }
        try lametric.bench.request(.suspend(module: nil))
        let base = "https://\(lametric.tlsAddress)"
        func post(_ body: String, _ path: String) throws -> String {
            let result = try lametric.curl(["-H", "Content-Type: application/json", "-d", body, base + path])
            #expect(result.output.hasSuffix("\n200") || result.output.hasSuffix("\n201"), "\(path): \(result.output)")
            return result.output
        }
        #expect(try post(#"{"text": "Hot", "icon": "heat"}"#, "/api/notify") == "OK\n200")
        let missing = try post(#"{"text": "Cold", "icon": "frost"}"#, "/api/notify")
        #expect(missing.contains("icon 'frost' is not a built-in icon and no frost.png, frost.gif in \(icons) (daemon.icon_directories): the card shows 'bell'"),
                "\(missing)")
        _ = try post(#"{"model":{"frames":[{"icon":"a1234","text":"Washer"}]}}"#, "/api/v2/device/notifications")
        let dryer = try post(#"{"icon_type":"info","model":{"frames":[{"icon":7956,"text":"Dryer"}]}}"#, "/api/v2/device/notifications")
        #expect(dryer.contains("icon '7956' is not a built-in icon and no 7956.png, 7956.gif in \(icons) (daemon.icon_directories): the card shows 'info.circle'"),
                "\(dryer)")
        #expect(try post(#"{"text": "21 C", "icon": "1234"}"#, "/api/custom?name=door") == "OK\n200")
        let cards = try SaidNotDroppedTests.cards(lametric.bench.service)
        func icon(_ title: String) -> String? { cards.first { $0.title == title }?.systemImage }
        #expect(icon("Hot") == icons + "/heat.gif" && icon("Cold") == "bell", "\(cards)")
        #expect(icon("Washer") == icons + "/1234.gif" && icon("Dryer") == "info.circle", "\(cards)")
        #expect(cards.allSatisfy { $0.iconFallback == nil }, "nookd holds the resolved icon only")
        let apps = try AppListAnswer(json: lametric.bench.request(.appList)).apps
        #expect(apps.first { $0.app.name == "door" }?.app.icon == icons + "/1234.gif", "\(apps)")
    }
}
