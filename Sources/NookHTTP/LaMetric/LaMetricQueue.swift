import NookActivities
import NookProtocol

/// LaMetric's notification queue as the cards nook-http put up for it (keys `lametric-N`), read
/// from nookd's `list`, and the dismissal of one (M4).
enum LaMetricQueue {
    struct Listed {
        var notification: JSONValue
        var onScreen: Bool
    }

    /// Every live LaMetric card, the one on the glass first, then in the order they wait.
    static func cards(module: String?, _ exchange: any HTTPExchange, _ nookd: any NookdCalls, then: @escaping ([Listed]) -> Void) {
        var found: [Listed] = []
        nookd.listPages(module: module, asking: { exchange.caller.request($0) }, page: { items, next in
            for item in items {
                if let notification = LaMetricMapping.listed(item.activity) { found.append(Listed(notification: notification, onScreen: item.onScreen)) }
            }
            if let next { next() } else { then(found.filter(\.onScreen) + found.filter { !$0.onScreen }) }
        }, failed: { failure in
            exchange.respond(nookd.failure(failure).response)
        })
    }

    /// `DELETE /api/v2/device/notifications/{id}`: the card ends as if dismissed; LaMetric's
    /// `{"success": true}`, or 404 when no card of that id is up.
    static func dismiss(_ text: String, module: String?, order: CardKeyOrder, _ exchange: any HTTPExchange, _ nookd: any NookdCalls) {
        guard let id = Int64(text), id >= 0 else {
            exchange.respond(HTTPAPIError(status: 400, code: "invalid_field", field: "id",
                                          message: "a notification id is a number, got '\(PublishText.quoted(text))'").response)
            return
        }
        let key = LaMetricMapping.key(id)
        order.run(key: key, exchange) { exchange in
            CardDelivery.end(key: key, module: module, how: .dismiss, for: exchange.caller, nookd: nookd) { result in
                switch result {
                case .failure(let error): exchange.respond(error.response)
                case .success(0):
                    exchange.respond(HTTPAPIError(status: 404, code: "not_found", field: "id",
                                                  message: "no notification \(id) is in the queue or on the glass").response)
                case .success: exchange.respond(.json(.object([("success", .bool(true))])))
                }
            }
        }
    }
}
