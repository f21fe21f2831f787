import NookProtocol

/// How nook-http's native API (H1) answers what nookd refused: each of nookd's error codes has
/// one HTTP status, and the error keeps nookd's field and words.
public enum NativeAPIErrors {
    /// The table: nookd's code → the status and the word nook-http answers with. A switch, so a
    /// code nookd adds does not compile until it has a status.
    public static func status(for code: ProtocolError.Code) -> (status: Int, code: String) {
        switch code {
        // What the client sent: its fields.
        case .missingField: (422, "missing_field")
        case .invalid: (422, "invalid_field")
        case .unknownModule: (422, "unknown_module")
        case .wrongType: (400, "wrong_type")
        // A request that became a line longer than nookd reads.
        case .lineTooLong: (413, "body_too_large")
        case .notFound: (404, "not_found")
        case .forbidden: (403, "forbidden")
        // A limit is reached (the module's queue, a sender's share of it, the apps): the sender
        // is over a limit, as ntfy answers a visitor over its own, and a later try may succeed
        // once cards end or apps go. Not 503, which says nookd is away and invites a retry at once.
        case .queueFull: (429, "queue_full")
        // nookd cannot take it now: the same request later may succeed.
        case .unavailable: (503, "nookd_unavailable")
        // nook-http wrote what nookd did not understand, or nookd failed inside: not the
        // client's fault, and not nook-http's own failure either.
        case .badJSON, .unsupportedVersion, .unknownOperation, .internalError: (502, "nookd_error")
        }
    }

    /// Seconds a client waits before trying again when nookd is away.
    public static let retryAfterSeconds = 1

    /// Seconds a client over a limit (429 `queue_full`) waits before trying again: a full queue
    /// or share gains a place only as a card ends, seconds at the least (a timed card's dwell),
    /// and a full rotation only when an app is removed; a retry sooner only finds it full again.
    public static let limitRetryAfterSeconds = 10

    /// nookd's refusal as an HTTP error. `strippingPrefix`: nookd names the fields of the
    /// wrapping it was sent in (`activity.title`, `changes.progress`); the API's bodies are
    /// those objects themselves, so their errors name `title`, `progress`.
    public static func error(_ refusal: ProtocolError, strippingPrefix prefix: String? = nil) -> HTTPAPIError {
        let (status, code) = status(for: refusal.code)
        var field = refusal.field
        if let prefix, let name = field, name.hasPrefix(prefix + ".") { field = String(name.dropFirst(prefix.count + 1)) }
        // The prefix's own field is the request's body (an AWTRIX array), an array's member
        // `apps[1].progress` is `[1].progress`.
        if let prefix, field == prefix { field = "body" }
        if let prefix, let name = field, name.hasPrefix(prefix + "[") { field = String(name.dropFirst(prefix.count)) }
        let headers: [(name: String, value: String)] = switch status {
        case 503: [("Retry-After", String(retryAfterSeconds))]
        case 429: [("Retry-After", String(limitRetryAfterSeconds))]
        default: []
        }
        let message = status == 502 ? "nookd could not carry out the request: \(refusal.description)" : refusal.message
        return HTTPAPIError(status: status, code: code, field: field, message: message, headers: headers)
    }

    /// Why a call to nookd gave no answer, as an HTTP error. `retryAfter`: when the link tries
    /// nookd again (``HTTPCoreRoutes/retryAfter(_:)``).
    public static func error(_ failure: NookdCallError, strippingPrefix prefix: String? = nil, retryAfter: Int = retryAfterSeconds) -> HTTPAPIError {
        switch failure {
        case .unavailable(let reason):
            return HTTPAPIError(status: 503, code: "nookd_unavailable", message: "nookd is not available: \(reason)",
                                headers: [("Retry-After", String(retryAfter))])
        case .outcomeUnknown(let reason):
            return outcomeUnknown(reason)
        case .refused(let json):
            guard let refusal = ProtocolError(json: json) else {
                return HTTPAPIError(status: 502, code: "nookd_error", message: "nookd refused the request with an error nook-http cannot read: \(json.serialized)")
            }
            return error(refusal, strippingPrefix: prefix)
        }
    }

    /// nookd may have carried the request out, and nook-http cannot tell: 504, as a gateway
    /// whose upstream never answered, distinct from the 503 that says nothing was done (a
    /// sender retries that blindly) and from the 502 of a refusal nookd did answer. No
    /// `Retry-After`: a blind retry may do it twice. docs/http-api.md says what to do instead.
    /// `advice`: how to look before sending again, for a route whose requests are not cards.
    static func outcomeUnknown(_ reason: String, advice: String? = nil) -> HTTPAPIError {
        HTTPAPIError(status: 504, code: "outcome_unknown",
                     message: "\(reason); " + (advice ?? "look before sending it again (GET /api/v1/activities, GET /api/v1/history), or send it again with the same id or key, which cannot make a second card"))
    }

    /// A local check that failed, worded as nookd words it (the protocol's own decoders ran).
    static func local(_ problem: ProtocolError, strippingPrefix prefix: String? = nil) -> HTTPAPIError {
        error(problem, strippingPrefix: prefix)
    }

    /// A publish token's refusal to change a card it did not send (U3). nookd's own words name
    /// the sender it was: another token's name is left out here, as is the uid behind it.
    static func notSent(id: String, by caller: HTTPCaller) -> HTTPAPIError {
        HTTPAPIError(status: 403, code: "forbidden", field: "id",
                     message: "activity \(id) was not sent by token '\(caller.senderName)': a token changes only the cards it sent (one with the admin scope changes any)")
    }

    static func notFound(id: String) -> HTTPAPIError {
        HTTPAPIError(status: 404, code: "not_found", field: "id", message: "no activity has id \(id)")
    }
}
