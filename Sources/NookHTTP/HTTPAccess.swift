import NookProtocol

/// Who may ask what (H4). With no token file only loopback clients are served, each as `local`
/// with every scope. With one, every request presents a token (Bearer, Basic's password,
/// `X-Gotify-Key`, `?token=` or ntfy's `?auth=`), compared by its SHA-256 in constant time;
/// each token has its own rate limit, and each client address a bound on the unknown tokens it
/// may try.
public final class HTTPAccess {
    public struct RateLimit: Sendable, Equatable {
        /// Requests a second a token may make on average; 0 turns the limit off.
        public var perSecond: Double
        /// Requests a token may make at once before the average applies.
        public var burst: Double
        public init(perSecond: Double = 20, burst: Double = 100) { (self.perSecond, self.burst) = (perSecond, burst) }
    }

    /// Unknown tokens one client address may present: a token bucket, `burst` at once, then
    /// one each `every`. Past it that address's requests with a token are answered 429 before
    /// the token is looked at (a right guess would otherwise tell itself apart); other
    /// addresses are not held up, and a request without a token is not a try.
    public struct FailureLimit: Sendable, Equatable {
        public var burst: Int
        public var every: Duration
        /// Addresses remembered at most; past it those with nothing against them are
        /// forgotten first, then those that tried longest ago.
        public var addresses: Int
        public init(burst: Int = 10, every: Duration = .seconds(6), addresses: Int = 4096) {
            (self.burst, self.every, self.addresses) = (burst, every, addresses)
        }
    }

    /// Replaced whole by ``replaceTokens(_:)`` (SIGHUP): a request is checked against one file.
    public private(set) var tokens: [HTTPToken]?
    public let rateLimit: RateLimit
    public let failureLimit: FailureLimit
    private var buckets: [String: (level: Double, at: Duration)] = [:]
    /// Per client address: the tries it has left and when that was reckoned.
    private var failures: [String: (left: Double, at: Duration)] = [:]
    /// How many client addresses have unknown tokens held against them (bounded by ``FailureLimit/addresses``).
    public var addressesWithFailures: Int { failures.count }

    /// - Parameter tokens: nil when no token file is configured.
    public init(tokens: [HTTPToken]?, rateLimit: RateLimit = RateLimit(), failureLimit: FailureLimit = FailureLimit()) {
        self.tokens = tokens
        self.rateLimit = rateLimit
        self.failureLimit = failureLimit
    }

    /// A token file read again (SIGHUP): new requests are checked against it. The mode stays:
    /// a server started without a token file is not given one (nor the reverse) but on restart.
    /// A name the new file keeps keeps its rate limit's state; a name it drops loses it.
    public func replaceTokens(_ new: [HTTPToken]) {
        guard tokens != nil else { return }
        tokens = new
        let names = Set(new.map(\.name))
        buckets = buckets.filter { names.contains($0.key) }
    }

    public static let local = HTTPCaller(name: "local", scopes: Set(HTTPScope.allCases))

    /// `admin` may do all; otherwise the scope itself is needed.
    public static func allows(_ caller: HTTPCaller, _ scope: HTTPScope) -> Bool {
        caller.scopes.contains(scope) || caller.scopes.contains(.admin)
    }

    /// Without tokens, a browser on this machine would carry any web site's requests to the
    /// board with every scope: a page of another site (its `Origin`) or a name that only
    /// resolves here through DNS rebinding (its `Host`) is refused. Loopback names only.
    static func fromAnotherSite(_ request: HTTPRequest, changes: Bool) -> HTTPAPIError? {
        if let host = request.header("Host"), !isLoopbackName(authority: host) {
            return HTTPAPIError(status: 403, code: "forbidden", field: "Host",
                message: "without a token file only requests addressed to this machine by a loopback name (localhost, 127.0.0.1, [::1]) are served")
        }
        return fromAnotherWebPage(request, loopbackOnly: true, changes: changes)
    }

    /// A request a web page of another site made: its `Origin` is not the address the request
    /// was sent to (its `Host`, or the `X-Forwarded-Host` a proxy names), or, with no `Origin`,
    /// `Sec-Fetch-Site` says it is another site's. A browser sends Basic credentials it saved
    /// for nook-http with any site's simple request (no preflight), so with tokens too a request
    /// that changes something is refused from another site whatever it presents. Clients that
    /// are no browser send neither field and are not concerned. `changes`: whether the request's
    /// route changes something (a GET that publishes does).
    static func fromAnotherWebPage(_ request: HTTPRequest, loopbackOnly: Bool, changes: Bool) -> HTTPAPIError? {
        let condition = loopbackOnly ? "without a token file a request from a web page" : "a request from a web page that changes something"
        // `null` is an opaque origin: a sandboxed frame, a file, a redirect from another site.
        // Any web page can make one, so it is no page of nook-http's.
        if let origin = request.header("Origin") {
            let authority = (origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init) ?? "").lowercased()
            // Another web server on this machine (another port) is another site: only nook-http's
            // own page, whose origin is the address the request was sent to, is served.
            var addressed = request.header("Host").map { [$0.lowercased()] } ?? []
            if !loopbackOnly, let forwarded = request.header("X-Forwarded-Host") {
                addressed.append(forwarded.split(separator: ",").first.map { $0.trimmingSpaces.lowercased() } ?? "")
            }
            let sameAsHost = addressed.isEmpty ? loopbackOnly : addressed.contains(authority)
            guard !authority.isEmpty, !loopbackOnly || isLoopbackName(authority: authority), sameAsHost else {
                let whence = loopbackOnly ? "the loopback address the request is sent to" : "the address the request is sent to, '\(HTTPLogText.escaped((request.header("Host") ?? "").prefix(80)))'"
                return HTTPAPIError(status: 403, code: "forbidden", field: "Origin",
                    message: "\(condition) is served only from nook-http's own page (\(whence)), not from '\(HTTPLogText.escaped(origin.prefix(80)))': a browser would carry another site's requests with the credentials it keeps")
            }
            return nil
        }
        // A browser sends `Origin` with every request but a GET or HEAD; this covers one that
        // does not (an `<img>` or a link to a GET that publishes). `same-site` is another origin
        // too (another port of the board, say).
        if changes, let site = request.header("Sec-Fetch-Site")?.lowercased(), site == "cross-site" || site == "same-site" {
            return HTTPAPIError(status: 403, code: "forbidden", field: "Sec-Fetch-Site",
                message: "\(condition) is served only from nook-http's own page, and the browser says this one comes from another site (Sec-Fetch-Site: \(site)): a browser would carry another site's requests with the credentials it keeps")
        }
        return nil
    }

    /// By the method alone: GET and HEAD only read, every other method changes something. A
    /// route may say otherwise (``HTTPRoute/changesSomething``: ntfy's publish by GET).
    static func changesSomething(_ request: HTTPRequest) -> Bool {
        request.method != "GET" && request.method != "HEAD"
    }

    /// `localhost`, `127.x.y.z` or `[::1]`, with or without a port.
    static func isLoopbackName(authority: String) -> Bool {
        var host = authority.lowercased()
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            return host[host.index(after: host.startIndex)..<close] == "::1"
        }
        if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    static let challenge: [(name: String, value: String)] = [("WWW-Authenticate", "Bearer realm=\"nook-http\", Basic realm=\"nook-http\"")]

    /// - Parameters:
    ///   - client: the address the request comes from, as ``clientAddress(peer:request:loopback:)``
    ///     names it: unknown tokens are counted against it.
    ///   - changes: whether the route asked for changes something (``HTTPRoute/changesSomething``);
    ///     nil: every method but GET and HEAD does.
    public func caller(for request: HTTPRequest, loopback: Bool, client: String = "", changes: Bool? = nil, now: Duration) -> Result<HTTPCaller, HTTPAPIError> {
        check(request, loopback: loopback, client: client, changes: changes, now: now).map(\.caller)
    }

    /// Whether the token with `digest` (nil: none was presented) may still ask for `scope`, by
    /// the tokens read last: a token a file read again dropped, or whose scopes it narrowed, may not.
    func stillGrants(_ digest: [UInt8]?, _ scope: HTTPScope) -> Bool {
        guard let tokens, let digest else { return true }
        guard let token = tokens.first(where: { Self.constantTimeEqual($0.digest, digest) }) else { return false }
        return Self.allows(HTTPCaller(name: token.name, scopes: token.scopes), scope)
    }

    /// The caller, and the digest of the token it presented (nil without one); the parameters
    /// are ``caller(for:loopback:client:changes:now:)``'s.
    func check(_ request: HTTPRequest, loopback: Bool, client: String = "", changes: Bool? = nil,
               now: Duration) -> Result<(caller: HTTPCaller, token: [UInt8]?), HTTPAPIError> {
        let changes = changes ?? Self.changesSomething(request)
        guard let tokens else {
            guard loopback else {
                return .failure(HTTPAPIError(status: 403, code: "forbidden",
                    message: "no token file is configured (http.tokens), so only clients on this machine (loopback, not through a proxy) are served"))
            }
            if let refusal = Self.fromAnotherSite(request, changes: changes) { return .failure(refusal) }
            return .success((Self.local, nil))
        }
        // Before any token is looked at: a page of another site gets no 401 (which would make
        // the browser ask for credentials) and no answer that says whether its token is known.
        if changes, let refusal = Self.fromAnotherWebPage(request, loopbackOnly: false, changes: true) { return .failure(refusal) }
        let presented: String?
        switch Self.presentedToken(in: request) {
        case .failure(let error): return .failure(error)
        case .success(let token): presented = token
        }
        guard let presented else {
            return .failure(HTTPAPIError(status: 401, code: "unauthorized",
                message: "a token is needed: send 'Authorization: Bearer TOKEN' (or Basic with the token as password, X-Gotify-Key, ?token= or ?auth=)",
                headers: Self.challenge))
        }
        if let wait = tries(left: client, now: now) {
            let seconds = Self.retryAfter(wait)
            return .failure(HTTPAPIError(status: 429, code: "too_many_failures",
                message: "\(failureLimit.burst) unknown tokens came from this address; it may try again in \(seconds) s",
                headers: [("Retry-After", "\(seconds)")]))
        }
        let digest = SHA256.hash(presented.utf8)
        // Every entry is compared whole, matching or not: the time taken says nothing of which
        // bytes of which token were right.
        var found: HTTPToken?
        for token in tokens where Self.constantTimeEqual(token.digest, digest) && found == nil { found = token }
        guard let found else {
            failed(client, now: now)
            return .failure(HTTPAPIError(status: 401, code: "unauthorized", message: "the token is not one nook-http knows", headers: Self.challenge))
        }
        if let wait = take(found.name, now: now) {
            let seconds = Self.retryAfter(wait)
            return .failure(HTTPAPIError(status: 429, code: "rate_limited",
                message: "token '\(found.name)' made more than \(Self.format(rateLimit.perSecond)) requests a second (burst \(Self.format(rateLimit.burst))); try again in \(seconds) s",
                headers: [("Retry-After", "\(seconds)")]))
        }
        return .success((HTTPCaller(name: found.name, scopes: found.scopes), found.digest))
    }

    /// nil when the token may go on; else the seconds until it may.
    private func take(_ name: String, now: Duration) -> Double? {
        guard rateLimit.perSecond > 0 else { return nil }
        var bucket = buckets[name] ?? (level: rateLimit.burst, at: now)
        let elapsed = now - bucket.at
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        bucket.level = min(rateLimit.burst, bucket.level + seconds * rateLimit.perSecond)
        bucket.at = now
        defer { buckets[name] = bucket }
        guard bucket.level >= 1 else { return (1 - bucket.level) / rateLimit.perSecond }
        bucket.level -= 1
        return nil
    }

    /// nil when `client` may present a token; else the seconds until it may.
    private func tries(left client: String, now: Duration) -> Double? {
        guard failureLimit.burst > 0, let entry = failures[client] else { return nil }
        let left = refilled(entry, now: now)
        guard left < 1 else { return nil }
        return (1 - left) * Self.seconds(failureLimit.every)
    }

    private func failed(_ client: String, now: Duration) {
        guard failureLimit.burst > 0 else { return }
        let left = failures[client].map { refilled($0, now: now) } ?? Double(failureLimit.burst)
        failures[client] = (left: max(0, left - 1), at: now)
        guard failures.count > failureLimit.addresses else { return }
        // Bounded whatever the number of addresses that try: those back to a full bucket hold
        // nothing, then the oldest go.
        failures = failures.filter { refilled($0.value, now: now) < Double(failureLimit.burst) }
        while failures.count > failureLimit.addresses, let oldest = failures.min(by: { $0.value.at < $1.value.at })?.key {
            failures.removeValue(forKey: oldest)
        }
    }

    private func refilled(_ entry: (left: Double, at: Duration), now: Duration) -> Double {
        let every = Self.seconds(failureLimit.every)
        let gained = every > 0 ? Self.seconds(now - entry.at) / every : Double(failureLimit.burst)
        return min(Double(failureLimit.burst), entry.left + max(0, gained))
    }

    /// `wait` as whole seconds for `Retry-After`, at least 1 and at most a day: a rate of
    /// 1e-19 a second (the setting's range allows it) waits past what an Int holds.
    public static func retryAfter(_ wait: Double) -> Int {
        Int(min(max(1, wait.rounded(.up)), 86_400))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Whom unknown tokens and a live view's places are counted against: the connection's
    /// address without its port, an IPv6 one by its /64 (one host has the whole of it); behind a
    /// reverse proxy on loopback, the address the proxy names last in `X-Forwarded-For` (nginx
    /// appends the client's), else in `X-Real-IP`: behind a proxy every client is 127.0.0.1.
    public static func clientAddress(peer: String, request: HTTPRequest, loopback: Bool) -> String {
        // The last line's last entry: several lines are one list in order (RFC 9110 §5.3), and a
        // proxy that adds a line of its own (HAProxy's `option forwardfor`) adds it last.
        func last(_ name: String) -> String? {
            request.headers.last { $0.name.lowercased() == name }?.value.split(separator: ",").last.map { String($0.trimmingSpaces) }
        }
        if loopback, let forwarded = last("x-forwarded-for"), !forwarded.isEmpty {
            return addressKey(forwarded)
        }
        if loopback, let real = last("x-real-ip"), !real.isEmpty {
            return addressKey(real)
        }
        var host = peer
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon {
            host = String(host[..<colon])
        }
        return addressKey(host)
    }

    /// An IPv4 address as it is (an IPv4-mapped IPv6 one too); an IPv6 one as its first four
    /// groups. At most 64 characters: a forwarded "address" is whatever the header said, and
    /// each one remembered costs memory.
    static func addressKey(_ host: String) -> String {
        var text = String(host.lowercased().prefix(64))
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if let percent = text.firstIndex(of: "%") { text = String(text[..<percent]) }
        guard text.contains(":") else { return text }
        if text.hasPrefix("::ffff:"), text.dropFirst(7).contains(".") { return String(text.dropFirst(7)) }
        var groups = text.split(separator: ":").map(String.init)
        if let gap = text.firstRange(of: "::") {
            let head = text[..<gap.lowerBound].split(separator: ":").map(String.init)
            let tail = text[gap.upperBound...].split(separator: ":").map(String.init)
            groups = head + Array(repeating: "0", count: max(0, 8 - head.count - tail.count)) + tail
        }
        guard groups.count >= 4 else { return text }
        return groups.prefix(4).map { String(UInt16($0, radix: 16) ?? 0, radix: 16) }.joined(separator: ":") + "::/64"
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// The token a request carries, if any, from the first of: `Authorization`, `X-Gotify-Key`,
    /// `?token=`, `?auth=`. A malformed one is a 401 naming where it was.
    public static func presentedToken(in request: HTTPRequest) -> Result<String?, HTTPAPIError> {
        if let authorization = request.header("Authorization") {
            return fromAuthorization(authorization, field: "Authorization").map { Optional($0) }
        }
        if let key = request.header("X-Gotify-Key") {
            guard !key.isEmpty else { return .failure(unauthorized("X-Gotify-Key", "X-Gotify-Key is empty")) }
            return .success(key)
        }
        if let token = request.parameter("token") {
            guard !token.isEmpty else { return .failure(unauthorized("token", "the token parameter is empty")) }
            return .success(token)
        }
        if let auth = request.parameter("auth") {
            // ntfy: base64 (URL-safe, unpadded or not) of a whole Authorization header's value.
            var text = auth.replacingOccurrences("-", "+").replacingOccurrences("_", "/")
            while text.utf8.count % 4 != 0 { text += "=" }
            guard let bytes = Base64.decode(text), let value = String(validating: bytes, as: UTF8.self) else {
                return .failure(unauthorized("auth", "the auth parameter is not base64 of an Authorization header's value"))
            }
            return fromAuthorization(value, field: "auth").map { Optional($0) }
        }
        return .success(nil)
    }

    private static func fromAuthorization(_ value: String, field: String) -> Result<String, HTTPAPIError> {
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2 else { return .failure(unauthorized(field, "\(field) must be 'Bearer TOKEN' or 'Basic BASE64'")) }
        let scheme = parts[0].lowercased()
        let credentials = parts[1].trimmingSpaces
        switch scheme {
        case "bearer":
            guard !credentials.isEmpty else { return .failure(unauthorized(field, "the Bearer token is empty")) }
            return .success(credentials)
        case "basic":
            guard let bytes = Base64.decode(credentials), let pair = String(validating: bytes, as: UTF8.self),
                  let colon = pair.firstIndex(of: ":") else {
                return .failure(unauthorized(field, "Basic credentials must be base64 of 'USER:PASSWORD'"))
            }
            // The token is the password. A sender with only a user field is read too: a browser's
            // prompt leaves the password empty, and Apprise's `ntfy://TOKEN@host` sends Python's
            // `None` as it. Either way the user must be a known token to be let in.
            let password = String(pair[pair.index(after: colon)...])
            let user = String(pair[..<colon])
            let token = (password.isEmpty || password == "None") && !user.isEmpty ? user : password
            guard !token.isEmpty else { return .failure(unauthorized(field, "Basic credentials hold no token")) }
            return .success(token)
        default:
            return .failure(unauthorized(field, "\(field) uses the '\(parts[0])' scheme; use Bearer or Basic"))
        }
    }

    private static func unauthorized(_ field: String, _ message: String) -> HTTPAPIError {
        HTTPAPIError(status: 401, code: "unauthorized", field: field, message: message, headers: challenge)
    }
}

extension String {
    func replacingOccurrences(_ target: Character, _ replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
