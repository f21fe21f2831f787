import NookLogging
import NookActivities
import NookProtocol

/// Alertmanager's and Grafana's webhooks as nook-http routes (H3): `POST /api/v1/alertmanager`
/// and `POST /api/v1/grafana`. Each notification of a group shows, updates or ends the group's
/// one card; a repeat of what was last sent for the group changes nothing.
public enum AlertRoutes {
    /// - Parameters:
    ///   - module: the module alert cards go to (nil: nookd's default).
    ///   - memory: the content last sent per group, shared by both routes.
    ///   - episodes: what is known of each group's alerts, so a notification delivered out of
    ///     order never makes or revives a card its group's resolve ended; its stale alerts are
    ///     left out (answered as `stale` and `left_out`), and one with nothing else changes nothing.
    ///   - order: runs the notifications of one group one after another (shared with the other
    ///     routes that use keys).
    public static func routes(module: String? = nil, memory: AlertCardMemory = AlertCardMemory(), episodes: AlertEpisodes = AlertEpisodes(),
                              order: CardKeyOrder = CardKeyOrder(), logger: Logger) -> [HTTPRoute] {
        func handle(_ exchange: any HTTPExchange, source: AlertNotification.Source, nookd: any NookdCalls) {
            let notification: AlertNotification
            switch AlertNotification.decode(exchange.request.body, source: source) {
            case .failure(let error): exchange.respond(error.response); return
            case .success(let value): notification = value
            }
            let key = AlertCards.key(for: notification)
            // After the group's earlier notifications are done: a resolve then finds the card
            // its firing made, and what was last sent is what the memory says.
            order.run(key: key, exchange) { exchange in
                // Judged in the order taken, as each token's group is a card of its own.
                switch episodes.admit(notification, key: exchange.caller.senderName + "\n" + key) {
                case .stale(let count):
                    logger.info("\(source.rawValue) \(key): a notification older than what the group's alerts already said (\(count) alert(s)) changes nothing")
                    exchange.respond(.json(.object([("status", .string("stale")), ("key", .string(key)), ("stale", .number(Double(count)))])))
                case .admitted:
                    carry(AlertCards.plan(for: notification, id: NookActivityID(), module: module), exchange, source: source, nookd: nookd)
                case .partlyStale(let rest, let leftOut):
                    // Carried out without its stale alerts, and the answer says which were left out.
                    let names = leftOut.map(HTTPLogText.escaped).joined(separator: ", ")
                    logger.info("\(source.rawValue) \(key): left out \(leftOut.count) alert(s) older than what nook-http already took of them: \(names)")
                    carry(AlertCards.plan(for: rest, id: NookActivityID(), module: module), exchange, source: source, nookd: nookd,
                          leftOut: leftOut)
                }
            }
        }
        func carry(_ plan: AlertCards.Plan, _ exchange: any HTTPExchange, source: AlertNotification.Source, nookd: any NookdCalls,
                   leftOut: [String] = []) {
            // Stale alerts left out of a notification: how many, and their fingerprints.
            let stale: [(String, JSONValue)] = leftOut.isEmpty ? []
                : [("stale", .number(Double(leftOut.count))), ("left_out", .array(leftOut.map(JSONValue.string)))]
            // What was last sent is remembered per token, as each token's group is a card of its own.
            func memoryKey(_ key: String) -> String { exchange.caller.senderName + "\n" + key }
            // A caller that states no sender (an admin token) reaches every token's card with the
            // key: what each of them last sent is no longer on the glass, so each must be sent again.
            func forgetOthers(_ key: String) {
                guard exchange.caller.statedSender == nil else { return }
                memory.forget { $0.hasSuffix("\n" + key) }
            }
            switch plan {
            case .end(let key):
                let remembered = memoryKey(key)
                CardDelivery.end(key: key, module: module, how: .cancel, for: exchange.caller, nookd: nookd) { result in
                    switch result {
                    case .failure(let error): exchange.respond(error.response)
                    case .success(let ended):
                        memory.forget(key: remembered)
                        forgetOthers(key)
                        exchange.respond(.json(.object([("status", .string("resolved")), ("key", .string(key)), ("ended", .number(Double(ended)))] + stale)))
                    }
                }
            case .show(let card, let digest):
                let key = card.activity.coalescingKey ?? ""
                guard !memory.isUnchanged(key: memoryKey(key), digest: digest) else {
                    exchange.respond(.json(.object([("status", .string("unchanged")), ("key", .string(key))] + stale)))
                    return
                }
                for note in card.notes { logger.info("\(source.rawValue) \(key): \(HTTPLogText.escaped(note))") }
                CardDelivery.deliver(card, for: exchange.caller, to: nookd) { result in
                    switch result {
                    case .failure(let error): exchange.respond(error.response)
                    case .success(let delivered):
                        forgetOthers(key)
                        memory.remember(key: memoryKey(key), digest: digest)
                        // What the glass will not show as sent is said, as ntfy's and Gotify's answers say it.
                        let notes = card.notes + delivered.warnings
                        exchange.respond(.json(.object([
                            ("status", .string(delivered.updated ? "updated" : "shown")), ("key", .string(key)),
                            ("activity", .string(delivered.id.description)),
                        ] + (notes.isEmpty ? [] : [("notes", .array(notes.map(JSONValue.string)))]) + stale)))
                    }
                }
            }
        }
        return [
            HTTPRoute("POST", "/api/v1/alertmanager", scope: .publish, speaks: .alerts) { exchange, _, nookd in handle(exchange, source: .alertmanager, nookd: nookd) },
            HTTPRoute("POST", "/api/v1/grafana", scope: .publish, speaks: .alerts) { exchange, _, nookd in handle(exchange, source: .grafana, nookd: nookd) },
        ]
    }
}
