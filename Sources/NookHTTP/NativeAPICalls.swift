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

    /// Every activity nookd holds, for the API's answer (see ``listEveryPage(module:asking:done:)``);
    /// a failure is answered to the client.
    func listAll(module: String?, for exchange: any HTTPExchange, then: @escaping ([ListedActivity]) -> Void) {
        listEveryPage(module: module, asking: exchange.caller.request) { result in
            switch result {
            case .success(let listing): then(listing.activities)
            case .failure(let failure): exchange.respond(self.failure(failure).response)
            }
        }
    }

    /// Every activity nookd holds, page after page (`list` answers in pages of 1 MiB), in
    /// presentation order: each module's card on the glass, then its pending ones. An activity
    /// that moved between two pages is in it once; one that moved ahead across a page's start
    /// while a card before it ended is on no page (see ``NookdListing/pages``). `asking` makes
    /// the request of each page.
    func listEveryPage(module: String?, asking: @escaping (NookOperation) -> Request,
                       done: @escaping (Result<NookdListing, NookdCallError>) -> Void) {
        var listing = NookdListing(activities: [], pages: 0)
        var seen = Set<String>()
        func page(_ offset: Int) {
            callForResult(asking(.list(module: module, offset: offset))) { result in
                let answer: JSONValue
                switch result {
                case .success(let value): answer = value
                case .failure(let failure):
                    done(.failure(failure))
                    return
                }
                listing.pages += 1
                for part in answer["modules"]?.items ?? [] {
                    let name = part["name"]?.text ?? ""
                    if let current = part["current"], current != .null, let id = current["id"]?.text, seen.insert(id).inserted {
                        listing.activities.append(ListedActivity(module: name, onScreen: true, activity: current))
                    }
                    for pending in part["pending"]?.items ?? [] {
                        if let id = pending["id"]?.text, seen.insert(id).inserted {
                            listing.activities.append(ListedActivity(module: name, onScreen: false, activity: pending))
                        }
                    }
                }
                guard let nextValue = answer["next"], nextValue != .null else {
                    done(.success(listing))
                    return
                }
                // A later page starts further in; anything else would loop, or end early
                // with a list that looks whole.
                guard let next = nextValue.numberValue.flatMap({ Int(exactly: $0) }), next > offset else {
                    done(.failure(.refused(ProtocolError(.internalError, "nookd's list page at \(offset) named \(nextValue.serialized) as the next").json)))
                    return
                }
                page(next)
            }
        }
        page(0)
    }
}

/// What nookd's `list` held, every page of it.
struct NookdListing {
    var activities: [ListedActivity]
    /// How many pages it took. One page is one moment of nookd's; over several, a card that
    /// ends ahead of a page boundary between two pages moves the rest one place forward, and
    /// the card that was to start the next page is on none.
    var pages: Int
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
