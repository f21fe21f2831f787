@testable import NookHTTP
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

    /// A path with no parameter is found without the scan over every route; an escaped letter
    /// takes the scan. Both must find the same route for every method of every such path nook-http
    /// serves, 405s and 404s alike.
    @Test func h1_aFixedPathFindsWhatTheScanFindsForEveryMethod() {
        let standard = HTTPRouteTable.standard()
        let fixed = Set(standard.routes.map(\.pattern).filter { !$0.contains("{") && $0.count > 1 })
        #expect(fixed.count > 10, "the standard table has its fixed paths")
        // Every fixed path is found without the scan (the loop below compares the two ways).
        #expect(Set(standard.literals.keys) == Set(standard.routes.filter { !$0.pattern.contains("{") && $0.refusing == nil }.map(\.pattern)))
        #expect(standard.literals["/healthz"]?["GET"] != nil)
        func said(_ match: HTTPRouteTable.Match) -> String {
            switch match {
            case .found(let route, let parameters): "found \(route.method) \(route.pattern) \(parameters)"
            case .notFound(let refusal): "404 \(refusal?.message ?? "")"
            case .methodNotAllowed(let allowed): "405 \(allowed)"
            }
        }
        for path in fixed.sorted() {
            // `/%61pi/…`: the same path with its first letter escaped.
            let first = path.dropFirst().first!
            let escaped = "/%" + String(first.asciiValue!, radix: 16) + path.dropFirst(2)
            for method in ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"] {
                let quick = standard.resolve(method: method, path: path), scanned = standard.resolve(method: method, path: escaped)
                #expect(said(quick.match) == said(scanned.match) && quick.shape == scanned.shape, "\(method) \(path)")
            }
        }
    }
}
