import NookActivities
import NookLogging
import NookProtocol

/// AWTRIX's `POST /api/notify` as a nook-http route (H2): a notification shown as a card,
/// answered `OK` once nookd has acknowledged it (J1), with a line for each thing the glass will
/// not show as sent.
enum AWTRIXNotifyRoutes {
    static func routes(module: String?, logger: Logger) -> [HTTPRoute] {
        [
            HTTPRoute("POST", "/api/notify", scope: .publish, speaks: .awtrix) { exchange, _, nookd in
                let notification: AWTRIXNotification
                switch AWTRIXNotification.decode(exchange.request.body) {
                case .failure(let error): exchange.respond(error.response); return
                case .success(let value): notification = value
                }
                let card = AWTRIXMapping.card(for: notification, id: NookActivityID(), module: module)
                // AWTRIX answers a plain OK; nook-http adds a line for each thing the glass will
                // not show as sent (an icon, a field, a character), as /api/custom does.
                PublishRoutes.publish(card, source: "AWTRIX", exchange, nookd: nookd, logger: logger) { delivered in
                    AWTRIXAppRoutes.ok(card.notes + delivered.warnings)
                }
            },
        ]
    }
}
