import NookProtocol

/// The server's own routes: `GET /healthz` says whether nook-http runs and reaches nookd.
public enum HTTPCoreRoutes {
    public static func routes() -> [HTTPRoute] {
        [HTTPRoute("GET", "/healthz", scope: .read) { exchange, _, nookd in
            nookd.callForOutcome(Request(id: nil, operation: .status)) { result in
                switch result {
                case .success:
                    exchange.respond(.json(.object([("ok", .bool(true)), ("nookd", .string("reachable"))])))
                case .failure(.refused(let error)):
                    // nookd answered, if only to refuse: it is there.
                    exchange.respond(.json(.object([("ok", .bool(true)), ("nookd", .string("reachable")), ("status_error", error)])))
                case .failure(.unavailable(let reason)), .failure(.outcomeUnknown(let reason)):
                    var answer = HTTPResponse.json(.object([("ok", .bool(false)), ("nookd", .string("unreachable")), ("reason", .string(reason))]), status: 503)
                    answer.headers.append(("Retry-After", "\(retryAfter(nookd))"))
                    exchange.respond(answer)
                }
            }
        }]
    }

    /// Seconds a 503 for an unreachable nookd tells the client to wait.
    public static func retryAfter(_ nookd: any NookdCalls) -> Int {
        (nookd as? NookdLink)?.retryAfterSeconds ?? 1
    }

    /// The answer a route gives when a nookd call failed: the native API's table
    /// (``NativeAPIErrors``), so a publishing route and the API answer one refusal alike, with
    /// the link's own `Retry-After` when nookd is unreachable. A field of the card is named as
    /// the API names it (`title`, not nookd's `activity.title`).
    public static func error(for failure: NookdCallError, nookd: any NookdCalls) -> HTTPAPIError {
        NativeAPIErrors.error(failure, strippingPrefix: "activity", retryAfter: retryAfter(nookd))
    }
}
