import NookProtocol

/// The server's own routes: `GET /healthz` says whether nook-http runs and reaches nookd.
public enum HTTPCoreRoutes {
    public static func routes() -> [HTTPRoute] {
        [HTTPRoute("GET", "/healthz", scope: .read) { exchange, _, nookd in
            nookd.call(Request(id: nil, operation: .status)) { result in
                switch result {
                case .success:
                    exchange.respond(.json(.object([("ok", .bool(true)), ("nookd", .string("reachable"))])))
                case .failure(.refused(let error)):
                    // nookd answered, if only to refuse: it is there.
                    exchange.respond(.json(.object([("ok", .bool(true)), ("nookd", .string("reachable")), ("status_error", error)])))
                case .failure(.unavailable(let reason)):
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

    /// The answer a route gives when a nookd call failed: 503 with `Retry-After` when nookd is
    /// unreachable, else nookd's refusal as a JSON error with a status chosen from its code.
    public static func error(for failure: NookdCallError, nookd: any NookdCalls) -> HTTPAPIError {
        switch failure {
        case .unavailable(let reason):
            return HTTPAPIError(status: 503, code: "nookd_unavailable", message: reason, headers: [("Retry-After", "\(retryAfter(nookd))")])
        case .refused(let error):
            let code = error["code"]?.text ?? "nookd_error"
            let status: Int = switch code {
            case "notFound", "unknownModule": 404
            case "queueFull", "unavailable": 503
            case "forbidden": 403
            case "internalError": 500
            default: 422
            }
            return HTTPAPIError(status: status, code: code == "queueFull" ? "queue_full" : "nookd_error", field: error["field"]?.text,
                                message: "nookd refused: \(error["message"]?.text ?? code) (\(code))",
                                headers: status == 503 ? [("Retry-After", "1")] : [])
        }
    }
}
