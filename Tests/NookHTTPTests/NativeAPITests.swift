import Foundation
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// H1 through the routes' handlers and a real nookd: each route's answer, and that what it
/// answers is what nookd did.
@Suite("H1 the native JSON API against a real nookd", .serialized, .ownThreads)
struct NativeAPITests {
    @Test func h1_createAnswers201WithTheIdAndLocationOnceNookdHoldsTheCard() throws {
        let nookd = try NativeAPINookd()
        var api = NativeAPIClient(socket: nookd.socket)
        api.caller = HTTPCaller(name: "grafana", scopes: [.publish, .read])
        let created = try api.send("POST", "/api/v1/activities", body: #"{"title":"Backup done","tint":"green","dwell":3600,"key":"backup"}"#)
        #expect(created.status == 201, "\(created.json)")
        let id = try #require(created.json["id"]?.text)
        #expect(created.json["module"]?.text == "default")
        #expect(created.header("Location") == "/api/v1/activities/" + id)
        #expect(created.header("Content-Type") == "application/json")
        // nookd answered it: the card is there when the client hears 201.
        #expect(try nookd.holds(id) != nil)

        // A second one goes to a module named in the body, and waits.
        let second = try api.send("POST", "/api/v1/activities", body: #"{"title":"Second","module":"default","priority":"low"}"#)
        #expect(second.status == 201)

        // The caller's name is the sender (U3): the history records it once the card ends.
        #expect(try api.send("DELETE", "/api/v1/activities/" + id).status == 200)
        try nativeAPIEventually("the cancelled card in the history") {
            try nookd.request(.history(HistoryQuery()))["entries"]?.items.contains { $0["activity"]?["id"]?.text == id } == true
        }
        let entry = try #require(try nookd.request(.history(HistoryQuery()))["entries"]?.items.first { $0["activity"]?["id"]?.text == id })
        #expect(entry["sender"]?["name"]?.text == "grafana")
        #expect(entry["sender"]?["uid"]?.numberValue == Double(getuid()), "the uid is still the connection's own")
    }

    @Test func h1_badInputIsRefusedNamingTheFieldInNookdsWordsAndLosesNothing() throws {
        let nookd = try NativeAPINookd()
        let api = NativeAPIClient(socket: nookd.socket)
        let kept = try api.send("POST", "/api/v1/activities", body: #"{"title":"Kept","dwell":3600}"#)
        #expect(kept.status == 201)
        let cases: [(body: String, status: Int, code: String, field: String?, message: String?)] = [
            (#"{"subtitle":"no title"}"#, 422, "missing_field", "title", "is required"),
            (#"{"title":"x","priority":"urgent"}"#, 422, "invalid_field", "priority", "must be low, normal or high; got 'urgent'"),
            (#"{"title":"x","dwell":"long"}"#, 400, "wrong_type", "dwell", "must be a number, got a string"),
            (#"{"title":"x","colour":"red"}"#, 422, "invalid_field", "colour", nil),
            (#"{"title":""}"#, 422, "invalid_field", "title", "must not be empty"),
            (#"{"title":"x","timeout":5}"#, 422, "invalid_field", "timeout", nil),
            (#"{"title":"x","module":7}"#, 400, "wrong_type", "module", nil),
            (#"{"title":"x","module":"nowhere"}"#, 422, "unknown_module", "module", nil),
            (#"{"title":"#, 400, "malformed_json", nil, nil),
            (#"["title"]"#, 400, "wrong_type", nil, nil),
            ("", 400, "malformed_json", nil, nil),
        ]
        for (body, status, code, field, message) in cases {
            let answer = try api.send("POST", "/api/v1/activities", body: body)
            #expect(answer.status == status, "\(body): \(answer.json)")
            #expect(answer.error.code == code, "\(body): \(answer.json)")
            #expect(answer.error.field == field, "\(body): \(answer.json)")
            if let message { #expect(answer.error.message == message, "\(body): \(answer.json)") }
        }
        // A title in nookd's own words past its limit.
        let long = try api.send("POST", "/api/v1/activities", body: #"{"title":"\#(String(repeating: "a", count: 600))"}"#)
        #expect(long.status == 422 && long.error.field == "title" && long.error.message?.contains("512") == true, "\(long.json)")
        // An id already on the glass is nookd's refusal, named as the body's field.
        let again = try api.send("POST", "/api/v1/activities", body: #"{"title":"Again","id":"\#(kept.json["id"]?.text ?? "")"}"#)
        #expect(again.status == 422 && again.error.field == "id", "\(again.json)")
        // Nothing queued was lost.
        let pending = try api.send("GET", "/api/v1/activities")
        #expect(pending.json["activities"]?.items.map { $0["activity"]?["title"]?.text } == ["Kept"])
    }

    @Test func h1_pendingAndOneActivityShowWhereEachCardIsAndHowItEnded() throws {
        let nookd = try NativeAPINookd()
        let api = NativeAPIClient(socket: nookd.socket)
        let first = try #require(try api.send("POST", "/api/v1/activities", body: #"{"title":"On the glass","dwell":3600}"#).json["id"]?.text)
        try nativeAPIEventually("the first on the glass") { try nookd.holds(first)?.onScreen == true }
        let second = try #require(try api.send("POST", "/api/v1/activities", body: #"{"title":"Waiting","dwell":3600}"#).json["id"]?.text)
        let pending = try api.send("GET", "/api/v1/activities").json["activities"]?.items ?? []
        #expect(pending.map { $0["activity"]?["id"]?.text } == [first, second])
        #expect(pending.map { $0["state"]?.text } == ["onScreen", "pending"])
        #expect(pending.allSatisfy { $0["module"]?.text == "default" })

        let one = try api.send("GET", "/api/v1/activities/" + second)
        #expect(one.status == 200 && one.json["state"]?.text == "pending" && one.json["activity"]?["title"]?.text == "Waiting")
        #expect(try api.send("POST", "/api/v1/activities/\(second)/dismiss").status == 200)
        try nativeAPIEventually("the dismissed card in the history") {
            try api.send("GET", "/api/v1/activities/" + second).json["state"]?.text == "ended"
        }
        let ended = try api.send("GET", "/api/v1/activities/" + second).json
        #expect(ended["ending"]?.text == "dismissed" && ended["activity"]?["title"]?.text == "Waiting", "\(ended)")

        let unknown = try api.send("GET", "/api/v1/activities/" + UUID().uuidString)
        #expect(unknown.status == 404 && unknown.error.code == "not_found" && unknown.error.field == "id")
        let malformed = try api.send("GET", "/api/v1/activities/not-an-id")
        #expect(malformed.status == 404 && malformed.error.field == "id", "\(malformed.json)")
        #expect(try api.send("GET", "/api/v1/activities", query: [("module", "nowhere")]).status == 422)
    }

    @Test func h1_updateChangesACardInPlaceAndAnEndedOneIsGone() throws {
        let nookd = try NativeAPINookd()
        let api = NativeAPIClient(socket: nookd.socket)
        let id = try #require(try api.send("POST", "/api/v1/activities", body: #"{"title":"Copying","progress":0.1,"dwell":3600}"#).json["id"]?.text)
        let updated = try api.send("PATCH", "/api/v1/activities/" + id, body: #"{"progress":0.5,"subtitle":"half way","restartDwell":true}"#)
        #expect(updated.status == 200, "\(updated.json)")
        #expect(updated.json["updated"]?.items.first?["fields"]?.items.compactMap(\.text) == ["subtitle", "progress"])
        let listed = try nookd.holds(id)?.activity
        #expect(listed?["progress"]?.numberValue == 0.5 && listed?["subtitle"]?.text == "half way")
        // Cleared with null.
        #expect(try api.send("PATCH", "/api/v1/activities/" + id, body: #"{"subtitle":null}"#).status == 200)
        #expect(try nookd.holds(id)?.activity["subtitle"] == nil)

        let wrong = try api.send("PATCH", "/api/v1/activities/" + id, body: #"{"progress":"most"}"#)
        #expect(wrong.status == 400 && wrong.error.field == "progress", "\(wrong.json)")
        let badValue = try api.send("PATCH", "/api/v1/activities/" + id, body: #"{"progress":7}"#)
        #expect(badValue.status == 422 && badValue.error.field == "progress", "\(badValue.json)")
        let nothing = try api.send("PATCH", "/api/v1/activities/" + id, body: "{}")
        #expect(nothing.status == 422, "\(nothing.json)")
        let idChange = try api.send("PATCH", "/api/v1/activities/" + id, body: #"{"id":"\#(UUID().uuidString)"}"#)
        #expect(idChange.status == 422 && idChange.error.field == "id", "\(idChange.json)")

        #expect(try api.send("DELETE", "/api/v1/activities/" + id).status == 200)
        try nativeAPIEventually("the cancelled card in the history") {
            try api.send("PATCH", "/api/v1/activities/" + id, body: #"{"progress":0.9}"#).status == 410
        }
        let gone = try api.send("PATCH", "/api/v1/activities/" + id, body: #"{"progress":0.9}"#)
        #expect(gone.error.code == "ended" && gone.error.message?.contains("cancelled") == true, "\(gone.json)")
        #expect(try api.send("PATCH", "/api/v1/activities/" + UUID().uuidString, body: #"{"progress":0.9}"#).status == 404)
    }

    @Test func h1_dismissAndCancelEndACardOnceAndThenSayItHasEnded() throws {
        let nookd = try NativeAPINookd()
        let api = NativeAPIClient(socket: nookd.socket)
        let shown = try #require(try api.send("POST", "/api/v1/activities", body: #"{"title":"Door","dwell":3600}"#).json["id"]?.text)
        let waiting = try #require(try api.send("POST", "/api/v1/activities", body: #"{"title":"Later","dwell":3600}"#).json["id"]?.text)
        let dismissed = try api.send("POST", "/api/v1/activities/\(shown)/dismiss")
        #expect(dismissed.status == 200 && dismissed.json["dismissed"]?.text == shown, "\(dismissed.json)")
        let cancelled = try api.send("DELETE", "/api/v1/activities/" + waiting)
        #expect(cancelled.status == 200 && cancelled.json["cancelled"]?.text == waiting, "\(cancelled.json)")
        try nativeAPIEventually("both in the history") {
            try api.send("DELETE", "/api/v1/activities/" + waiting).status == 410
                && api.send("POST", "/api/v1/activities/\(shown)/dismiss").status == 410
        }
        #expect(try api.send("DELETE", "/api/v1/activities/" + UUID().uuidString).status == 404)
        #expect(try api.send("POST", "/api/v1/activities/\(UUID().uuidString)/dismiss").status == 404)
    }

    @Test func h1_cancelByKeyEndsTheKeyedCardsAndNeedsAKey() throws {
        let nookd = try NativeAPINookd()
        let api = NativeAPIClient(socket: nookd.socket)
        _ = try api.send("POST", "/api/v1/activities", body: #"{"title":"Shown","dwell":3600}"#)
        _ = try api.send("POST", "/api/v1/activities", body: #"{"title":"Build 1","key":"build","dwell":3600}"#)
        _ = try api.send("POST", "/api/v1/activities", body: #"{"title":"Other","key":"other","dwell":3600}"#)
        let answer = try api.send("DELETE", "/api/v1/activities", query: [("key", "build")])
        #expect(answer.status == 200 && answer.json["cancelled"]?.numberValue == 1, "\(answer.json)")
        let left = try api.send("GET", "/api/v1/activities").json["activities"]?.items.compactMap { $0["activity"]?["title"]?.text }
        #expect(left == ["Shown", "Other"])
        // A NUL would make nookd's request line malformed: refused here, naming the parameter.
        let nul = try api.send("DELETE", "/api/v1/activities", query: [("key", "build\u{0}")])
        #expect(nul.status == 422 && nul.error.field == "key", "\(nul.json)")
        #expect(try api.send("GET", "/api/v1/activities", query: [("module", "\u{0}")]).error.field == "module")
        let keyless = try api.send("DELETE", "/api/v1/activities")
        #expect(keyless.status == 422 && keyless.error.field == "key", "\(keyless.json)")
        #expect(try api.send("GET", "/api/v1/activities").json["activities"]?.items.count == 2, "a DELETE without a key ends nothing")
    }

    @Test func h1_deleteByKeyEndsTheCardOnTheGlassAsWellAsThoseWaiting() throws {
        // A sender taking back what it sent by key takes it off the glass too, as ntfy's delete
        // and an alert's resolve do: not only out of the line, as nookctl's cancel-all does (Q4).
        let nookd = try NativeAPINookd()
        let api = NativeAPIClient(socket: nookd.socket)
        let client = try NookClient(path: nookd.socket)
        client.readTimeout = TestBounds.duration(.seconds(10))
        let watch = try EventWatch(client)
        let shown = try #require(try api.send("POST", "/api/v1/activities", body: #"{"title":"Build 1","key":"build","dwell":3600}"#).json["id"]?.text)
        _ = try watch.events { $0.id.description == shown && $0.name == "presented" }
        // Q4: the second card with the key waits behind the one on the glass.
        let waiting = try #require(try api.send("POST", "/api/v1/activities", body: #"{"title":"Build 2","key":"build","dwell":3600}"#).json["id"]?.text)
        #expect(try api.send("POST", "/api/v1/activities", body: #"{"title":"Other","key":"other","dwell":3600}"#).status == 201)
        #expect(try nookd.holds(shown)?.onScreen == true && nookd.holds(waiting)?.onScreen == false)

        let answer = try api.send("DELETE", "/api/v1/activities", query: [("key", "build")])
        #expect(answer.status == 200 && answer.json["cancelled"]?.numberValue == 2, "\(answer.json)")
        var ended: [String: String] = [:]
        _ = try watch.events { event in
            if event.ending != nil, [shown, waiting].contains(event.id.description) { ended[event.id.description] = event.reason ?? "" }
            return ended.count == 2
        }
        #expect(ended == [shown: "cancelled", waiting: "cancelled"])
        let left = try api.send("GET", "/api/v1/activities").json["activities"]?.items.compactMap { $0["activity"]?["title"]?.text }
        #expect(left == ["Other"])
        #expect(try api.send("DELETE", "/api/v1/activities", query: [("key", "build")]).json["cancelled"]?.numberValue == 0)
        // A module nookd does not have is refused as before, naming it.
        let unknown = try api.send("DELETE", "/api/v1/activities", query: [("key", "build"), ("module", "nowhere")])
        #expect(unknown.status == 422 && unknown.error.code == "unknown_module" && unknown.error.field == "module", "\(unknown.json)")
    }

    @Test func h1_historyIsSearchedAndPagedNewestFirst() throws {
        let nookd = try NativeAPINookd()
        let api = NativeAPIClient(socket: nookd.socket)
        // Held back, so every card ends as it is cancelled, in order.
        #expect(try api.send("POST", "/api/v1/suspend").status == 200)
        var ids: [String] = []
        for (index, title) in ["Backup done", "Door bell", "Backup failed", "Parcel", "Backup started"].enumerated() {
            let id = try #require(try api.send("POST", "/api/v1/activities", body: #"{"title":"\#(title)","subtitle":"n\#(index)","dwell":3600}"#).json["id"]?.text)
            ids.append(id)
        }
        for id in ids { #expect(try api.send("DELETE", "/api/v1/activities/" + id).status == 200) }
        try nativeAPIEventually("five entries") { try api.send("GET", "/api/v1/history").json["total"]?.numberValue == 5 }

        let all = try api.send("GET", "/api/v1/history").json
        #expect(all["entries"]?.items.compactMap { $0["activity"]?["subtitle"]?.text } == ["n4", "n3", "n2", "n1", "n0"])
        #expect(all["next"] == nil)
        let backups = try api.send("GET", "/api/v1/history", query: [("q", "BACKUP")]).json
        #expect(backups["entries"]?.items.compactMap { $0["activity"]?["title"]?.text } == ["Backup started", "Backup failed", "Backup done"])
        let words = try api.send("GET", "/api/v1/history", query: [("q", "backup n2")]).json
        #expect(words["entries"]?.items.compactMap { $0["activity"]?["title"]?.text } == ["Backup failed"])
        let bySender = try api.send("GET", "/api/v1/history", query: [("q", "tester")]).json
        #expect(bySender["entries"]?.items.count == 5, "the sender's name is searched")

        let first = try api.send("GET", "/api/v1/history", query: [("q", "backup"), ("limit", "2")]).json
        #expect(first["entries"]?.items.compactMap { $0["activity"]?["subtitle"]?.text } == ["n4", "n2"])
        #expect(first["next"]?.numberValue == 2)
        let second = try api.send("GET", "/api/v1/history", query: [("q", "backup"), ("limit", "2"), ("offset", "2")]).json
        #expect(second["entries"]?.items.compactMap { $0["activity"]?["subtitle"]?.text } == ["n0"])
        #expect(second["next"] == nil && second["offset"]?.numberValue == 2)
        let plainPage = try api.send("GET", "/api/v1/history", query: [("limit", "2"), ("offset", "1")]).json
        #expect(plainPage["entries"]?.items.compactMap { $0["activity"]?["subtitle"]?.text } == ["n3", "n2"])
        #expect(plainPage["next"]?.numberValue == 3)

        for (name, value) in [("offset", "-1"), ("limit", "0"), ("limit", "many"), ("since", "yesterday"), ("unseen", "perhaps"), ("key", ""), ("key", "a\u{0}b")] {
            let refused = try api.send("GET", "/api/v1/history", query: [(name, value)])
            #expect(refused.status == 422 && refused.error.field == name, "\(name)=\(value): \(refused.json)")
        }
        #expect(try api.send("GET", "/api/v1/history", query: [("since", "1h"), ("unseen", "true")]).status == 200)
    }

    @Test func h1_statusSuspendResumeAndQuietAreNookdsOwn() throws {
        let nookd = try NativeAPINookd()
        let api = NativeAPIClient(socket: nookd.socket)
        let status = try api.send("GET", "/api/v1/status")
        #expect(status.status == 200 && status.json["display"]?["backend"]?.text == "mock", "\(status.json)")
        #expect(status.json["quiet"]?["quiet"] == .bool(false))

        let suspended = try api.send("POST", "/api/v1/suspend")
        #expect(suspended.status == 200 && suspended.json["modules"]?.items.compactMap(\.text) == ["default"], "\(suspended.json)")
        #expect(try nookd.request(.status)["modules"]?.items.first?["suspended"] == .bool(true))
        #expect(try api.send("POST", "/api/v1/resume").status == 200)
        #expect(try nookd.request(.status)["modules"]?.items.first?["suspended"] == .bool(false))
        #expect(try api.send("POST", "/api/v1/suspend", query: [("module", "nowhere")]).status == 422)

        let on = try api.send("PUT", "/api/v1/quiet", body: #"{"set":"on"}"#)
        #expect(on.status == 200 && on.json["quiet"] == .bool(true), "\(on.json)")
        #expect(try api.send("GET", "/api/v1/status").json["quiet"]?["quiet"] == .bool(true))
        #expect(try api.send("PUT", "/api/v1/quiet", body: #"{"set":"until","until":"45m"}"#).status == 200)
        #expect(try api.send("PUT", "/api/v1/quiet", body: #"{"set":"off"}"#).json["quiet"] == .bool(false))
        let refusals: [(String, Int, String?)] = [
            (#"{"set":"loud"}"#, 422, "set"), (#"{"set":"until"}"#, 422, "until"), (#"{"set":3}"#, 400, "set"),
            (#"{}"#, 422, "set"), (#"{"set":"on","volume":1}"#, 422, "volume"), (#"{"set":"status"}"#, 422, "set"), ("on", 400, nil),
            (#"{"set":"off","until":"07:00"}"#, 422, "until"), (#"{"set":"off","until":null}"#, 422, "until"),
            (#"{"set":"until","until":45}"#, 422, "until"),
        ]
        for (body, status, field) in refusals {
            let answer = try api.send("PUT", "/api/v1/quiet", body: body)
            #expect(answer.status == status && answer.error.field == field, "\(body): \(answer.json)")
        }
        let words = try api.send("PUT", "/api/v1/quiet", body: #"{"set":"loud"}"#)
        #expect(words.error.message == "must be on, off, until or status; got 'loud'", "nookd's own words: \(words.json)")
    }

    /// M1 over the native API: the display switched off for a while and on, its brightness said
    /// not set without a `[brightness]` table, and every body that asks nothing or cannot be read
    /// refused naming the field, in nookd's words, switching nothing.
    @Test func m1_h1_theDisplayIsSwitchedAndReadAndABadBodySwitchesNothing() throws {
        let nookd = try NativeAPINookd()
        let api = NativeAPIClient(socket: nookd.socket)
        let read = try api.send("GET", "/api/v1/display")
        #expect(read.status == 200 && read.json["power"]?.text == "on" && read.json["brightness"]?.text == "unmanaged", "\(read.json)")
        let off = try api.send("PUT", "/api/v1/display", body: #"{"power":"off","forS":3600}"#)
        #expect(off.status == 200 && off.json["power"]?.text == "off" && (off.json["wakesInS"]?.numberValue ?? 0) > 3590, "\(off.json)")
        #expect(try api.send("GET", "/api/v1/status").json["display"]?["power"]?.text == "off")
        let bright = try api.send("PUT", "/api/v1/display", body: #"{"power":"on","brightness":40}"#)
        #expect(bright.status == 200 && bright.json["power"]?.text == "on", "\(bright.json)")
        #expect(bright.json["warnings"]?.items.first?.text?.hasPrefix("brightness: not set: nook.toml has no [brightness] table") == true, "\(bright.json)")
        let refusals: [(String, Int, String?)] = [
            (#"{}"#, 422, "power"), (#"{"power":"dim"}"#, 422, "power"), (#"{"forS":60}"#, 422, "forS"),
            (#"{"power":"off","forS":0}"#, 422, "forS"), (#"{"power":"off","forS":604801}"#, 422, "forS"), (#"{"power":"off","forS":1.5}"#, 422, "forS"),
            (#"{"brightness":101}"#, 422, "brightness"), (#"{"brightness":"bright"}"#, 422, "brightness"), (#"{"power":true}"#, 400, "power"),
            (#"{"power":"off","volume":1}"#, 422, "volume"), ("off", 400, nil), (#"{"power":"off","brightness":null}"#, 422, "brightness"),
        ]
        for (body, status, field) in refusals {
            let answer = try api.send("PUT", "/api/v1/display", body: body)
            #expect(answer.status == status && answer.error.field == field, "\(body): \(answer.json)")
        }
        #expect(try api.send("GET", "/api/v1/display").json["power"]?.text == "on", "no refused body switched anything")
    }

    @Test func h1_nookdGoneIsA503WithRetryAfterForEveryRoute() throws {
        let nookd = try NativeAPINookd()
        let api = NativeAPIClient(socket: nookd.socket)
        nookd.stop()
        let id = UUID().uuidString
        let requests: [(String, String, String?)] = [
            ("POST", "/api/v1/activities", #"{"title":"x"}"#), ("GET", "/api/v1/activities", nil), ("GET", "/api/v1/activities/" + id, nil),
            ("PATCH", "/api/v1/activities/" + id, #"{"progress":0.5}"#), ("DELETE", "/api/v1/activities/" + id, nil),
            ("POST", "/api/v1/activities/\(id)/dismiss", nil), ("GET", "/api/v1/status", nil), ("GET", "/api/v1/history", nil),
            ("POST", "/api/v1/suspend", nil), ("POST", "/api/v1/resume", nil), ("PUT", "/api/v1/quiet", #"{"set":"on"}"#),
            ("GET", "/api/v1/display", nil), ("PUT", "/api/v1/display", #"{"power":"off"}"#),
        ]
        for (method, path, body) in requests {
            let answer = try api.send(method, path, body: body)
            #expect(answer.status == 503 && answer.header("Retry-After") == "1" && answer.error.code == "nookd_unavailable", "\(method) \(path): \(answer.json)")
        }
        let keyed = try api.send("DELETE", "/api/v1/activities", query: [("key", "k")])
        #expect(keyed.status == 503)
    }
}

/// H1's table from nookd's error codes to HTTP statuses.
@Suite struct NativeAPIErrorTableTests {
    @Test(arguments: ProtocolError.Code.allCases)
    func h1_everyNookdErrorCodeHasAStatusThatSaysWhoseFaultItIs(code: ProtocolError.Code) {
        let (status, word) = NativeAPIErrors.status(for: code)
        let expected: [ProtocolError.Code: Int] = [
            .missingField: 422, .invalid: 422, .unknownModule: 422, .wrongType: 400, .lineTooLong: 413, .notFound: 404,
            .forbidden: 403, .queueFull: 429, .unavailable: 503, .badJSON: 502, .unsupportedVersion: 502, .unknownOperation: 502,
            .internalError: 502,
        ]
        #expect(status == expected[code], "\(code)")
        #expect(!word.isEmpty && word == word.lowercased())
        // Never a 500: nook-http itself did not fail.
        #expect(status != 500)
        let error = NativeAPIErrors.error(.refused(ProtocolError(code, field: "activity.dwell", "problem").json), strippingPrefix: "activity")
        #expect(error.status == status && error.code == word)
        #expect(error.field == "dwell", "the body's own field")
        // A retry is invited when nookd is away (at once) or a limit is reached (later).
        let retryAfter = error.headers.first { $0.name == "Retry-After" }?.value
        #expect(retryAfter == (status == 503 ? "1" : status == 429 ? String(NativeAPIErrors.limitRetryAfterSeconds) : nil), "\(code)")
    }

    @Test func h1_anUnreadableRefusalIsABadGatewayNotACrash() {
        let error = NativeAPIErrors.error(.refused(.object([("code", .string("newCode")), ("message", .string("?"))])))
        #expect(error.status == 502 && error.code == "nookd_error")
        let gone = NativeAPIErrors.error(.unavailable("connection refused"))
        #expect(gone.status == 503 && gone.headers.contains { $0.name == "Retry-After" })
    }
}
