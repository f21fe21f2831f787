import Foundation
import NookActivities
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// The publishing and alert routes against a real nookd on the mock display, checked through
/// nookd's own answers (`list`, `watch`, `history`), not the routes' answers alone.
@Suite(.serialized, .ownThreads) struct PublishRoutesTests {
    func publishRoutes(_ nookd: PublishNookd, topics: [String: String?] = [:]) -> RouteCaller {
        RouteCaller(routes: PublishRoutes.routes(settings: PublishSettings(topics: topics), logger: RouteCaller.logger, now: { 1_700_000_000 }),
                    nookd: BlockingNookdCalls(socket: nookd.socket))
    }

    @Test func h2_anNtfyPublishIsACardNookdHoldsWhenTheAnswerComes() throws {
        let nookd = try PublishNookd()
        let routes = publishRoutes(nookd)
        let response = try routes.call("POST", "/{topic}", httpRequest("POST", "/phil_alerts", headers: [("Title", "Unauthorized access detected"),
                                                                                                       ("Priority", "urgent"), ("Tags", "warning,skull")],
                                                                       body: "Remote access to phils-laptop detected. Act right away."),
                                       parameters: ["topic": "phil_alerts"])
        #expect(response.status == 200)
        let answer = response.json
        #expect(answer["event"]?.text == "message")
        #expect(answer["topic"]?.text == "phil_alerts")
        let id = try #require(answer["nook"]?["activity"]?.text)
        let card = try #require(try nookd.cards().first { $0.id.description == id })
        #expect(card.title == "Unauthorized access detected")
        #expect(card.subtitle == "Remote access to phils-laptop detected. Act right away.")
        #expect(card.priority == .high)
        #expect(card.isBlocker)
        #expect(card.coalescingKey == "ntfy/phil_alerts/\(answer["id"]?.text ?? "")")
    }

    @Test func h2_aSequenceIDUpdatesTheLiveCardInPlaceAndClearEndsIt() throws {
        let nookd = try PublishNookd()
        let watch = try nookd.watch()
        let routes = publishRoutes(nookd, topics: ["home": nil])
        // Priority 5 stays on the glass until cleared, so the update finds it there.
        let first = try routes.call("POST", "/{topic}", httpRequest("POST", "/home", headers: [("Title", "Backup"), ("X-Sequence-ID", "backup"), ("Priority", "5")],
                                                                     body: "Copying 10%"), parameters: ["topic": "home"])
        #expect(first.status == 200)
        #expect(first.json["sequence_id"]?.text == "backup")
        let id = try #require(first.json["nook"]?["activity"]?.text)
        let second = try routes.call("PUT", "/{topic}/{sequence}", httpRequest("PUT", "/home/backup", headers: [("Title", "Backup"), ("Priority", "5")], body: "Copying 60%"),
                                     parameters: ["topic": "home", "sequence": "backup"])
        #expect(second.json["nook"]?["activity"]?.text == id)
        #expect(second.json["nook"]?["updated"] == .bool(true))
        let cards = try nookd.cards().filter { $0.coalescingKey == "ntfy/home/backup" }
        #expect(cards.count == 1)
        #expect(cards.first?.subtitle == "Copying 60%")
        let events = try watch.events { $0.id.description == id && $0.name == "updated" }
        #expect(events.filter { $0.name == "enqueued" }.count == 1)
        #expect(events.last?.fields == ["subtitle"])

        let cleared = try routes.call("PUT", "/{topic}/{sequence}/clear", httpRequest("PUT", "/home/backup/clear"), parameters: ["topic": "home", "sequence": "backup"])
        #expect(cleared.status == 200)
        #expect(cleared.json["nook"]?["ended"]?.numberValue == 1)
        let ending = try watch.events { $0.id.description == id && $0.ending != nil }
        #expect(ending.last?.reason == "dismissed")
    }

    @Test func h2_aClearFindsItsCardBehindAMegabyteOfOthersAndThePendingListHasThemAll() throws {
        let nookd = try PublishNookd()
        let routes = publishRoutes(nookd, topics: ["home": nil])
        let title = String(repeating: "🔔", count: NookActivity.Limits.titleCharacters)
        let body = String(repeating: "🔔", count: NookActivity.Limits.subtitleCharacters)
        let count = 200
        for index in 0..<count {
            let sent = try routes.call("POST", "/{topic}", httpRequest("POST", "/home", headers: [("Title", title), ("X-Sequence-ID", "s\(index)"), ("Priority", "5")],
                                                                      body: body), parameters: ["topic": "home"])
            try #require(sent.status == 200, "\(sent.json.serialized)")
        }
        // The cards do not fit in one page of nookd's `list`: the last is on a later one.
        let firstPage = try ListAnswer(json: nookd.request(.list(module: nil)))
        try #require(firstPage.next != nil, "the cards fit in one page; the test needs more")
        #expect(!firstPage.modules.flatMap(\.pending).contains { $0.coalescingKey == "ntfy/home/s\(count - 1)" })

        // The native listing has them all, page after page (each at most nookd's 1 MiB).
        let native = RouteCaller(routes: NativeAPIRoutes.routes(), nookd: routes.nookd)
        var listed = 0, pages = 0
        var after: String?
        repeat {
            let page = try native.call("GET", "/api/v1/activities",
                                       httpRequest("GET", "/api/v1/activities", query: [("limit", "1000")] + (after.map { [("after", $0)] } ?? [])))
            listed += page.json["activities"]?.items.count ?? 0
            pages += 1
            after = page.json["next"]?.text
        } while after != nil && pages < 10
        #expect(listed == count)
        #expect(pages > 1)
        let watch = try nookd.watch()
        let cleared = try routes.call("PUT", "/{topic}/{sequence}/clear", httpRequest("PUT", "/home/s\(count - 1)/clear"),
                                      parameters: ["topic": "home", "sequence": "s\(count - 1)"])
        #expect(cleared.status == 200)
        #expect(cleared.json["nook"]?["ended"]?.numberValue == 1, "\(cleared.json.serialized)")
        let ending = try watch.events { $0.ending != nil }
        #expect(ending.last?.reason == "dismissed")
    }

    /// nookd's calls, but a card ahead ends right after the first page of the first `list`: the
    /// rest move one place forward, which by offset hid the card that was to start the next page.
    final class CardEndsBetweenPages: NookdCalls {
        let nookd: BlockingNookdCalls
        let ending: NookActivityID
        private var ended = false
        init(_ nookd: BlockingNookdCalls, ending: NookActivityID) { (self.nookd, self.ending) = (nookd, ending) }

        func call(_ request: Request, done: @escaping (Result<JSONValue, NookdCallError>) -> Void) {
            nookd.call(request) { result in
                if case .list(_, 0, nil, _) = request.operation, !self.ended {
                    self.ended = true
                    self.nookd.call(Request(id: nil, operation: .cancel(self.ending))) { _ in }
                }
                done(result)
            }
        }
    }

    @Test func h2_aClearFindsItsCardThoughACardAheadEndedWhileTheListWasReadPageByPage() throws {
        let nookd = try PublishNookd()
        let routes = publishRoutes(nookd, topics: ["home": nil])
        let title = String(repeating: "🔔", count: NookActivity.Limits.titleCharacters)
        let body = String(repeating: "🔔", count: NookActivity.Limits.subtitleCharacters)
        for index in 0..<200 {
            let sent = try routes.call("POST", "/{topic}", httpRequest("POST", "/home", headers: [("Title", title), ("X-Sequence-ID", "s\(index)"), ("Priority", "5")],
                                                                      body: body), parameters: ["topic": "home"])
            try #require(sent.status == 200, "\(sent.json.serialized)")
        }
        let firstPage = try ListAnswer(json: nookd.request(.list(module: nil)))
        let boundary = try #require(firstPage.cursor.flatMap(ListCursor.init(text:)), "the cards fit in one page; the test needs more")
        let listed = try nookd.cards()
        let secondPage = try ListAnswer(json: nookd.request(.list(module: nil, after: boundary))).modules.flatMap(\.pending)
        let first = try #require(secondPage.first?.coalescingKey, "no card starts the second page")
        let sequence = String(first.split(separator: "/").last ?? "")
        let racing = CardEndsBetweenPages(BlockingNookdCalls(socket: nookd.socket), ending: try #require(listed.dropFirst().first?.id))
        let raced = RouteCaller(routes: routes.routes, nookd: racing)
        let cleared = try raced.call("PUT", "/{topic}/{sequence}/clear", httpRequest("PUT", "/home/\(sequence)/clear"),
                                     parameters: ["topic": "home", "sequence": sequence])
        #expect(cleared.status == 200)
        #expect(cleared.json["nook"]?["ended"]?.numberValue == 1, "\(cleared.json.serialized)")
        #expect(!(try nookd.client().list(module: nil).0.modules.flatMap(\.pending).contains { $0.coalescingKey == first }))
    }

    @Test func h2_anUnknownTopicIsA404NamingItAndQueuesNothing() throws {
        let nookd = try PublishNookd()
        let routes = publishRoutes(nookd, topics: ["home": nil])
        let response = try routes.call("POST", "/{topic}", httpRequest("POST", "/garage", body: "open"), parameters: ["topic": "garage"])
        #expect(response.status == 404)
        #expect(response.json["error"]?["field"]?.text == "topic")
        #expect(response.json["error"]?["message"]?.text?.contains("'garage'") == true)
        #expect(try nookd.cards().isEmpty)
    }

    @Test func h2_aTopicWhoseModuleNookdDoesNotHaveIsRefusedAsTheNativeAPIRefusesIt() throws {
        let nookd = try PublishNookd()
        let routes = publishRoutes(nookd, topics: ["home": "nosuchmodule"])
        let response = try routes.call("POST", "/{topic}", httpRequest("POST", "/home", body: "hi"), parameters: ["topic": "home"])
        // nookd refuses a module it does not have, and says so through nook-http as the
        // native API does: the same status and word for the same refusal, the field the
        // sender's own (the topic, which the board sends to that module).
        #expect(response.status == 422)
        #expect(response.json["error"]?["code"]?.text == "unknown_module")
        #expect(response.json["error"]?["field"]?.text == "topic")
        #expect(response.json["error"]?["message"]?.text?.contains("no module 'nosuchmodule'") == true)
    }

    @Test func h2_badInputGetsAnErrorAndLosesNothingQueued() throws {
        let nookd = try PublishNookd()
        let routes = publishRoutes(nookd)
        #expect(try routes.call("POST", "/{topic}", httpRequest("POST", "/t", headers: [("Priority", "5")], body: "keep me"), parameters: ["topic": "t"]).status == 200)
        let bad = [
            try routes.call("POST", "/", httpRequest("POST", "/", body: "{\"message\": \"no topic\"}")),
            try routes.call("POST", "/{topic}", httpRequest("POST", "/t", headers: [("Priority", "11")], body: "x"), parameters: ["topic": "t"]),
            try routes.call("POST", "/message", httpRequest("POST", "/message", headers: [("Content-Type", "application/json")], body: "{\"title\": 3}")),
            try routes.call("POST", "/api/notify", httpRequest("POST", "/api/notify", body: "[]")),
        ]
        #expect(bad.map(\.status) == [400, 400, 400, 400])
        #expect(try nookd.cards().map(\.title) == ["keep me"])
    }

    @Test func h2_aNULInPublishedTextIsA400NamingItsFieldDecidedBeforeNookdIsAsked() throws {
        let nookd = try PublishNookd()
        let routes = publishRoutes(nookd)
        #expect(try routes.call("POST", "/{topic}", httpRequest("POST", "/t", headers: [("Priority", "5")], body: "keep me"), parameters: ["topic": "t"]).status == 200)
        func ntfy(query: [(String, String)] = [], headers: [(String, String)] = [], body: String) throws -> HTTPResponse {
            let request = HTTPRequest(method: "POST", path: "/t", query: query.map { (name: $0.0, value: $0.1) },
                                      headers: headers.map { (name: $0.0, value: $0.1) }, body: Array(body.utf8))
            return try routes.call("POST", "/{topic}", request, parameters: ["topic": "t"])
        }
        let refused: [(answer: HTTPResponse, field: String)] = [
            (try ntfy(body: "a\u{0}b"), "message"),
            (try ntfy(query: [("message", "a\u{0}b")], body: ""), "message"),
            (try ntfy(query: [("title", "a\u{0}b")], body: "x"), "title"),
            // RFC 2047: "a\0b" in base64.
            (try ntfy(headers: [("Title", "=?UTF-8?B?YQBi?=")], body: "x"), "title"),
            (try ntfy(query: [("tags", "ok,a\u{0}b")], body: "x"), "tags"),
            (try routes.call("POST", "/message", httpRequest("POST", "/message", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                              body: "title=t&message=a%00b")), "message"),
            (try routes.call("POST", "/message", httpRequest("POST", "/message", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                              body: "title=a%00b&message=m")), "title"),
        ]
        for (answer, field) in refused {
            #expect(answer.status == 400 && answer.json["error"]?["field"]?.text == field && answer.json["error"]?["code"]?.text == "invalid_field",
                    "\(field): \(answer.status) \(answer.json)")
            #expect(answer.json["error"]?["message"]?.text?.contains("NUL") == true)
        }
        // JSON bodies: the parser refuses the escape, naming the body.
        let json = [
            try routes.call("POST", "/", httpRequest("POST", "/", body: #"{"topic": "t", "message": "a\u0000b"}"#)),
            try routes.call("POST", "/message", httpRequest("POST", "/message", headers: [("Content-Type", "application/json")], body: #"{"message": "a\u0000b"}"#)),
            try routes.call("POST", "/api/notify", httpRequest("POST", "/api/notify", body: #"{"text": "a\u0000b"}"#)),
        ]
        for answer in json {
            #expect(answer.status == 400 && answer.json["error"]?["code"]?.text == "malformed_json" && answer.json["error"]?["field"]?.text == "body",
                    "\(answer.json)")
        }
        #expect(try nookd.cards().map(\.title) == ["keep me"])
    }

    @Test func h2_publishingToOneOfNookHTTPsOwnPathsIsA404NamingThePathNotAMalformedTopic() throws {
        let nookd = try PublishNookd()
        let routes = publishRoutes(nookd)
        for (path, parameters) in [("/api", ["topic": "api"]), ("/page", ["topic": "page"])] {
            let answer = try routes.call("POST", "/{topic}", httpRequest("POST", path, body: "x"), parameters: parameters)
            let message = answer.json["error"]?["message"]?.text ?? ""
            #expect(answer.status == 404 && answer.json["error"]?["code"]?.text == "not_found", "\(answer.json)")
            #expect(message.contains("nothing is served at \(path)") && message.contains("own paths") && !message.contains("letters, digits"), "\(message)")
        }
        let deeper = try routes.call("DELETE", "/{topic}/{sequence}", httpRequest("DELETE", "/api/x"), parameters: ["topic": "api", "sequence": "x"])
        #expect(deeper.status == 404 && deeper.json["error"]?["message"]?.text?.contains("nothing is served at /api/x") == true, "\(deeper.json)")
        let named = try routes.call("POST", "/", httpRequest("POST", "/", body: #"{"topic": "healthz", "message": "x"}"#))
        #expect(named.status == 404 && named.json["error"]?["field"]?.text == "topic", "\(named.json)")
        #expect(named.json["error"]?["message"]?.text?.contains("own paths") == true, "\(named.json)")
        #expect(try nookd.cards().isEmpty)
    }

    @Test func h2_gotifyAndAWTRIXMessagesAreCards() throws {
        let nookd = try PublishNookd()
        let routes = publishRoutes(nookd)
        let gotify = try routes.call("POST", "/message", httpRequest("POST", "/message", headers: [("Content-Type", "application/json")],
                                                                     body: #"{"title": "Backup failed", "message": "vzdump 101", "priority": 10}"#))
        #expect(gotify.status == 200)
        #expect(gotify.json["id"]?.numberValue == 1)
        #expect(gotify.json["date"]?.text == "2023-11-14T22:13:20Z")
        let awtrix = try routes.call("POST", "/api/notify", httpRequest("POST", "/api/notify", body: ##"{"text": "Hello, AWTRIX 3!", "color": "#FF0000", "duration": 30}"##))
        #expect(awtrix.status == 200)
        #expect(awtrix.body == Array("OK".utf8))
        let cards = try nookd.cards()
        #expect(cards.map(\.title) == ["Backup failed", "Hello, AWTRIX 3!"])
        #expect(cards.first?.isBlocker == true)
        #expect(cards.last?.tint == .rgb(red: 255, green: 0, blue: 0))
        #expect(cards.last?.dwell == .seconds(30))
    }

    @Test func b4_h2_anAWTRIXNotificationsSoundIsTheSoundOfTheCardNookdHolds() throws {
        let nookd = try PublishNookd()
        let routes = publishRoutes(nookd)
        let melody = "two short:d=4,o=5,b=100:16e6,16e6"
        let body = #"{"text": "Door", "rtttl": "\#(melody)", "sound": "mario", "loopSound": true}"#
        let answer = try routes.call("POST", "/api/notify", httpRequest("POST", "/api/notify", body: body))
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(answer.status == 200 && text.hasPrefix("OK"), "\(text)")
        #expect(text.contains("sound 'mario' not played: rtttl was given too") && !text.contains("loopSound"), "\(text)")
        let card = try #require(try nookd.cards().first { $0.title == "Door" })
        #expect(card.sound == melody && card.soundRepeat == .untilEngaged, "\(card)")
    }

    @Test func h2_nookdGoneIsA503WithRetryAfter() throws {
        let routes = RouteCaller(routes: PublishRoutes.routes(settings: PublishSettings(), logger: RouteCaller.logger),
                                 nookd: BlockingNookdCalls(socket: "/tmp/nook-publish-nobody-\(getpid())/nookd.sock"))
        let response = try routes.call("POST", "/{topic}", httpRequest("POST", "/t", body: "x"), parameters: ["topic": "t"])
        #expect(response.status == 503)
        #expect(response.headers.contains { $0.name == "Retry-After" })
        #expect(response.json["error"]?["code"]?.text == "nookd_unavailable")
    }
}

@Suite(.serialized, .ownThreads) struct AlertRoutesTests {
    @Test func h3_aGroupIsOneCardThatCountsUpdatesInPlaceIgnoresRepeatsAndEndsWhenResolved() throws {
        let nookd = try PublishNookd()
        let watch = try nookd.watch()
        let routes = RouteCaller(routes: AlertRoutes.routes(logger: RouteCaller.logger), nookd: BlockingNookdCalls(socket: nookd.socket))
        func post(_ body: [UInt8]) throws -> HTTPResponse {
            try routes.call("POST", "/api/v1/alertmanager", HTTPRequest(method: "POST", path: "/api/v1/alertmanager", body: body))
        }
        let one = try post(AlertBodies.alertmanager(alerts: [AlertBodies.alert("HighLoad", instance: "web1", severity: "critical")]))
        #expect(one.json["status"]?.text == "shown")
        let id = try #require(one.json["activity"]?.text)
        let three = AlertBodies.alertmanager(alerts: ["web1", "web2", "web3"].map { AlertBodies.alert("HighLoad", instance: $0, severity: "critical") })
        #expect(try post(three).json["status"]?.text == "updated")
        var cards = try nookd.cards()
        #expect(cards.count == 1)
        #expect(cards.first?.id.description == id)
        #expect(cards.first?.title == "HighLoad: 3 firing")
        let updates = try watch.events { $0.id.description == id && $0.name == "updated" }
        #expect(updates.filter { $0.name == "enqueued" }.map(\.id.description) == [id])

        // The same group again: nookd sees nothing at all.
        #expect(try post(three).json["status"]?.text == "unchanged")
        #expect(try watch.changesBeforeMarker(nookd).isEmpty)

        let resolved = AlertBodies.alertmanager(status: "resolved", alerts: ["web1", "web2", "web3"].map {
            AlertBodies.alert("HighLoad", instance: $0, severity: "critical", status: "resolved")
        })
        #expect(try post(resolved).json["ended"]?.numberValue == 1)
        let ending = try watch.events { $0.id.description == id && $0.ending != nil }
        #expect(ending.last?.reason == "cancelled")
        cards = try nookd.cards()
        #expect(!cards.contains { $0.id.description == id })
        let history = try nookd.request(.history(HistoryQuery()))
        #expect(history.serialized.contains("HighLoad: 3 firing"))
    }

    @Test func h3_aRepeatAfterTheCardWasDismissedDoesNotBringItBack() throws {
        let nookd = try PublishNookd()
        let watch = try nookd.watch()
        let routes = RouteCaller(routes: AlertRoutes.routes(logger: RouteCaller.logger), nookd: BlockingNookdCalls(socket: nookd.socket))
        let body = AlertBodies.grafana(alerts: [AlertBodies.alert("DiskFull", instance: "nas", severity: "critical")])
        let request = HTTPRequest(method: "POST", path: "/api/v1/grafana", body: body)
        let first = try routes.call("POST", "/api/v1/grafana", request)
        let id = try #require(first.json["activity"]?.text)
        try nookd.request(.dismiss(NookActivityID(id)))
        _ = try watch.events { $0.id.description == id && $0.ending != nil }
        #expect(try routes.call("POST", "/api/v1/grafana", request).json["status"]?.text == "unchanged")
        #expect(try watch.changesBeforeMarker(nookd).isEmpty)
        // A change to the group shows it again, as a new card.
        let changed = AlertBodies.grafana(alerts: [AlertBodies.alert("DiskFull", instance: "nas", severity: "critical"),
                                                   AlertBodies.alert("DiskFull", instance: "backup", severity: "critical")])
        #expect(try routes.call("POST", "/api/v1/grafana", HTTPRequest(method: "POST", path: "/api/v1/grafana", body: changed)).json["status"]?.text == "shown")
    }

    @Test func h3_nookdItselfMakesAnUpdateThatChangesNothingANoOp() throws {
        // nook-http's memory left out (a fresh one per call, as after a restart): the repeat
        // reaches nookd as an update, and nookd neither redraws nor reports it.
        let nookd = try PublishNookd()
        let watch = try nookd.watch()
        let body = AlertBodies.alertmanager(alerts: ["web1", "web2"].map { AlertBodies.alert("HighLoad", instance: $0, severity: "critical") })
        func post() throws -> HTTPResponse {
            let routes = RouteCaller(routes: AlertRoutes.routes(memory: AlertCardMemory(), logger: RouteCaller.logger), nookd: BlockingNookdCalls(socket: nookd.socket))
            return try routes.call("POST", "/api/v1/alertmanager", HTTPRequest(method: "POST", path: "/api/v1/alertmanager", body: body))
        }
        let id = try #require(try post().json["activity"]?.text)
        _ = try watch.events { $0.id.description == id && $0.name == "presented" }
        let again = try post()
        #expect(again.json["status"]?.text == "updated")
        #expect(again.json["activity"]?.text == id)
        #expect(try watch.changesBeforeMarker(nookd).isEmpty)
    }
}
