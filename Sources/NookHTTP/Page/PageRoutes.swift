/// The page (V2): `GET /` and its assets under `/page/`, served from the binary itself.
///
/// Every answer carries a Content-Security-Policy that allows only this origin's own script,
/// style and API (no inline script, no other site, no framing), an ETag (a hash of the bytes),
/// and `Cache-Control: no-cache`, so a browser keeps the page but asks again, and gets a
/// 304, after nook-http was upgraded.
public enum PageRoutes {
    public static func routes() -> [HTTPRoute] {
        PageAssets.all.map { asset in
            HTTPRoute("GET", asset.path, scope: .read, isPublic: true) { exchange, _, _ in
                exchange.respond(response(for: asset, ifNoneMatch: exchange.request.header("If-None-Match")))
            }
        }
    }

    /// `img-src blob:`: the live glass is fetched with the token's header and shown from a blob.
    public static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; "
        + "img-src 'self' blob:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

    static func response(for asset: PageAsset, ifNoneMatch: String?) -> HTTPResponse {
        var headers: [(name: String, value: String)] = [
            ("Content-Security-Policy", contentSecurityPolicy),
            ("Cache-Control", "no-cache"),
            ("ETag", asset.etag),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
        ]
        if let ifNoneMatch, matches(ifNoneMatch, etag: asset.etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        headers.insert(("Content-Type", asset.contentType), at: 0)
        return HTTPResponse(status: 200, headers: headers, body: asset.bytes)
    }

    /// `If-None-Match` holds `*` or a list of tags, each perhaps weak (`W/"…"`).
    static func matches(_ field: String, etag: String) -> Bool {
        field.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: " \t")
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == "*" || tag == etag
        }
    }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
