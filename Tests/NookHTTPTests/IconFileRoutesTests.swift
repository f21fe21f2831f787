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
}
