import Foundation
import NookActivities
import NookHTTP
import NookProtocol
import NookTestSupport
import NookTestTraits
import Testing

/// H4 with U3: a token's name is its cards' sender, and a publish token changes only the cards
/// it sent, on every route that changes cards; an admin token changes any. Two real tokens
/// through the built nook-http and a real nookd, with curl.
@Suite("H4 a publish token owns the cards it sent", .serialized, .ownThreads)
struct TokenOwnershipTests {
    let alice = "nook_alice-secret-token", bob = "nook_bob-secret-token", owner = "nook_owner-secret-token"

    func service(nookdConfig: String? = nil) throws -> HTTPService {
        let tokens = NSTemporaryDirectory() + "nook-http-owner-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try """
        alice publish sha256:\(sha256Hex(alice))
        bob publish sha256:\(sha256Hex(bob))
        owner admin sha256:\(sha256Hex(owner))

        """.write(toFile: tokens, atomically: true, encoding: .utf8)
        chmod(tokens, 0o600)
        let service = try HTTPService(config: "[http]\ntokens = \"\(tokens)\"\nrate_limit_per_s = 0\n", nookdConfig: nookdConfig)
        try? FileManager.default.removeItem(atPath: tokens)
        return service
    }

    /// curl as `token`: the status and the body's JSON (a string when it is not JSON).
    func curl(_ token: String, _ method: String, _ url: String, _ body: String? = nil) throws -> (status: Int, json: JSONValue) {
        try curlJSON(as: token, method, url, body)
    }

    /// Every card nookd holds, as nookd lists it.
    func allCards(_ service: HTTPService) throws -> [JSONValue] {
        let list = try NookClient(path: service.socket).request(Request(id: .number(1), operation: .list(module: nil)))
        return (list["modules"]?.items ?? []).flatMap { module in (module["current"].map { [$0] } ?? []) + (module["pending"]?.items ?? []) }
    }

    /// The cards by title and by subtitle (an ntfy message's text).
    func cards(_ service: HTTPService) throws -> [String: JSONValue] {
        var cards: [String: JSONValue] = [:]
        for card in try allCards(service) {
            cards[card["title"]?.text ?? ""] = card
            if let subtitle = card["subtitle"]?.text { cards[subtitle] = card }
        }
        return cards
    }

    /// nookd's `queue.per_sender` gives each token a share of the queue: a token that fills its
    /// share is answered 429 `queue_full` naming the share, and another token still publishes.
    @Test func h4_q16_aTokenThatFillsItsShareLeavesRoomForTheOthers() throws {
        // nook-http runs as this test's uid: nookd is told it is the relay.
        let service = try service(nookdConfig: "[daemon]\nrelay_users = [\"\(getuid())\"]\n[queue]\nper_sender = 2\n")
        let url = service.url
        #expect(try curl(owner, "POST", url + "/api/v1/suspend").status == 200)
        for number in 1...2 {
            #expect(try curl(alice, "POST", url + "/api/v1/activities", #"{"title":"Alice \#(number)","dwell":3600}"#).status == 201)
        }
        let refused = try curl(alice, "POST", url + "/api/v1/activities", #"{"title":"Alice 3","dwell":3600}"#)
        #expect(refused.status == 429 && refused.json["error"]?["code"]?.text == "queue_full", "\(refused)")
        #expect(refused.json["error"]?["message"]?.text?.contains("sender \"alice\" (relayed by uid \(getuid())) already holds 2 pending activities") == true, "\(refused)")
        // The publishing routes answer the same.
        let ntfy = try curl(alice, "POST", url + "/builds", "Alice 4")
        #expect(ntfy.status == 429 && ntfy.json.saidError?.code == "queue_full", "\(ntfy)")
        #expect(try curl(bob, "POST", url + "/api/v1/activities", #"{"title":"Bob 1","dwell":3600}"#).status == 201, "bob's share is his own")
        let titles = try allCards(service).compactMap { $0["title"]?.text }
        #expect(Set(titles) == ["Alice 1", "Alice 2", "Bob 1"], "\(titles)")
    }

    /// A sender over a limit (its share of the queue, its share of the apps) is answered
    /// `429 Too Many Requests` with `Retry-After` and the limit named in the body, on every route
    /// family that makes a card or an app: never the 503 that says nookd is away and invites
    /// a retry at once.
    @Test func h4_q16_a1_aFullShareIs429WithRetryAfterAndTheLimitOnEveryRoute() throws {
        let service = try service(nookdConfig: "[daemon]\nrelay_users = [\"\(getuid())\"]\n[queue]\nper_sender = 1\n[apps]\nper_sender = 1\n")
        let url = service.url
        #expect(try curl(owner, "POST", url + "/api/v1/suspend").status == 200)
        #expect(try curl(alice, "POST", url + "/api/v1/activities", #"{"title":"Alice 1","dwell":3600}"#).status == 201)
        #expect(try curl(alice, "PUT", url + "/api/v1/apps/alice1", #"{"text":"A"}"#).status == 201)
        let alert = #"{"version":"4","status":"firing","receiver":"board","groupKey":"{}:{alertname=\"Disk\"}","#
            + #""alerts":[{"status":"firing","labels":{"alertname":"Disk"},"startsAt":"2026-01-01T00:00:00Z"}]}"#
        let cards: [(method: String, path: String, body: String)] = [
            ("POST", "/api/v1/activities", #"{"title":"Alice 2"}"#),
            ("POST", "/builds", "Alice 3"),
            ("POST", "/message", #"{"title":"Alice 4","message":"m"}"#),
            ("POST", "/api/notify", #"{"text":"Alice 5"}"#),
            ("POST", "/api/v1/alertmanager", alert),
            ("POST", "/api/v1/grafana", alert),
        ]
        let apps: [(method: String, path: String, body: String)] = [
            ("PUT", "/api/v1/apps/alice2", #"{"text":"A"}"#),
            ("POST", "/api/custom?name=alice3", #"{"text":"A"}"#),
        ]
        for (request, limit) in cards.map({ ($0, "queue.per_sender allows 1") }) + apps.map({ ($0, "the most apps.per_sender allows (1)") }) {
            let answer = try runProgram("/usr/bin/curl", ["-sS", "-i", "-X", request.method, "-H", "Authorization: Bearer \(alice)",
                                                          "-H", "Content-Type: application/json", "--data-binary", request.body, url + request.path])
            let (head, body) = Self.split(answer.output)
            let what = "\(request.method) \(request.path): \(answer.output.prefix(800))"
            #expect(head.first?.hasPrefix("HTTP/1.1 429 Too Many Requests") == true, "\(what)")
            #expect(head.contains("Retry-After: \(NativeAPIErrors.limitRetryAfterSeconds)"), "\(what)")
            let error = (try? JSONValue.parse(Array(body.utf8)))?.saidError
            #expect(error?.code == "queue_full" && error?.message.contains(limit) == true, "\(what)")
        }
        let titles = try allCards(service).compactMap { $0["title"]?.text }
        #expect(titles == ["Alice 1"], "nothing over the limit was made: \(titles)")
    }

    /// An answer of `curl -i`: the head's lines and the body.
    static func split(_ output: String) -> (head: [String], body: String) {
        guard let end = output.range(of: "\r\n\r\n") else { return (output.components(separatedBy: "\r\n"), "") }
        return (output[..<end.lowerBound].components(separatedBy: "\r\n"), String(output[end.upperBound...]))
    }

    @Test func h4_u3_anotherPublishTokenCannotChangeEndOrTakeOverATokensCardsAndAnAdminTokenCan() throws {
        let service = try service()
        let url = service.url
        // Everything stays pending: no card ends on its own during the test.
        #expect(try curl(owner, "POST", url + "/api/v1/suspend").status == 200)

        // Native API: alice's card, keyed.
        let created = try curl(alice, "POST", url + "/api/v1/activities", #"{"title":"Alice's","key":"shared","dwell":3600}"#)
        #expect(created.status == 201, "\(created)")
        let id = try #require(created.json["id"]?.text)

        for (method, path, body) in [("PATCH", "/api/v1/activities/\(id)", #"{"title":"Bob's now"}"#), ("POST", "/api/v1/activities/\(id)/dismiss", nil),
                                     ("DELETE", "/api/v1/activities/\(id)", nil)] {
            let refused = try curl(bob, method, url + path, body)
            #expect(refused.status == 403, "\(method) \(path): \(refused)")
            #expect(refused.json["error"]?["code"]?.text == "forbidden" && refused.json["error"]?["field"]?.text == "id", "\(refused)")
            let message = refused.json["error"]?["message"]?.text ?? ""
            #expect(message.contains(id) && message.contains("'bob'") && !message.contains("alice") && !message.contains("uid"), "\(message)")
        }
        let byKey = try curl(bob, "DELETE", url + "/api/v1/activities?key=shared")
        #expect(byKey.status == 200 && byKey.json["cancelled"]?.numberValue == 0, "\(byKey)")
        // Bob's card with the same key does not replace alice's pending one.
        #expect(try curl(bob, "POST", url + "/api/v1/activities", #"{"title":"Bob's","key":"shared","dwell":3600}"#).status == 201)
        var held = try cards(service)
        #expect(held["Alice's"] != nil && held["Bob's"] != nil && held["Bob's now"] == nil, "\(held.keys)")

        // ntfy: alice's message by sequence id; bob's clear, delete and publish under it leave it alone.
        #expect(try curl(alice, "PUT", url + "/alerts/seq1", "disk full").status == 200)
        #expect(try curl(bob, "PUT", url + "/alerts/seq1/clear").json["nook"]?["ended"]?.numberValue == 0)
        #expect(try curl(bob, "DELETE", url + "/alerts/seq1").json["nook"]?["ended"]?.numberValue == 0)
        #expect(try curl(bob, "PUT", url + "/alerts/seq1", "bob's disk").status == 200)
        held = try cards(service)
        #expect(held["disk full"] != nil && held["bob's disk"] != nil, "\(held.keys)")
        #expect(try curl(alice, "PUT", url + "/alerts/seq1", "disk fuller").status == 200, "alice's own update in place")
        held = try cards(service)
        #expect(held["disk fuller"] != nil && held["disk full"] == nil && held["bob's disk"] != nil, "\(held.keys)")

        // Alertmanager: bob's resolve of the group leaves alice's card; bob's firing is a card of its own.
        let firing = String(decoding: AlertBodies.alertmanager(alerts: [AlertBodies.alert("HighLoad", instance: "web1", severity: "critical")]), as: UTF8.self)
        let resolved = String(decoding: AlertBodies.alertmanager(status: "resolved", alerts: [AlertBodies.alert("HighLoad", instance: "web1", severity: "critical", status: "resolved")]),
                              as: UTF8.self)
        // The alert firing again later: a new episode, not a retry of the one that resolved.
        func refiring(at startsAt: String) -> String {
            String(decoding: AlertBodies.alertmanager(alerts: [AlertBodies.alert("HighLoad", instance: "web1", severity: "critical", startsAt: startsAt)]),
                   as: UTF8.self)
        }
        func alertCards() throws -> Set<String> {
            Set(try allCards(service).filter { $0["key"]?.text?.hasPrefix("alertmanager/") == true }.compactMap { $0["id"]?.text })
        }
        let alicesAlert = try curl(alice, "POST", url + "/api/v1/alertmanager", firing)
        #expect(alicesAlert.json["status"]?.text == "shown", "\(alicesAlert)")
        let bobsAlert = try curl(bob, "POST", url + "/api/v1/alertmanager", firing)
        #expect(bobsAlert.json["status"]?.text == "shown", "bob's own card, not alice's updated nor an unchanged repeat: \(bobsAlert)")
        let (alicesID, bobsID) = (try #require(alicesAlert.json["activity"]?.text), try #require(bobsAlert.json["activity"]?.text))
        #expect(try alertCards() == [alicesID, bobsID])
        #expect(try curl(bob, "POST", url + "/api/v1/alertmanager", resolved).json["ended"]?.numberValue == 1, "bob's own card")
        #expect(try alertCards() == [alicesID])
        let bobResolves = try curl(bob, "POST", url + "/api/v1/alertmanager", resolved)
        #expect(bobResolves.status == 200 && bobResolves.json["ended"]?.numberValue == 0, "\(bobResolves)")
        #expect(try alertCards() == [alicesID], "alice's card is left alone")
        let aliceResolves = try curl(alice, "POST", url + "/api/v1/alertmanager", resolved)
        #expect(aliceResolves.json["ended"]?.numberValue == 1, "\(aliceResolves)")
        #expect(try alertCards().isEmpty)
        // The admin's resolve ends alice's card: her next firing is a card again, not an
        // unchanged repeat of what the admin ended.
        #expect(try curl(alice, "POST", url + "/api/v1/alertmanager", refiring(at: "2026-11-26T01:10:00Z")).json["status"]?.text == "shown")
        #expect(try curl(owner, "POST", url + "/api/v1/alertmanager", resolved).json["ended"]?.numberValue == 1)
        let again = try curl(alice, "POST", url + "/api/v1/alertmanager", refiring(at: "2026-11-26T01:20:00Z"))
        #expect(try again.json["status"]?.text == "shown" && alertCards().count == 1, "\(again)")
        #expect(try curl(owner, "POST", url + "/api/v1/alertmanager", resolved).json["ended"]?.numberValue == 1)

        // Alice's own token changes her card; the admin token changes and ends anyone's.
        #expect(try curl(alice, "PATCH", url + "/api/v1/activities/\(id)", #"{"subtitle":"still mine"}"#).status == 200)
        let bobs = try #require(try cards(service)["Bob's"]?["id"]?.text)
        #expect(try curl(owner, "PATCH", url + "/api/v1/activities/\(bobs)", #"{"subtitle":"the owner's word"}"#).status == 200)
        #expect(try curl(owner, "POST", url + "/api/v1/activities/\(bobs)/dismiss").status == 200)
        #expect(try curl(owner, "DELETE", url + "/api/v1/activities/\(id)").status == 200)
        #expect(try curl(owner, "DELETE", url + "/alerts/seq1").json["nook"]?["ended"]?.numberValue == 2, "the admin ends both tokens' seq1 cards")
        held = try cards(service)
        #expect(held["Alice's"] == nil && held["Bob's"] == nil && held["disk fuller"] == nil && held["bob's disk"] == nil, "\(held.keys)")
        #expect(service.server.isRunning && service.nookd.isRunning)
    }
    /// ntfy answers a publish with one message. An admin's message under a sequence id changes
    /// every token's live card with it (as its clear and delete end them all, and the native
    /// API's admin reaches any card): the answer's `id` is the card first in line, and
    /// `nook.activities` names each card changed, which stay their senders'.
    @Test func h4_u3_anAdminsNtfyPublishBySequenceIDUpdatesEveryTokensCardAndTheAnswerNamesEachOne() throws {
        let service = try service()
        let url = service.url
        #expect(try curl(owner, "POST", url + "/api/v1/suspend").status == 200)
        let alices = try curl(alice, "PUT", url + "/alerts/seq2", "alice's disk")
        let bobs = try curl(bob, "PUT", url + "/alerts/seq2", "bob's disk")
        let aliceID = try #require(alices.json["nook"]?["activity"]?.text, "\(alices)")
        let bobID = try #require(bobs.json["nook"]?["activity"]?.text, "\(bobs)")
        #expect(aliceID != bobID && alices.json["nook"]?["updated"] == .bool(false))

        let admin = try curl(owner, "PUT", url + "/alerts/seq2", "the owner's word")
        #expect(admin.status == 200 && admin.json["event"]?.text == "message" && admin.json["sequence_id"]?.text == "seq2", "\(admin)")
        #expect(admin.json["nook"]?["updated"] == .bool(true) && admin.json["nook"]?["activity"]?.text == aliceID, "\(admin)")
        #expect(admin.json["id"] == alices.json["id"], "the message id is that of the card first in line: \(admin)")
        #expect(admin.json["nook"]?["activities"]?.items.compactMap(\.text) == [aliceID, bobID], "every card it changed: \(admin)")
        var held = try allCards(service)
        #expect(held.compactMap { $0["title"]?.text } == ["the owner's word", "the owner's word"], "\(held)")

        // Alice's next message under the sequence changes her card alone, and says so.
        let again = try curl(alice, "PUT", url + "/alerts/seq2", "alice again")
        #expect(again.json["nook"]?["activities"]?.items.compactMap(\.text) == [aliceID], "\(again)")
        held = try allCards(service)
        #expect(held.compactMap { $0["title"]?.text } == ["alice again", "the owner's word"], "\(held)")
        // The admin's word did not make bob's card the admin's: bob still clears it, and only it.
        #expect(try curl(bob, "PUT", url + "/alerts/seq2/clear").json["nook"]?["ended"]?.numberValue == 1)
        #expect(try allCards(service).compactMap { $0["id"]?.text } == [aliceID])
        #expect(service.server.isRunning && service.nookd.isRunning)
    }
}
