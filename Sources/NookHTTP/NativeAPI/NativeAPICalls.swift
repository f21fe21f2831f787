import NookActivities
import NookProtocol

/// Asking nookd on behalf of one exchange: a refusal or an absent nookd is answered to the
/// client as an HTTP error, so each handler only says what to do with a success.
extension NookdCalls {
    /// One call, answered with the answer line's `result` (what the operation's answer type
    /// reads), or why not.
    func callForResult(_ request: Request, done: @escaping (Result<JSONValue, NookdCallError>) -> Void) {
        call(request) { outcome in done(outcome.map { line in line["result"] ?? .null }) }
    }

    func ask(_ operation: NookOperation, for exchange: any HTTPExchange, strippingPrefix prefix: String? = nil,
             then: @escaping (JSONValue) -> Void) {
        callForResult(exchange.caller.request(operation)) { result in
            switch result {
            case .success(let answer): then(answer)
            case .failure(let failure): exchange.respond(self.failure(failure, strippingPrefix: prefix).response)
            }
        }
    }

    /// Like ``ask(_:for:strippingPrefix:then:)`` for an operation on one activity by id: when
    /// nookd has no such activity, its history says whether it ended (410 Gone, with how) or
    /// never was (404); when it is another token's, 403 says so (U3).
    func askAbout(_ id: NookActivityID, _ operation: NookOperation, for exchange: any HTTPExchange, strippingPrefix prefix: String? = nil,
                  then: @escaping (JSONValue) -> Void) {
        let request = exchange.caller.request(operation)
        callForResult(request) { result in
            switch result {
            case .success(let answer): then(answer)
            case .failure(.refused(let json)) where request.sender != nil && ProtocolError(json: json)?.code == .forbidden:
                exchange.respond(NativeAPIErrors.notSent(id: id.description, by: exchange.caller).response)
            case .failure(.refused(let json)) where ProtocolError(json: json)?.code == .notFound:
                // nookd names its request's `activity`; the API's is the path's `id`.
                let message = ProtocolError(json: json)?.message ?? "no pending or shown activity has id \(id)"
                self.answerEnded(id, for: exchange, otherwise: HTTPAPIError(status: 404, code: "not_found", field: "id", message: message))
            case .failure(let failure): exchange.respond(self.failure(failure, strippingPrefix: prefix).response)
            }
        }
    }

    /// 410 naming how `id` ended if the history holds it, else `otherwise`.
    func answerEnded(_ id: NookActivityID, for exchange: any HTTPExchange, otherwise: HTTPAPIError) {
        callForResult(Request(id: nil, operation: .historyShow(.id(id)))) { result in
            guard case .success(let answer) = result, let entry = answer["entry"] else {
                exchange.respond(otherwise.response)
                return
            }
            let ending = entry["ending"]?.text ?? "ended"
            exchange.respond(HTTPAPIError(status: 410, code: "ended", field: "id",
                                          message: "activity \(id) has already ended (\(ending)); history entry #\(Int(entry["number"]?.numberValue ?? 0))").response)
        }
    }

    /// One page of nookd's `list` (after `cursor`, at most `limit` activities) for the API's
    /// answer, with the cursor of the next page when more follow; a failure is answered to the client.
    func listPage(module: String?, after cursor: ListCursor?, limit: Int, for exchange: any HTTPExchange,
                  then: @escaping (NookdPage) -> Void) {
        callForResult(exchange.caller.request(.list(module: module, after: cursor, limit: limit))) { result in
            switch result {
            case .success(let answer): then(NookdPage(answer))
            case .failure(let failure): exchange.respond(self.failure(failure).response)
            }
        }
    }

    /// nookd's `list` page after page, each asked for after the cursor of the one before, in
    /// presentation order: each module's card on the glass, then its pending ones. Cards that
    /// end between two pages move nothing across the cursor, so a card held throughout is on
    /// exactly one page. `visit` gets each page's activities and, unless it is the last, what
    /// asks for the next one (not called: the reading stops there). Only one page is held at
    /// a time, however full the queue. `asking` makes the request of each page.
    func listPages(module: String?, asking: @escaping (NookOperation) -> Request,
                   page visit: @escaping ([ListedActivity], _ next: (() -> Void)?) -> Void,
                   failed: @escaping (NookdCallError) -> Void) {
        func read(after cursor: ListCursor?) {
            callForResult(asking(.list(module: module, after: cursor))) { result in
                switch result {
                case .success(let answer):
                    let answered = NookdPage(answer)
                    guard let text = answered.cursor else {
                        visit(answered.activities, nil)
                        return
                    }
                    // A page that names where it started as the next would loop.
                    guard let next = ListCursor(text: text), next != cursor else {
                        failed(.refused(ProtocolError(.internalError, "nookd's list page named \(text) as the next, which is not a later cursor").json))
                        return
                    }
                    visit(answered.activities) { read(after: next) }
                case .failure(let failure):
                    failed(failure)
                }
            }
        }
        read(after: nil)
    }
}

/// One page of nookd's `list`: its activities in presentation order, and where the next page
/// starts when more follow.
struct NookdPage {
    var activities: [ListedActivity] = []
    var cursor: String?

    init(_ answer: JSONValue) {
        for part in answer["modules"]?.items ?? [] {
            let name = part["name"]?.text ?? ""
            if let current = part["current"], current != .null {
                activities.append(ListedActivity(module: name, onScreen: true, activity: current))
            }
            for pending in part["pending"]?.items ?? [] {
                activities.append(ListedActivity(module: name, onScreen: false, activity: pending))
            }
        }
        cursor = answer["cursor"]?.text
    }
}

/// One activity of nookd's `list`, as nookd sent it: its module and whether it is on the glass.
struct ListedActivity {
    var module: String
    var onScreen: Bool
    var activity: JSONValue
}

extension NookdCalls {
    /// A failed call as the client hears it, with the link's own `Retry-After`.
    func failure(_ failure: NookdCallError, strippingPrefix prefix: String? = nil) -> HTTPAPIError {
        NativeAPIErrors.error(failure, strippingPrefix: prefix, retryAfter: HTTPCoreRoutes.retryAfter(self))
    }
}

extension HTTPResponse {
    /// A JSON answer with extra header fields.
    static func json(_ value: JSONValue, status: Int = 200, headers: [(name: String, value: String)]) -> HTTPResponse {
        var response = HTTPResponse.json(value, status: status)
        response.headers += headers
        return response
    }
}
