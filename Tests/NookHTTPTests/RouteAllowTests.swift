import Foundation
import NookHTTP
import Testing

/// H1: a 405's `Allow` names only methods that work for that very path; a path no route takes
/// is a 404 for every method (ntfy's `/{topic}` takes no `favicon.ico`).
@Suite struct RouteAllowTests {
    static let paths = ["/favicon.ico", "/robots.txt", "/alerts", "/alerts/backup", "/alerts/backup/clear", "/alerts/bad.sequence",
                        "/alerts/trigger", "/alerts/publish", "/alerts/send", "/api/trigger",
                        "/api", "/page", "/healthz", "/message", "/api/notify", "/api/v1/status", "/api/v1/activities",
                        "/api/v1/activities/7", "/a%2Fb", "/.well-known/security.txt", "/", "/page/page.js"]
    static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]

    /// Every method a 405 names is then served by a route for that path, never a 404.
    @Test(arguments: [PublishSettings(), PublishSettings(topics: ["alerts": nil])])
    func h1_everyMethodA405AllowsIsOneARouteTakesForThatPath(settings: PublishSettings) {
        var config = HTTPConfig()
        config.publish = settings
        let table = HTTPRouteTable.standard(config: config)
        for path in Self.paths {
            for method in Self.methods {
                guard case .methodNotAllowed(let allowed) = table.match(method: method, path: path) else { continue }
                for other in allowed {
                    guard case .found = table.match(method: other, path: path) else {
                        Issue.record("\(method) \(path): 405 with Allow: \(allowed.joined(separator: ", ")), but \(other) \(path) is not served")
                        continue
                    }
                }
            }
        }
    }

    @Test func h1_theFaviconIsNoTopicSoEveryMethodIs404() {
        let table = HTTPRouteTable.standard()
        for method in Self.methods {
            guard case .notFound = table.match(method: method, path: "/favicon.ico") else {
                Issue.record("\(method) /favicon.ico: \(table.match(method: method, path: "/favicon.ico"))"); continue
            }
        }
        // POST names why: the route for topics was there, the name is none.
        guard case .notFound(let refusal?) = table.match(method: "POST", path: "/favicon.ico") else { Issue.record("no reason"); return }
        #expect(refusal.status == 404 && refusal.message.contains("is not a topic"), "\(refusal)")
        // A topic's path still names ntfy's methods for another one.
        guard case .methodNotAllowed(let allowed) = table.match(method: "GET", path: "/alerts") else { Issue.record("GET /alerts"); return }
        #expect(allowed == ["POST", "PUT"])
    }

    /// ntfy's webhook paths publish with GET, POST and PUT; a HEAD must change nothing, so it is
    /// no GET there, and the word is no sequence id for the other methods either.
    @Test func h2_ntfysWebhookPathsTakeGETPOSTAndPUTButNoHEAD() {
        let table = HTTPRouteTable.standard()
        for word in ["publish", "send", "trigger"] {
            for method in ["GET", "POST", "PUT"] {
                guard case .found(let route, let parameters) = table.match(method: method, path: "/alerts/\(word)") else {
                    Issue.record("\(method) /alerts/\(word): \(table.match(method: method, path: "/alerts/\(word)"))"); continue
                }
                #expect(route.pattern == "/{topic}/\(word)" && parameters == ["topic": "alerts"] && route.changesSomething)
            }
            guard case .methodNotAllowed(let allowed) = table.match(method: "HEAD", path: "/alerts/\(word)") else {
                Issue.record("HEAD /alerts/\(word): \(table.match(method: "HEAD", path: "/alerts/\(word)"))"); continue
            }
            #expect(allowed == ["GET", "POST", "PUT"])
        }
        // Other GETs still answer HEAD.
        guard case .found(let page, _) = table.match(method: "HEAD", path: "/") else { Issue.record("HEAD /"); return }
        #expect(page.method == "GET" && !page.changesSomething)
    }

    /// With topics configured, one the board does not take is no path of ntfy's either.
    @Test func h1_aTopicTheBoardDoesNotTakeIs404ForEveryMethodSayingWhichItTakes() {
        var config = HTTPConfig()
        config.publish = PublishSettings(topics: ["alerts": nil])
        let table = HTTPRouteTable.standard(config: config)
        guard case .notFound = table.match(method: "GET", path: "/other") else { Issue.record("GET /other"); return }
        guard case .notFound(let refusal?) = table.match(method: "PUT", path: "/other") else { Issue.record("PUT /other"); return }
        #expect(refusal.message.contains("it takes alerts"), "\(refusal)")
    }
}

/// The same through the built nook-http, as a browser asks for the tab's icon.
@Suite("H1 favicon and Allow against the built nook-http", .serialized, .ownThreads)
struct RouteAllowEndToEndTests {
    @Test func h1_getAndPostOfFaviconAre404AndThePageNamesItsOwnIcon() throws {
        let service = try HTTPService()
        for method in ["GET", "POST"] {
            let answer = try runProgram("/usr/bin/curl", ["-sS", "-i", "-X", method, service.url + "/favicon.ico"])
            #expect(answer.output.hasPrefix("HTTP/1.1 404"), "\(method): \(answer.output)")
            #expect(!answer.output.lowercased().contains("\nallow:"), "\(method): \(answer.output)")
        }
        let page = try runProgram("/usr/bin/curl", ["-sS", service.url + "/"]).output
        #expect(page.contains(#"<link rel="icon" href="/page/icon.svg""#), "\(page.prefix(600))")
        let icon = try runProgram("/usr/bin/curl", ["-sS", "-i", service.url + "/page/icon.svg"]).output
        #expect(icon.hasPrefix("HTTP/1.1 200") && icon.contains("Content-Type: image/svg+xml") && icon.contains("<svg"), "\(icon)")
    }
}
