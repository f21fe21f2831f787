/// nook-http's routes, joined from each part's list (`HTTPCoreRoutes`, `APIRoutes`, …): a
/// request's method and path find one route and its `{name}` parameters, or a 404, or a 405
/// naming the methods the path has (H1).
public struct HTTPRouteTable {
    public private(set) var routes: [HTTPRoute]
    /// Each route's pattern cut into segments once, when added, not at every request.
    private var patterns: [[Substring]] = []
    /// The routes whose pattern has no parameter and which refuse nothing, by path and method:
    /// such a route wins outright for its own method, so most requests skip the scan.
    private(set) var literals: [String: [String: Int]] = [:]

    public init(_ routes: [HTTPRoute] = []) {
        self.routes = []
        add(routes)
    }

    /// Adds routes after those already there; the first route that matches a request wins.
    public mutating func add(_ more: [HTTPRoute]) {
        for route in more {
            precondition(!routes.contains { $0.method == route.method && $0.pattern == route.pattern },
                         "two routes for \(route.method) \(route.pattern)")
            if !route.pattern.contains("{"), route.refusing == nil { literals[route.pattern, default: [:]][route.method] = routes.count }
            routes.append(route)
            patterns.append(Self.segments(route.pattern))
        }
    }

    public enum Match {
        case found(HTTPRoute, parameters: [String: String])
        /// No route takes the path. `refusal`: the 404 of a route of the method asked whose
        /// pattern matched but which does not take these parameters (it says why).
        case notFound(refusal: HTTPAPIError?)
        case methodNotAllowed(allowed: [String])
    }

    /// HEAD is answered by the GET route (the server sends the head alone), unless that GET
    /// changes something (ntfy's publish by GET): a HEAD must not. A pattern with more
    /// fixed segments wins over one with parameters there (`/healthz` over ntfy's `/{topic}`),
    /// whatever order the parts' lists came in. `path` is the path as sent: it is split at `/`
    /// first and each segment decoded after, so `a%2Fb` is one segment, `a/b`.
    public func match(method: String, path: String) -> Match {
        resolve(method: method, path: path).match
    }

    /// The match, and whose language its answer speaks: the found route's; for a 404 the shape
    /// of the route that refused the path (ntfy's, for a name that is no topic); for a 405
    /// ntfy's when every route the path has speaks ntfy (M5: an ntfy client reads ntfy's error).
    public func resolve(method: String, path: String) -> (match: Match, shape: HTTPRouteShape) {
        // No pattern has more fixed segments than the path itself. A HEAD goes the long way
        // (its GET may not take one); an escape too (the route's path is the decoded one).
        if method != "HEAD", !path.utf8.contains(UInt8(ascii: "%")), let index = literals[path]?[method] {
            return (.found(routes[index], parameters: [:]), routes[index].shape)
        }
        let segments = Self.decodedSegments(path)
        var allowed: [String] = []
        let wanted = method == "HEAD" ? "GET" : method
        var best: (route: HTTPRoute, parameters: [String: String])?
        var bestFixed = -1
        var mostFixedAnyMethod = -1
        var candidates: [(method: String, fixed: Int, headless: Bool, shape: HTTPRouteShape)] = []
        var refused: (error: HTTPAPIError, shape: HTTPRouteShape)?
        for index in routes.indices where patterns[index].count == segments.count {
            guard let parameters = Self.parameters(parts: patterns[index], segments: segments) else { continue }
            // A route that does not take these parameters is no candidate, for a 405's `Allow`
            // either: every method `Allow` names then works for this path.
            if let refusal = routes[index].refusing?(parameters, path) {
                if routes[index].method == wanted, refused == nil { refused = (refusal, routes[index].shape) }
                continue
            }
            let fixed = segments.count - parameters.count
            mostFixedAnyMethod = max(mostFixedAnyMethod, fixed)
            let headless = routes[index].method == "GET" && routes[index].changesSomething
            candidates.append((routes[index].method, fixed, headless, routes[index].shape))
            if routes[index].method == wanted, !(method == "HEAD" && headless), fixed > bestFixed {
                (best, bestFixed) = ((routes[index], parameters), fixed)
            }
        }
        // A literal path's own methods decide a 405, not a parameter pattern's.
        if let best, bestFixed == mostFixedAnyMethod { return (.found(best.route, parameters: best.parameters), best.route.shape) }
        let allowing = candidates.filter { $0.fixed == mostFixedAnyMethod }
        for candidate in allowing where !allowed.contains(candidate.method) {
            allowed.append(candidate.method)
        }
        guard !allowed.isEmpty else { return (.notFound(refusal: refused?.error), refused?.shape ?? .native) }
        let takesHead = candidates.contains { $0.method == "GET" && !$0.headless && $0.fixed == mostFixedAnyMethod }
        if takesHead, !allowed.contains("HEAD") { allowed.append("HEAD") }
        return (.methodNotAllowed(allowed: allowed), allowing.allSatisfy { $0.shape == .ntfy } ? .ntfy : .native)
    }

    static func segments(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { $0 }
    }

    /// A raw path's segments, each percent-decoded. The parser has decoded the whole path, so
    /// each segment decodes too (an escape never spans a `/`); one that does not is kept as sent.
    static func decodedSegments(_ rawPath: String) -> [Substring] {
        segments(rawPath).map { segment in
            guard segment.contains("%") else { return segment }
            let decoded = try? HTTPRequestHead.decodePercent(ArraySlice(segment.utf8), plusIsSpace: false, what: "the path")
            return decoded.map { Substring($0) } ?? segment
        }
    }

    /// The pattern's `{name}` parameters as matched by `segments`, or nil when it does not match.
    /// A parameter matches one non-empty segment.
    static func parameters(pattern: String, segments: [Substring]) -> [String: String]? {
        parameters(parts: Self.segments(pattern), segments: segments)
    }

    /// The same with the pattern already cut into segments.
    private static func parameters(parts: [Substring], segments: [Substring]) -> [String: String]? {
        guard parts.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (part, segment) in zip(parts, segments) {
            if part.hasPrefix("{"), part.hasSuffix("}") {
                guard !segment.isEmpty else { return nil }
                parameters[String(part.dropFirst().dropLast())] = String(segment)
            } else if part != segment {
                return nil
            }
        }
        return parameters
    }

    /// `path` is the raw path, as the client sent it (escapes and all): decoded, `/a%2Fb` would
    /// read as a path of two segments and `%0A` would put a line break in the message.
    static func notFound(_ method: String, _ path: String) -> HTTPAPIError {
        HTTPAPIError(status: 404, code: "not_found", message: "nothing is served at \(PublishText.quoted(path))")
    }

    static func methodNotAllowed(_ method: String, _ path: String, allowed: [String]) -> HTTPAPIError {
        HTTPAPIError(status: 405, code: "method_not_allowed",
                     message: "\(PublishText.quoted(path)) does not take \(method); it takes \(allowed.joined(separator: ", "))",
                     headers: [("Allow", allowed.joined(separator: ", "))])
    }
}
