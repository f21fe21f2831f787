import Testing
import NookHTTP
import NookProtocol

/// A request answered in memory: what a page route responded.
private final class PageTestExchange: HTTPExchange {
    let request: HTTPRequest
    let caller = HTTPCaller(name: "local", scopes: Set(HTTPScope.allCases))
    var isOpen: Bool { true }
    private(set) var responses: [HTTPResponse] = []

    init(_ request: HTTPRequest) { self.request = request }
    func respond(_ response: HTTPResponse) { responses.append(response) }
    func startStream(status: Int, headers: [(name: String, value: String)]) -> any HTTPStreamWriter {
        Issue.record("a page route started a stream")
        return NoStream()
    }
    final class NoStream: HTTPStreamWriter {
        func send(_ bytes: [UInt8]) -> Bool { false }
        func finish() {}
    }
}

/// Page routes never call nookd.
private final class PageRefusingNookd: NookdCalls {
    func call(_ request: Request, done: @escaping (Result<JSONValue, NookdCallError>) -> Void) {
        Issue.record("a page route called nookd")
        done(.failure(.unavailable("not in this test")))
    }
}

@Suite struct PageRoutesTests {
    func get(_ path: String, headers: [(name: String, value: String)] = []) throws -> HTTPResponse {
        let route = try #require(PageRoutes.routes().first { $0.method == "GET" && $0.pattern == path })
        let exchange = PageTestExchange(HTTPRequest(method: "GET", path: path, headers: headers))
        route.handler(exchange, [:], PageRefusingNookd())
        #expect(exchange.responses.count == 1)
        return try #require(exchange.responses.first)
    }

    func header(_ response: HTTPResponse, _ name: String) -> String? {
        response.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    @Test func v2_thePageAndItsAssetsWeighAtMost100KiB() {
        #expect(PageAssets.all.count >= 3)
        #expect(PageAssets.totalBytes <= 100 * 1024, "the page weighs \(PageAssets.totalBytes) bytes")
    }

    @Test func v2_theRootServesTheDocumentUnderAStrictPolicy() throws {
        let response = try get("/")
        #expect(response.status == 200)
        #expect(header(response, "Content-Type") == "text/html; charset=utf-8")
        let policy = try #require(header(response, "Content-Security-Policy"))
        #expect(policy.contains("default-src 'none'"))
        #expect(policy.contains("script-src 'self'"))
        #expect(policy.contains("frame-ancestors 'none'"))
        #expect(!policy.contains("unsafe"))
        #expect(header(response, "Cache-Control") == "no-cache")
        #expect(header(response, "X-Content-Type-Options") == "nosniff")
        #expect(String(decoding: response.body, as: UTF8.self).hasPrefix("<!doctype html>"))
    }

    /// The policy forbids inline script and style, so the document must hold none: a `<script>`
    /// without `src`, a `style` element or attribute, or an `on…=` handler would be refused.
    @Test func v2_theDocumentHasNoInlineScriptOrStyle() throws {
        let html = String(decoding: try get("/").body, as: UTF8.self).lowercased()
        for script in html.components(separatedBy: "<script").dropFirst() {
            let tag = script.prefix { $0 != ">" }
            #expect(tag.contains("src=\"/page/"), "inline script: <script\(tag)>")
        }
        #expect(!html.contains("<style"))
        #expect(!html.contains(" style="))
        #expect(!html.contains("javascript:"))
        for attribute in [" onclick=", " onload=", " onsubmit=", " onerror=", " oninput=", " onchange=", " onkeydown="] {
            #expect(!html.contains(attribute), "inline handler \(attribute)")
        }
    }

    @Test func v2_everyAssetTheDocumentNamesIsServed() throws {
        let html = String(decoding: try get("/").body, as: UTF8.self)
        let named = html.components(separatedBy: "\"/page/").dropFirst().map { "/page/" + $0.prefix { $0 != "\"" } }
        #expect(Set(named) == Set(PageAssets.all.map(\.path).filter { $0 != "/" }))
        for path in named {
            let response = try get(path)
            #expect(response.status == 200)
            #expect(!response.body.isEmpty)
        }
        #expect(header(try get("/page/page.js"), "Content-Type") == "text/javascript; charset=utf-8")
        #expect(header(try get("/page/page.css"), "Content-Type") == "text/css; charset=utf-8")
    }

    @Test func v2_aBrowserHoldingTheSameBytesGetsNotModified() throws {
        let first = try get("/page/page.js")
        let etag = try #require(header(first, "ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 18)
        let again = try get("/page/page.js", headers: [("If-None-Match", etag)])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(header(again, "ETag") == etag)
        #expect(try get("/page/page.js", headers: [("if-none-match", "\"0\", W/\(etag)")]).status == 304)
        #expect(try get("/page/page.js", headers: [("If-None-Match", "*")]).status == 304)
        #expect(try get("/page/page.js", headers: [("If-None-Match", "\"0000000000000000\"")]).status == 200)
        #expect(try get("/page/page.js", headers: [("If-None-Match", "")]).status == 200)
        let etags = Set(PageAssets.all.map(\.etag))
        #expect(etags.count == PageAssets.all.count)
    }

    /// Every control the script wires up exists in the document, so a renamed id fails here
    /// rather than as a dead button in the browser.
    @Test func v2_everyElementTheScriptNamesIsInTheDocument() throws {
        let html = String(decoding: try get("/").body, as: UTF8.self)
        let script = String(decoding: try get("/page/page.js").body, as: UTF8.self)
        let ids = script.components(separatedBy: "$('").dropFirst().map { String($0.prefix { $0 != "'" }) }
        #expect(ids.count > 20)
        for id in Set(ids) {
            #expect(html.contains("id=\"\(id)\""), "the script uses #\(id), which the document lacks")
        }
    }
}
