import NookActivities
import NookHTTP
import NookProtocol
import NookTestSupport
import Testing

/// H3 when Alertmanager's notifications of a group arrive out of order (it retries, and a retry
/// may come after the group's later notifications): ordered by the alerts' own `startsAt` and
/// `endsAt`, a firing older than its group's resolve never makes or revives a card, and a later
/// genuine firing still does.
enum AlertOrderBodies {
    static let group = #"{}:{alertname="HighLoad"}"#

    static func firing(_ instances: [(String, String)], groupKey: String = group) -> [UInt8] {
        AlertBodies.alertmanager(alerts: instances.map { AlertBodies.alert("HighLoad", instance: $0.0, severity: "critical", startsAt: $0.1) },
                                 groupKey: groupKey)
    }

    static func resolved(_ instances: [(String, String, String)], groupKey: String = group) -> [UInt8] {
        AlertBodies.alertmanager(status: "resolved", alerts: instances.map {
            AlertBodies.alert("HighLoad", instance: $0.0, severity: "critical", status: "resolved", startsAt: $0.1, endsAt: $0.2)
        }, groupKey: groupKey)
    }

    /// A group's notifications in the order Alertmanager sent them: web1 fires, web2 joins,
    /// web1 ends while web2 still fires, both ended.
    static func sequence(groupKey: String = group) -> [(name: String, body: [UInt8])] {
        let one = ("web1", "2026-11-26T01:00:00Z"), two = ("web2", "2026-11-26T01:00:02.5Z")
        let mixed = AlertBodies.alertmanager(alerts: [
            AlertBodies.alert("HighLoad", instance: "web1", severity: "critical", status: "resolved", startsAt: one.1, endsAt: "2026-11-26T01:00:10Z"),
            AlertBodies.alert("HighLoad", instance: "web2", severity: "critical", startsAt: two.1),
        ], groupKey: groupKey)
        return [
            ("firing-A", firing([one], groupKey: groupKey)),
            ("firing-A+B", firing([one, two], groupKey: groupKey)),
            ("resolved-A,firing-B", mixed),
            ("resolved-A+B", resolved([(one.0, one.1, "2026-11-26T01:00:10Z"), (two.0, two.1, "2026-11-26T01:00:20.000001Z")], groupKey: groupKey)),
        ]
    }

    static func permutations<T>(_ items: [T]) -> [[T]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }
}

@Suite struct AlertEpisodesTests {
    /// No time passes: what is judged here is the order, never how long a loaded machine took
    /// between two notifications (the retry window has tests of its own, on a manual clock).
    static let frozen: @Sendable () -> Duration = { .zero }

    @Test func h3_alertTimesCompareWhateverTheirFractionOrOffset() throws {
        let whole = try #require(AlertTime("2026-11-26T01:00:07Z"))
        let half = try #require(AlertTime("2026-11-26T01:00:07.5Z"))
        #expect(whole < half, "text comparison gets this one wrong")
        #expect(AlertTime("2026-11-26T02:00:07.5+01:00") == half)
        #expect(AlertTime("2026-11-26T01:00:07.500000000Z") == half)
        #expect(AlertTime("1970-01-01T00:00:00Z")?.seconds == 0)
        #expect(AlertTime("2000-03-01T00:00:00Z")?.seconds == 951_868_800)
        #expect(AlertTime("0001-01-01T00:00:00Z") == nil, "Go's zero time: no time")
        for bad in ["", "yesterday", "2026-11-26", "2026-11-26T01:00:07", "2026-13-26T01:00:07Z", "2026-11-26T01:00:07.Z", "2026-11-26T01:00:07Zjunk"] {
            #expect(AlertTime(bad) == nil, "\(bad)")
        }
    }

    func admit(_ episodes: AlertEpisodes, _ body: [UInt8]) throws -> AlertEpisodes.Admission {
        episodes.admit(try AlertNotification.decode(body, source: .alertmanager).get(), key: "group")
    }

    @Test func h3_aFiringOlderThanItsGroupsResolveIsStaleAndALaterFiringIsNot() throws {
        let episodes = AlertEpisodes(clock: Self.frozen)
        let steps = AlertOrderBodies.sequence()
        for step in steps { if case .stale = try admit(episodes, step.body) { Issue.record("\(step.name) in order is not stale") } }
        // Retries of the earlier ones, after the resolve.
        #expect(try admit(episodes, steps[0].body) == .stale(1))
        #expect(try admit(episodes, steps[1].body) == .stale(2))
        // web1 fires again after it ended: a new episode.
        let again = AlertOrderBodies.firing([("web1", "2026-11-26T01:05:00Z")])
        #expect(try admit(episodes, again) == .admitted, "a genuine firing")
        // The group's resolve, retried now, is about the episode before: it ends nothing
        // (web1's part of it is older than web1's new firing).
        #expect(try admit(episodes, steps[3].body) == .stale(1))
        #expect(try admit(episodes, again) == .admitted, "a repeat of the new firing")
    }

    @Test func h3_aResolveWhoseEndIsBeforeItsAlertsStartStillEndsTheFiringsSeenBeforeIt() throws {
        // `amtool alert add … --end=<10 s ago>` resolves an alert that started 3 s ago: the
        // resolve's start and end are both before the firing's start.
        let episodes = AlertEpisodes(clock: Self.frozen)
        let firing = AlertOrderBodies.firing([("web1", "2026-11-26T01:00:00Z"), ("web2", "2026-11-26T01:00:01Z")])
        let resolved = AlertOrderBodies.resolved([("web1", "2026-11-26T00:59:53Z", "2026-11-26T00:59:53Z"),
                                                  ("web2", "2026-11-26T00:59:54Z", "2026-11-26T00:59:54Z")])
        _ = try admit(episodes, firing)
        #expect(try admit(episodes, resolved) == .admitted)
        #expect(try admit(episodes, firing) == .stale(2))
    }

    @Test func h3_theEpisodesKeptAreBounded() throws {
        let episodes = AlertEpisodes(capacity: 3, alertsPerGroup: 2, clock: Self.frozen)
        for group in 0..<10 {
            let body = AlertOrderBodies.firing([("a", "2026-11-26T01:00:00Z"), ("b", "2026-11-26T01:00:00Z"), ("c", "2026-11-26T01:00:00Z")])
            _ = episodes.admit(try AlertNotification.decode(body, source: .alertmanager).get(), key: "g\(group)")
        }
        #expect(episodes.count == 3)
    }

    /// The bounds on groups and alerts bound memory too: a sender writes a group key and each
    /// fingerprint at any length (a 64 KiB body holds one of 60 KiB), and what is kept of each
    /// is at most a digest's length; a long one is still judged as a short one is.
    @Test func h3_theEpisodesKeptAreBoundedInBytesWhateverTheKeysAndFingerprints() throws {
        let episodes = AlertEpisodes(capacity: 4, alertsPerGroup: 4, clock: Self.frozen)
        func body(_ status: String, groupKey: String, fingerprints: [String], endsAt: String = "0001-01-01T00:00:00Z") -> [UInt8] {
            let alerts = fingerprints.map { fingerprint in
                JSONValue.object([("status", .string(status)), ("labels", .object([("alertname", .string("HighLoad"))])),
                                  ("fingerprint", .string(fingerprint)), ("startsAt", .string("2026-11-26T01:00:00Z")),
                                  ("endsAt", .string(endsAt))])
            }
            return JSONValue.object([("status", .string(status)), ("groupKey", .string(groupKey)), ("alerts", .array(alerts))]).serializedBytes
        }
        func admit(_ bytes: [UInt8], key: String) throws -> AlertEpisodes.Admission {
            episodes.admit(try AlertNotification.decode(bytes, source: .alertmanager).get(), key: key)
        }
        for group in 0..<8 {
            let key = String(repeating: "k", count: 4000) + "\(group)"
            let fingerprints = (0..<8).map { String(repeating: "f", count: 4000) + "\(group)-\($0)" }
            _ = try admit(body("firing", groupKey: key, fingerprints: fingerprints), key: key)
        }
        #expect(episodes.count == 4)
        #expect(episodes.keptBytes <= 4 * (1 + 4) * (AlertEpisodes.longestKept + 1), "\(episodes.keptBytes) bytes kept")
        let key = String(repeating: "k", count: 4000) + "late"
        let fingerprint = [String(repeating: "f", count: 4000) + "late"]
        #expect(try admit(body("firing", groupKey: key, fingerprints: fingerprint), key: key) == .admitted)
        #expect(try admit(body("resolved", groupKey: key, fingerprints: fingerprint, endsAt: "2026-11-26T01:00:10Z"), key: key) == .admitted)
        #expect(try admit(body("firing", groupKey: key, fingerprints: fingerprint), key: key) == .stale(1), "the firing's retry after its resolve")
    }
}

@Suite(.serialized, .ownThreads) struct AlertOrderTests {
    /// Every order of a group's four notifications, each order its own group on one nookd:
    /// whatever came in between, after the resolve has arrived and everything else has, no card
    /// of the group is live.
    @Test func h3_inEveryOrderOfAGroupsNotificationsNoCardOutlivesTheResolve() throws {
        let nookd = try PublishNookd()
        let routes = RouteCaller(routes: AlertRoutes.routes(episodes: AlertEpisodes(clock: { .zero }), logger: RouteCaller.logger), nookd: BlockingNookdCalls(socket: nookd.socket))
        let orders = AlertOrderBodies.permutations(Array(0..<4))
        #expect(orders.count == 24)
        var keys: [String: [Int]] = [:]
        for (number, order) in orders.enumerated() {
            let groupKey = #"{}:{alertname="HighLoad",order="\#(number)"}"#
            let steps = AlertOrderBodies.sequence(groupKey: groupKey)
            for index in order {
                let answer = try routes.call("POST", "/api/v1/alertmanager", HTTPRequest(method: "POST", path: "/api/v1/alertmanager", body: steps[index].body))
                #expect(answer.status == 200, "\(order.map { steps[$0].name }): \(steps[index].name): \(answer.json)")
                if let key = answer.json["key"]?.text { keys[key] = order }
            }
        }
        #expect(keys.count == 24)
        // A card on the glass leaves through its end (it animates out): looked at until none is
        // left, or until the bound, when what is left is the failure.
        func live() throws -> [NookActivity] { try nookd.cards().filter { $0.coalescingKey?.hasPrefix("alertmanager/") == true } }
        _ = try Waiting.until(seconds: 30) { try live().isEmpty }
        let left = try live()
        let names = AlertOrderBodies.sequence().map(\.name)
        #expect(left.isEmpty, "live after: \(left.compactMap { keys[$0.coalescingKey ?? ""]?.map { names[$0] } })")

        // web1 firing again after its group's resolve is a new card.
        let inOrder = keys.first { $0.value == [0, 1, 2, 3] }?.key
        let key = try #require(inOrder)
        let groupKey = #"{}:{alertname="HighLoad",order="0"}"#
        let again = try routes.call("POST", "/api/v1/alertmanager", HTTPRequest(method: "POST", path: "/api/v1/alertmanager",
            body: AlertOrderBodies.firing([("web1", "2026-11-26T01:05:00Z")], groupKey: groupKey)))
        #expect(again.json["status"]?.text == "shown", "\(again.json)")
        #expect(try nookd.cards().map(\.coalescingKey) == [key])
        // The earlier resolve, delivered late, does not end it.
        let late = try routes.call("POST", "/api/v1/alertmanager", HTTPRequest(method: "POST", path: "/api/v1/alertmanager",
            body: AlertOrderBodies.sequence(groupKey: groupKey)[3].body))
        #expect(late.json["status"]?.text == "stale", "\(late.json)")
        #expect(try nookd.cards().map(\.coalescingKey) == [key])
    }
}
