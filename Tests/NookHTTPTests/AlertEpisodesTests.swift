import NookActivities
import NookHTTP
import NookProtocol
import NookTestSupport
import Testing

/// H3 when Alertmanager resolves an alert by `resolve_timeout` (its Prometheus fell silent) and
/// later hears it fire again with the same `startsAt`: that firing is byte for byte an old retry,
/// and only time tells them apart, as Alertmanager retries a notification for at most a group
/// interval. And a notification some of whose alerts are stale is carried out without them.
enum AlertEpisodeBodies {
    static func web1(_ status: String = "firing", endsAt: String = "0001-01-01T00:00:00Z") -> String {
        AlertBodies.alert("HighLoad", instance: "web1", severity: "critical", status: status, startsAt: "2026-11-26T01:00:00Z", endsAt: endsAt)
    }

    static let db1 = AlertBodies.alert("HighLoad", instance: "db1", severity: "critical", startsAt: "2026-11-26T02:00:00Z")
    static let firing = AlertBodies.alertmanager(alerts: [web1()])
    static let resolved = AlertBodies.alertmanager(status: "resolved", alerts: [web1("resolved", endsAt: "2026-11-26T01:04:00Z")])
    static let again = AlertBodies.alertmanager(alerts: [web1(), db1])
}

extension AlertEpisodesTests {
    func decoded(_ body: [UInt8]) throws -> AlertNotification { try AlertNotification.decode(body, source: .alertmanager).get() }

    @Test func h3_aFiringItsResolveEndedIsStaleOnlyWithinTheRetryWindowAndItsFreshAlertsShowMeanwhile() throws {
        let now = Locked<Duration>(.seconds(1000))
        let episodes = AlertEpisodes(retryWindow: .seconds(300), clock: { now.withLock { $0 } })
        func admit(_ body: [UInt8]) throws -> AlertEpisodes.Admission { episodes.admit(try decoded(body), key: "group") }
        #expect(try admit(AlertEpisodeBodies.firing) == .admitted)
        #expect(try admit(AlertEpisodeBodies.resolved) == .admitted)
        now.withLock { $0 += .seconds(10) }
        // web1 again with the same start, db1 new: db1 shows, web1 (as like an old retry as can be) is left out.
        let meanwhile = try admit(AlertEpisodeBodies.again)
        guard case .partlyStale(let rest, let leftOut) = meanwhile else {
            Issue.record("not partly stale: \(meanwhile)")
            return
        }
        #expect(leftOut == ["web1fp"])
        #expect(rest.alerts.map(\.fingerprint) == ["db1fp"])
        #expect(rest.firing)
        // Within the window an old retry of web1's firing is still stale.
        now.withLock { $0 += .seconds(289) }
        #expect(try admit(AlertEpisodeBodies.firing) == .stale(1))
        // Past it, no retry can be that old: web1 fires again, a new episode.
        now.withLock { $0 += .seconds(1) }
        #expect(try admit(AlertEpisodeBodies.again) == .admitted)
        #expect(try admit(AlertEpisodeBodies.firing) == .admitted, "a repeat of the new episode")
        // Its own resolve ends it, and makes its firing stale again for a window.
        let ends = AlertBodies.alertmanager(alerts: [AlertEpisodeBodies.web1("resolved", endsAt: "2026-11-26T03:00:00Z"), AlertEpisodeBodies.db1])
        #expect(try admit(ends) == .admitted)
        guard case .partlyStale(_, let late) = try admit(AlertEpisodeBodies.again) else {
            Issue.record("the new episode's firing after its resolve is not partly stale")
            return
        }
        #expect(late == ["web1fp"])
    }

    @Test func h3_aPartlyStaleNotificationIsTheGroupWithoutItsStaleAlerts() throws {
        let episodes = AlertEpisodes(clock: { .zero })
        let a = AlertBodies.alert("HighLoad", instance: "web1", severity: "critical")
        let aResolved = AlertBodies.alert("HighLoad", instance: "web1", severity: "critical", status: "resolved", endsAt: "2026-11-26T01:04:00Z")
        let b = AlertBodies.alert("HighLoad", instance: "web2", severity: "warning", summary: "web2 is slow", startsAt: "2026-11-26T01:01:00Z")
        let bResolved = AlertBodies.alert("HighLoad", instance: "web2", severity: "warning", status: "resolved",
                                          startsAt: "2026-11-26T01:01:00Z", endsAt: "2026-11-26T01:05:00Z")
        _ = episodes.admit(try decoded(AlertBodies.alertmanager(alerts: [a])), key: "g")
        _ = episodes.admit(try decoded(AlertBodies.alertmanager(status: "resolved", alerts: [aResolved])), key: "g")
        // An old retry [A firing, B firing], A resolved since: it shows B alone.
        guard case .partlyStale(let rest, _) = episodes.admit(try decoded(AlertBodies.alertmanager(alerts: [a, b])), key: "g"),
              case .show(let card, _) = AlertCards.plan(for: rest, id: NookActivityID(), module: nil) else {
            Issue.record("[A stale, B firing] shows no card")
            return
        }
        #expect(card.activity.title == "web2 is slow")
        #expect(card.activity.tint == .named(.orange), "B's severity alone")
        // [A firing (stale), B resolved]: nothing fires now, the card ends.
        guard case .partlyStale(let ended, _) = episodes.admit(try decoded(AlertBodies.alertmanager(alerts: [a, bResolved])), key: "g") else {
            Issue.record("[A stale, B resolved] is not partly stale")
            return
        }
        #expect(!ended.firing)
        #expect(AlertCards.plan(for: ended, id: NookActivityID(), module: nil) == .end(key: AlertCards.key(for: ended)))
    }
}

@Suite(.serialized, .ownThreads) struct AlertEpisodeRouteTests {
    /// Through the route to a real nookd: what shows, and what the answer says was left out.
    @Test func h3_anAlertFiringAgainAfterItsResolveShowsItsGroupAndPastTheRetryWindowItself() throws {
        let nookd = try PublishNookd()
        let now = Locked<Duration>(.seconds(1000))
        let routes = RouteCaller(routes: AlertRoutes.routes(episodes: AlertEpisodes(clock: { now.withLock { $0 } }), logger: RouteCaller.logger),
                                 nookd: BlockingNookdCalls(socket: nookd.socket))
        func post(_ body: [UInt8]) throws -> JSONValue {
            try routes.call("POST", "/api/v1/alertmanager", HTTPRequest(method: "POST", path: "/api/v1/alertmanager", body: body)).json
        }
        #expect(try post(AlertEpisodeBodies.firing)["status"]?.text == "shown")
        #expect(try post(AlertEpisodeBodies.resolved)["status"]?.text == "resolved")
        now.withLock { $0 += .seconds(10) }
        let db1 = try post(AlertEpisodeBodies.again)
        #expect(db1["status"]?.text == "shown", "\(db1)")
        #expect(db1["stale"]?.numberValue == 1)
        #expect(db1["left_out"]?.items.compactMap(\.text) == ["web1fp"])
        // web1's card may still be leaving the glass: the card looked at is the one db1 made.
        let id = try #require(db1["activity"]?.text)
        var card = try nookd.cards().first { $0.id.description == id }
        #expect(card?.title == "HighLoad")
        #expect(card?.subtitle?.contains("db1") == true, "\(String(describing: card?.subtitle))")
        // Within the window an old retry changes nothing.
        #expect(try post(AlertEpisodeBodies.firing)["status"]?.text == "stale")
        now.withLock { $0 += AlertEpisodes.defaultRetryWindow }
        let both = try post(AlertEpisodeBodies.again)
        #expect(both["status"]?.text == "updated", "\(both)")
        #expect(both["stale"] == nil)
        #expect(both["activity"]?.text == id, "updated in place")
        card = try nookd.cards().first { $0.id.description == id }
        #expect(card?.title == "HighLoad: 2 firing")
    }
}
