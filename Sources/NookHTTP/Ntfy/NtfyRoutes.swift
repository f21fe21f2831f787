import NookActivities
import NookLogging
import NookProtocol

/// ntfy's publishing as nook-http's routes (H2): a message to a topic (by path, or as JSON to
/// `/`), a sequence's update, clear and delete, and the webhooks; each answers once nookd has
/// acknowledged the card (J1), in the shape ntfy's senders read.
enum NtfyRoutes {
    /// - Parameters:
    ///   - order: runs the messages, clears and deletes of one sequence id one after another.
    ///   - now: seconds since 1970, for the answers' `time`.
    static func routes(settings: PublishSettings, order: CardKeyOrder, logger: Logger, now: @escaping () -> Int64) -> [HTTPRoute] {
        func ntfy(_ exchange: any HTTPExchange, topic: String?, sequence: String?, nookd: any NookdCalls, json: Bool) {
            let message: Result<NtfyMessage, HTTPAPIError>
            if json {
                message = NtfyMessage.fromJSON(exchange.request)
            } else {
                switch settings.module(forTopic: topic ?? "", path: exchange.request.rawPath) {
                case .failure(let error): exchange.respond(error.response); return
                case .success: message = NtfyMessage.fromRequest(exchange.request, topic: topic ?? "", sequenceID: sequence)
                }
            }
            let parsed: NtfyMessage
            switch message {
            case .failure(let error): exchange.respond(error.response); return
            case .success(let value): parsed = value
            }
            let module: String?
            switch settings.module(forTopic: parsed.topic) {
            case .failure(let error): exchange.respond(error.response); return
            case .success(let name): module = name
            }
            let card = NtfyMapping.card(for: parsed, id: NookActivityID(), module: module)
            PublishRoutes.log(card, source: "ntfy topic \(parsed.topic)", logger: logger)
            order.run(key: card.activity.coalescingKey, exchange) { exchange in
                CardDelivery.deliver(card, for: exchange.caller, to: nookd) { result in
                    switch result {
                    case .failure(let error): exchange.respond(error.response)
                    case .success(let delivered):
                        exchange.respond(.json(NtfyMapping.answer(for: parsed, delivered: delivered, now: now(), notes: card.notes)))
                    }
                }
                // Its one call is made (an in-place enqueue for a sequence): the sequence's next
                // message may make its own, and nookd's journal syncs them together.
                CardKeyOrder.lastCallMade(exchange, on: nookd)
            }
        }
        func ntfyEnd(_ exchange: any HTTPExchange, _ parameters: [String: String], how: CardDelivery.Ending, nookd: any NookdCalls) {
            let topic = parameters["topic"] ?? "", sequence = parameters["sequence"] ?? ""
            let module: String?
            switch settings.module(forTopic: topic, path: exchange.request.rawPath) {
            case .failure(let error): exchange.respond(error.response); return
            case .success(let name): module = name
            }
            guard NtfyMessage.isValidName(sequence) else {
                exchange.respond(HTTPAPIError(status: 400, code: "invalid_field", field: "path", message: "the sequence id must be 1 to 64 letters, digits, '-' or '_', got '\(PublishText.quoted(sequence))'").response)
                return
            }
            let key = NtfyMapping.key(topic: topic, sequenceID: sequence)
            order.run(key: key, exchange) { exchange in
                CardDelivery.end(key: key, module: module, how: how, for: exchange.caller, nookd: nookd) { result in
                    switch result {
                    case .failure(let error): exchange.respond(error.response)
                    case .success(let ended):
                        exchange.respond(.json(.object([
                            ("id", .string(sequence)), ("time", .number(Double(now()))), ("event", .string(how == .dismiss ? "message_clear" : "message_delete")),
                            ("topic", .string(topic)), ("sequence_id", .string(sequence)), ("nook", .object([("ended", .number(Double(ended)))])),
                        ])))
                    }
                }
            }
        }
        // A path whose topic the board does not take is none of these routes' (a 404 saying
        // why), so a 405 for it names no method of theirs (`GET /favicon.ico`).
        let takesTopic: (_ parameters: [String: String], _ rawPath: String) -> HTTPAPIError? = { parameters, rawPath in
            if case .failure(let error) = settings.module(forTopic: parameters["topic"] ?? "", path: rawPath) { return error }
            return nil
        }
        // ntfy's webhooks: `GET /{topic}/publish` (or `send`, `trigger`) publishes with every
        // parameter in the query, `triggered` without a message; POST and PUT take those paths
        // too, as a publish to the topic (the word is no sequence id).
        let webhooks = ["publish", "send", "trigger"].flatMap { word in
            ["GET", "POST", "PUT"].map { method in
                HTTPRoute(method, "/{topic}/\(word)", scope: .publish, speaks: .ntfy, changesSomething: true, refusing: takesTopic) { exchange, parameters, nookd in
                    ntfy(exchange, topic: parameters["topic"], sequence: nil, nookd: nookd, json: false)
                }
            }
        }
        return NtfyAccountRoutes.routes(settings: settings, now: now) + webhooks + [
            HTTPRoute("POST", "/", scope: .publish, speaks: .ntfy) { exchange, _, nookd in ntfy(exchange, topic: nil, sequence: nil, nookd: nookd, json: true) },
            HTTPRoute("PUT", "/", scope: .publish, speaks: .ntfy) { exchange, _, nookd in ntfy(exchange, topic: nil, sequence: nil, nookd: nookd, json: true) },
            HTTPRoute("POST", "/{topic}", scope: .publish, speaks: .ntfy, refusing: takesTopic) { exchange, parameters, nookd in
                ntfy(exchange, topic: parameters["topic"], sequence: nil, nookd: nookd, json: false)
            },
            HTTPRoute("PUT", "/{topic}", scope: .publish, speaks: .ntfy, refusing: takesTopic) { exchange, parameters, nookd in
                ntfy(exchange, topic: parameters["topic"], sequence: nil, nookd: nookd, json: false)
            },
            HTTPRoute("POST", "/{topic}/{sequence}", scope: .publish, speaks: .ntfy, refusing: takesTopic) { exchange, parameters, nookd in
                ntfy(exchange, topic: parameters["topic"], sequence: parameters["sequence"], nookd: nookd, json: false)
            },
            HTTPRoute("PUT", "/{topic}/{sequence}", scope: .publish, speaks: .ntfy, refusing: takesTopic) { exchange, parameters, nookd in
                ntfy(exchange, topic: parameters["topic"], sequence: parameters["sequence"], nookd: nookd, json: false)
            },
            HTTPRoute("PUT", "/{topic}/{sequence}/clear", scope: .publish, speaks: .ntfy, refusing: takesTopic) { exchange, parameters, nookd in
                ntfyEnd(exchange, parameters, how: .dismiss, nookd: nookd)
            },
            HTTPRoute("DELETE", "/{topic}/{sequence}", scope: .publish, speaks: .ntfy, refusing: takesTopic) { exchange, parameters, nookd in
                ntfyEnd(exchange, parameters, how: .cancel, nookd: nookd)
            },
        ]
    }
}
