import Foundation
import NookActivities
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// What a sender asked for that the glass will not show is said in the answer of every route
/// that takes it (R3, L3): an icon name the board lacks, and on LEDs the characters the bitmap
/// font cannot draw. curl against the built nook-http and a real nookd; the cards are read
/// from nookd.
@Suite(.serialized, .ownThreads, .enabled(if: Senders.curl != nil, "needs curl"))
struct SaidNotDroppedTests {
    /// curl's answer: the status code and the body.
    static func curl(_ arguments: [String]) throws -> (status: Int, body: String) {
        let curl = try #require(Senders.curl)
        let result = try Senders.run(curl, ["-sS", "-w", "\n%{http_code}", "-H", "Content-Type: application/json"] + arguments)
        var lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let status = Int(lines.popLast() ?? "") ?? 0
        return (status, lines.joined(separator: "\n"))
    }

    static func json(_ body: String) -> JSONValue { (try? JSONValue.parse(Array(body.utf8))) ?? .null }

    static func strings(_ value: JSONValue?) -> [String] { value?.items.compactMap(\.text) ?? [] }

    static func cards(_ service: HTTPService) throws -> [NookActivity] {
        let client = try NookClient(path: service.socket)
        client.readTimeout = TestBounds.duration(.seconds(10))
        let list = try ListAnswer(json: client.request(Request(id: .number(1), operation: .list(module: nil))))
        return list.modules.flatMap { ($0.current.map { [$0] } ?? []) + $0.pending }
    }

    @Test func r3_anIconNameTheBoardLacksIsSaidInTheAnswerOfEveryRouteThatTakesAnIcon() throws {
        let service = try HTTPService()
        let base = service.url
        // Native API: create, update in place, an app.
        let created = try Self.curl(["-d", #"{"title": "Weather", "icon": "cloud.sun", "blocker": true}"#, base + "/api/v1/activities"])
        let createdBody = Self.json(created.body)
        #expect(created.status == 201, "\(created)")
        #expect(Self.strings(createdBody["warnings"]).contains { $0.hasPrefix("unknown icon 'cloud.sun'") }, "\(created.body)")
        let id = try #require(createdBody["id"]?.text)
        let patched = try Self.curl(["-X", "PATCH", "-d", #"{"icon": "heat"}"#, base + "/api/v1/activities/" + id])
        #expect(patched.status == 200 && Self.strings(Self.json(patched.body)["warnings"]).contains { $0.hasPrefix("unknown icon 'heat'") }, "\(patched)")
        let app = try Self.curl(["-X", "PUT", "-d", #"{"text": "21 C", "icon": "door"}"#, base + "/api/v1/apps/weather"])
        #expect(app.status == 201, "\(app)")
        #expect(Self.strings(Self.json(app.body)["warnings"]) == [
            "unknown icon 'door': the app shows the generic glyph; 'nookctl icons' lists the known names",
        ], "\(app.body)")

        // AWTRIX's notification: a name the board lacks (nor has as a file) is the bell, and the OK says so.
        let notify = try Self.curl(["-d", #"{"text": "Hot", "icon": "heat"}"#, base + "/api/notify"])
        #expect(notify.status == 200 && notify.body.hasPrefix("OK\nicon 'heat' is not a built-in icon (did you mean 'heart'?) and no heat.png, heat.gif in ")
                && notify.body.hasSuffix("(daemon.icon_directories): the card shows 'bell'"), "\(notify)")
        #expect(try Self.cards(service).first { $0.title == "Hot" }?.systemImage == "bell")
        // AWTRIX's custom apps: one, and an array whose apps are named.
        let custom = try Self.curl(["-d", #"{"text": "50 %", "icon": "battery"}"#, base + "/api/custom?name=charge"])
        #expect(custom.status == 200 && custom.body.hasPrefix("OK\n") && custom.body.contains("unknown icon 'battery'"), "\(custom)")
        let pair = "[{\"text\": \"a\", \"icon\": \"cloud.sun\"}, {\"text\": \"b\", \"icon\": \"cloud\"}]"
        let array = try Self.curl(["-d", pair, base + "/api/custom?name=pair"])
        #expect(array.status == 200 && array.body.contains("pair0: unknown icon 'cloud.sun'") && !array.body.contains("pair1"), "\(array)")
        // A name the board has: AWTRIX's plain OK, and no warnings member.
        let known = try Self.curl(["-d", #"{"text": "Fine", "icon": "cloud"}"#, base + "/api/notify"])
        #expect(known.status == 200 && known.body == "OK", "\(known)")
        let knownApp = try Self.curl(["-d", #"{"text": "x", "icon": "sun.max"}"#, base + "/api/custom?name=sunny"])
        #expect(knownApp.body == "OK", "\(knownApp)")
        let knownCard = try Self.curl(["-d", #"{"title": "Fine", "icon": "hammer"}"#, base + "/api/v1/activities"])
        #expect(knownCard.status == 201 && Self.json(knownCard.body)["warnings"] == nil, "\(knownCard)")
    }

    @Test func l3_onLEDsTheCharactersTheFontCannotDrawAreSaidOnEveryPath() throws {
        let service = try HTTPService(nookdConfig: "[led]\ngeometry = \"32x8\"\n", nookdDisplay: "led-mock")
        let base = service.url
        let cannot = "the LED font cannot draw '日本🔥' in the title; they show as '?'"
        // ntfy: the answer's nook.notes, beside what the translation noted.
        let ntfy = try Self.curl(["-H", "Title: 日本 🔥", "-d", "hello", base + "/home"])
        let notes = Self.strings(Self.json(ntfy.body)["nook"]?["notes"])
        #expect(ntfy.status == 200 && notes.contains(cannot), "\(ntfy)")
        #expect(notes.contains("an LED matrix shows the title only: the subtitle is not drawn"), "\(ntfy)")
        // Gotify: extras' nook::card notes.
        let gotify = try Self.curl(["-d", #"{"title": "日本 🔥", "message": "m"}"#, base + "/message"])
        let gotifyNotes = Self.strings(Self.json(gotify.body)["extras"]?["nook::card"]?["notes"])
        #expect(gotifyNotes.contains(cannot), "\(gotify)")
        // The native API: the warnings member.
        let native = try Self.curl(["-d", #"{"title": "日本 🔥"}"#, base + "/api/v1/activities"])
        #expect(native.status == 201 && Self.strings(Self.json(native.body)["warnings"]) == [cannot], "\(native)")
        // AWTRIX: a line after OK, for a notification and for an app's text.
        let notify = try Self.curl(["-d", #"{"text": "日本 🔥"}"#, base + "/api/notify"])
        #expect(notify.body == "OK\n" + cannot, "\(notify)")
        let custom = try Self.curl(["-d", #"{"text": "✓ 5"}"#, base + "/api/custom?name=check"])
        #expect(custom.body == "OK\nthe LED font cannot draw '✓' in the text; it shows as '?'", "\(custom)")
        // Alerts: a notes member.
        let alert = try Self.curl(["--data-binary", String(decoding: AlertBodies.alertmanager(alerts: [
            AlertBodies.alert("Überlast ☢", instance: "a", severity: "warning"),
        ], commonLabels: #"{"alertname": "Überlast ☢"}"#), as: UTF8.self), base + "/api/v1/alertmanager"])
        #expect(Self.strings(Self.json(alert.body)["notes"]).contains { $0.hasPrefix("the LED font cannot draw '☢' in the title") }, "\(alert)")
        // Text the font has: nothing said.
        let plain = try Self.curl(["-d", #"{"text": "Grüße"}"#, base + "/api/notify"])
        #expect(plain.body == "OK", "\(plain)")
        // nookctl over the socket: on standard error, exit 0.
        let nookctl = try Senders.run(Built.directory + "/nookctl", ["--socket", service.socket, "enqueue", "--title", "日本 🔥"])
        #expect(nookctl.status == 0 && nookctl.error == "nookctl: warning: \(cannot)\n", "\(nookctl)")
    }
}
