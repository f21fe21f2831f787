import NookHTTP
import Testing

/// Routing: method and pattern with `{name}` parameters, 404, 405 with `Allow`, HEAD (H1).
@Suite struct HTTPRouteTableTests {
    func route(_ method: String, _ pattern: String) -> HTTPRoute {
        HTTPRoute(method, pattern, scope: .read) { _, _, _ in }
    }

    let table = HTTPRouteTable([
        HTTPRoute("GET", "/api/v1/activities/{id}", scope: .read) { _, _, _ in },
        HTTPRoute("PATCH", "/api/v1/activities/{id}", scope: .publish) { _, _, _ in },
        HTTPRoute("POST", "/api/v1/activities/{id}/dismiss", scope: .publish) { _, _, _ in },
        HTTPRoute("POST", "/{topic}", scope: .publish) { _, _, _ in },
        HTTPRoute("GET", "/healthz", scope: .read) { _, _, _ in },
    ])

    @Test func h1_aPatternsParametersAreNamed() {
        guard case .found(let route, let parameters) = table.match(method: "PATCH", path: "/api/v1/activities/door 1") else { Issue.record("no match"); return }
        #expect(route.method == "PATCH" && parameters == ["id": "door 1"])
        guard case .found(let dismiss, let ids) = table.match(method: "POST", path: "/api/v1/activities/7/dismiss") else { Issue.record("no match"); return }
        #expect(dismiss.pattern.hasSuffix("dismiss") && ids == ["id": "7"])
    }

    @Test func h1_unknownPathsAre404AndOtherMethods405WithAllow() {
        guard case .notFound = table.match(method: "GET", path: "/api/v2/nothing") else { Issue.record("found"); return }
        guard case .notFound = table.match(method: "GET", path: "/api/v1/activities/") else { Issue.record("an empty id matched"); return }
        guard case .methodNotAllowed(let allowed) = table.match(method: "DELETE", path: "/api/v1/activities/7") else { Issue.record("not 405"); return }
        #expect(allowed == ["GET", "PATCH", "HEAD"])
    }

    @Test func h1_headIsAnsweredByTheGetRouteAndFixedPathsWinOverParameters() {
        guard case .found(let route, _) = table.match(method: "HEAD", path: "/healthz") else { Issue.record("no HEAD"); return }
        #expect(route.method == "GET")
        // /healthz is not ntfy's topic "healthz", for GET (fixed route) nor for POST (405 of the fixed path).
        guard case .methodNotAllowed(let allowed) = table.match(method: "POST", path: "/healthz") else { Issue.record("POST /healthz went to a topic"); return }
        #expect(allowed == ["GET", "HEAD"])
        guard case .found(let topic, let parameters) = table.match(method: "POST", path: "/doorbell") else { Issue.record("no topic"); return }
        #expect(topic.pattern == "/{topic}" && parameters == ["topic": "doorbell"])
    }

    @Test func h1_thePathIsSplitBeforeItsSegmentsAreDecodedSoAnEncodedSlashStaysInItsSegment() {
        guard case .found(let route, let parameters) = table.match(method: "PATCH", path: "/api/v1/activities/door%201") else { Issue.record("no match"); return }
        #expect(route.method == "PATCH" && parameters == ["id": "door 1"], "a segment is decoded after the split")
        guard case .found(let topic, let named) = table.match(method: "POST", path: "/a%2Fb") else { Issue.record("no topic"); return }
        #expect(topic.pattern == "/{topic}" && named == ["topic": "a/b"], "one segment, its slash kept")
        // Not the dismiss route: the client asked for one segment that holds a slash.
        guard case .methodNotAllowed(let allowed) = table.match(method: "POST", path: "/api/v1/activities/7%2Fdismiss") else { Issue.record("dismissed"); return }
        #expect(allowed == ["GET", "PATCH", "HEAD"])
        guard case .found(let health, _) = table.match(method: "GET", path: "/%68ealthz") else { Issue.record("an encoded letter of a fixed segment"); return }
        #expect(health.pattern == "/healthz")
    }
}
