import NookProtocol

/// What ntfy's clients ask before they publish (M5): `GET /v1/account` (Home Assistant's setup
/// asks it first, then `POST /v1/account/token` for a token of its own), `GET /TOPIC/auth`, and
/// the subscriptions, which the board refuses in ntfy's words: it shows messages on its glass
/// and relays none to subscribers.
enum NtfyAccountRoutes {
    /// - Parameter now: seconds since 1970, for a token's `last_access`.
    static func routes(settings: PublishSettings, now: @escaping () -> Int64) -> [HTTPRoute] {
        [
            HTTPRoute("GET", "/v1/account", scope: .read, speaks: .ntfy, anyScope: true) { exchange, _, _ in
                exchange.respond(.json(account(exchange)))
            },
            HTTPRoute("POST", "/v1/account/token", scope: .read, speaks: .ntfy, anyScope: true) { exchange, _, _ in
                exchange.respond(token(exchange, now: now))
            },
            HTTPRoute("GET", "/{topic}/auth", scope: .read, speaks: .ntfy, anyScope: true) { exchange, parameters, _ in
                exchange.respond(auth(topics: parameters["topic"] ?? "", settings: settings))
            },
        ] + subscriptions.map { word in
            HTTPRoute("GET", "/{topic}/\(word)", scope: .read, speaks: .ntfy, anyScope: true) { exchange, parameters, _ in
                exchange.respond(HTTPAPIError(status: 501, code: "not_implemented", field: "path",
                    message: "/\(PublishText.quoted(parameters["topic"] ?? ""))/\(word) is ntfy's subscription, which this board does not serve: "
                        + "it shows the messages published to it on its glass and relays none to subscribers").response)
            }
        }
    }

    /// ntfy's subscriptions: a websocket, a JSON stream, server-sent events, raw lines.
    static let subscriptions = ["ws", "json", "sse", "raw"]

    /// ntfy's account, as it answers a user (the token's name, `admin` for an admin token) or,
    /// without a token, the anonymous caller (`*`). The board keeps no daily quota, takes no
    /// attachments and keeps no messages for subscribers: each limit is 0, as ntfy says "none",
    /// and the counts are 0 (the per-second rate limit, `http.rate_limit_per_s`, is no field of
    /// ntfy's).
    static func account(_ exchange: any HTTPExchange) -> JSONValue {
        let zero = JSONValue.number(0)
        let limits: [(String, JSONValue)] = ["messages", "messages_expiry_duration", "emails", "calls", "reservations",
                                             "attachment_total_size", "attachment_file_size", "attachment_expiry_duration",
                                             "attachment_bandwidth"].map { ($0, zero) }
        let stats: [(String, JSONValue)] = ["messages", "messages_remaining", "emails", "emails_remaining", "calls", "calls_remaining",
                                            "reservations", "reservations_remaining", "attachment_total_size",
                                            "attachment_total_size_remaining"].map { ($0, zero) }
        let user = exchange.client.token != nil
        let role = !user ? "anonymous" : exchange.caller.scopes.contains(.admin) ? "admin" : "user"
        return .object([("username", .string(user ? exchange.caller.name : "*")), ("role", .string(role)),
                        ("limits", .object(limits)), ("stats", .object(stats))])
    }

    /// ntfy makes a new token for a user; the board makes none (tokens are the admin's, in the
    /// token file), so it answers with the token the caller presented, which never expires.
    static func token(_ exchange: any HTTPExchange, now: () -> Int64) -> HTTPResponse {
        guard exchange.client.token != nil, case .success(let presented?) = HTTPAccess.presentedToken(in: exchange.request) else {
            return HTTPAPIError(status: 401, code: "unauthorized",
                                message: "without a token there is no token to give: the board makes no tokens, its token file holds them").response
        }
        // ntfy's client needs `last_access`: this request is that access.
        var label = "", fields: [(String, JSONValue)] = [("token", .string(presented)), ("last_access", .number(Double(now()))),
                                                         ("last_origin", .string(exchange.client.address))]
        if !exchange.request.body.isEmpty {
            guard case .object(let members)? = try? JSONValue.parse(exchange.request.body) else {
                return HTTPAPIError(status: 400, code: "malformed_json", field: "body", message: "must be a JSON object ({\"label\": …}) or empty").response
            }
            if case .string(let text)? = members.first(where: { $0.0 == "label" })?.1 { label = text }
        }
        if !label.isEmpty { fields.append(("label", .string(label))) }
        return .json(.object(fields))
    }

    /// ntfy's check before a subscription: every topic of the comma-separated list is one the
    /// board takes. Every token has a scope that may use a topic (read sees its cards, publish
    /// sends them), so the topic alone decides.
    static func auth(topics: String, settings: PublishSettings) -> HTTPResponse {
        for topic in topics.split(separator: ",", omittingEmptySubsequences: false) {
            if case .failure(let error) = settings.module(forTopic: String(topic)) { return error.response }
        }
        return .json(.object([("success", .bool(true))]))
    }
}
