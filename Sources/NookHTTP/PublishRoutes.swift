#if canImport(Glibc)
import Glibc
#endif
import NookLogging
import NookActivities
import NookProtocol

/// Where compatible publishing sends its cards (H2, H3): the ntfy topics the board takes, each
/// with the module its cards go to, and the modules of Gotify's, AWTRIX's and alerts' cards.
public struct PublishSettings: Sendable, Equatable {
    /// The ntfy topics taken, each to a module (nil: nookd's default). Empty takes every topic
    /// with a valid name, to the default module.
    public var topics: [String: String?]
    public var gotifyModule: String?
    public var awtrixModule: String?
    /// Where Alertmanager's and Grafana's cards go (H3).
    public var alertModule: String?

    public init(topics: [String: String?] = [:], gotifyModule: String? = nil, awtrixModule: String? = nil, alertModule: String? = nil) {
        (self.topics, self.gotifyModule, self.awtrixModule, self.alertModule) = (topics, gotifyModule, awtrixModule, alertModule)
    }

    /// Reads topic entries as a config file lists them: `"alerts"` or `"alerts=monitoring"`
    /// (the topic, then the module). The error names the entry at fault.
    public static func topics(parsing entries: [String]) -> Result<[String: String?], HTTPAPIError> {
        var topics: [String: String?] = [:]
        for entry in entries {
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { String($0).trimmingCharacters() }
            let name = parts[0]
            guard NtfyMessage.isValidName(name) else {
                return .failure(HTTPAPIError(status: 400, code: "invalid_field", field: "topics", message: "'\(PublishText.quoted(entry))': a topic is 1 to 64 letters, digits, '-' or '_'"))
            }
            guard !reservedTopics.contains(name) else {
                return .failure(HTTPAPIError(status: 400, code: "invalid_field", field: "topics", message: "'\(entry)': /\(name) is one of nook-http's own paths"))
            }
            let module = parts.count > 1 ? parts[1] : nil
            if let module, module.isEmpty {
                return .failure(HTTPAPIError(status: 400, code: "invalid_field", field: "topics", message: "'\(entry)': the module after '=' is empty"))
            }
            guard topics[name] == nil else {
                return .failure(HTTPAPIError(status: 400, code: "invalid_field", field: "topics", message: "'\(name)' is listed twice"))
            }
            topics[name] = module
        }
        return .success(topics)
    }

    /// First path segments nook-http answers itself.
    public static let reservedTopics: Set<String> = ["api", "message", "page", "healthz"]

    /// The module for `topic`, or a 404 naming it. `path`: the request's path when the topic
    /// came from it (a reserved first segment is then a path nothing is served at).
    func module(forTopic topic: String, path: String? = nil) -> Result<String?, HTTPAPIError> {
        if Self.reservedTopics.contains(topic) {
            let message = path.map { "nothing is served at \(PublishText.quoted($0)): /\(topic) is one of nook-http's own paths, not an ntfy topic" }
                ?? "'\(topic)' is one of nook-http's own paths, not an ntfy topic"
            return .failure(HTTPAPIError(status: 404, code: "not_found", field: path == nil ? "topic" : nil, message: message))
        }
        guard NtfyMessage.isValidName(topic) else {
            return .failure(HTTPAPIError(status: 404, code: "not_found", field: "topic",
                                         message: "'\(PublishText.quoted(topic))' is not a topic: a topic is 1 to 64 letters, digits, '-' or '_'"))
        }
        if topics.isEmpty { return .success(nil) }
        guard let module = topics[topic] else {
            return .failure(HTTPAPIError(status: 404, code: "not_found", field: "topic",
                                         message: "the topic '\(topic)' is not one this board takes; it takes \(topics.keys.sorted().joined(separator: ", "))"))
        }
        return .success(module)
    }
}

/// ntfy, Gotify and AWTRIX publishing as nook-http routes (H2); each answers once nookd has
/// acknowledged the card (J1), in the shape its senders read.
public enum PublishRoutes {
    /// - Parameters:
    ///   - now: seconds since 1970, for the `time` and `date` of the answers.
    ///   - order: runs the messages, clears and deletes of one sequence id one after another
    ///     (shared with the other routes that use keys).
    public static func routes(settings: PublishSettings, order: CardKeyOrder = CardKeyOrder(), logger: Logger,
                              now: @escaping () -> Int64 = wallClockSeconds) -> [HTTPRoute] {
        let gotifyCount = Counter()
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
            log(card, source: "ntfy topic \(parsed.topic)", logger: logger)
            order.run(key: card.activity.coalescingKey, exchange) { exchange in
                CardDelivery.deliver(card, for: exchange.caller, to: nookd) { result in
                    switch result {
                    case .failure(let error): exchange.respond(error.response)
                    case .success(let delivered):
                        exchange.respond(.json(NtfyMapping.answer(for: parsed, delivered: delivered, now: now(), notes: card.notes)))
                    }
                }
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
                HTTPRoute(method, "/{topic}/\(word)", scope: .publish, changesSomething: true, refusing: takesTopic) { exchange, parameters, nookd in
                    ntfy(exchange, topic: parameters["topic"], sequence: nil, nookd: nookd, json: false)
                }
            }
        }
        return webhooks + [
            HTTPRoute("POST", "/", scope: .publish) { exchange, _, nookd in ntfy(exchange, topic: nil, sequence: nil, nookd: nookd, json: true) },
            HTTPRoute("PUT", "/", scope: .publish) { exchange, _, nookd in ntfy(exchange, topic: nil, sequence: nil, nookd: nookd, json: true) },
            HTTPRoute("POST", "/{topic}", scope: .publish, refusing: takesTopic) { exchange, parameters, nookd in
                ntfy(exchange, topic: parameters["topic"], sequence: nil, nookd: nookd, json: false)
            },
            HTTPRoute("PUT", "/{topic}", scope: .publish, refusing: takesTopic) { exchange, parameters, nookd in
                ntfy(exchange, topic: parameters["topic"], sequence: nil, nookd: nookd, json: false)
            },
            HTTPRoute("POST", "/{topic}/{sequence}", scope: .publish, refusing: takesTopic) { exchange, parameters, nookd in
                ntfy(exchange, topic: parameters["topic"], sequence: parameters["sequence"], nookd: nookd, json: false)
            },
            HTTPRoute("PUT", "/{topic}/{sequence}", scope: .publish, refusing: takesTopic) { exchange, parameters, nookd in
                ntfy(exchange, topic: parameters["topic"], sequence: parameters["sequence"], nookd: nookd, json: false)
            },
            HTTPRoute("PUT", "/{topic}/{sequence}/clear", scope: .publish, refusing: takesTopic) { exchange, parameters, nookd in
                ntfyEnd(exchange, parameters, how: .dismiss, nookd: nookd)
            },
            HTTPRoute("DELETE", "/{topic}/{sequence}", scope: .publish, refusing: takesTopic) { exchange, parameters, nookd in
                ntfyEnd(exchange, parameters, how: .cancel, nookd: nookd)
            },
            HTTPRoute("POST", "/message", scope: .publish) { exchange, _, nookd in
                let message: GotifyMessage
                switch GotifyMessage.decode(exchange.request) {
                case .failure(let error): exchange.respond(error.response); return
                case .success(let value): message = value
                }
                let card = GotifyMapping.card(for: message, id: NookActivityID(), module: settings.gotifyModule)
                log(card, source: "Gotify", logger: logger)
                CardDelivery.deliver(card, for: exchange.caller, to: nookd) { result in
                    switch result {
                    case .failure(let error): exchange.respond(error.response)
                    case .success(let delivered):
                        let number = gotifyCount.next()
                        exchange.respond(.json(GotifyMapping.answer(for: message, number: number, delivered: delivered, date: rfc3339(now()), notes: card.notes)))
                    }
                }
            },
            HTTPRoute("POST", "/api/notify", scope: .publish) { exchange, _, nookd in
                let notification: AWTRIXNotification
                switch AWTRIXNotification.decode(exchange.request.body) {
                case .failure(let error): exchange.respond(error.response); return
                case .success(let value): notification = value
                }
                let card = AWTRIXMapping.card(for: notification, id: NookActivityID(), module: settings.awtrixModule)
                log(card, source: "AWTRIX", logger: logger)
                CardDelivery.deliver(card, for: exchange.caller, to: nookd) { result in
                    switch result {
                    case .failure(let error): exchange.respond(error.response)
                    // AWTRIX answers a plain OK; nook-http adds a line for each thing the glass
                    // will not show as sent (an icon, a field, a character), as /api/custom does.
                    case .success(let delivered): exchange.respond(AWTRIXAppRoutes.ok(card.notes + delivered.warnings))
                    }
                }
            },
        ]
    }

    static func log(_ card: PublishedCard, source: String, logger: Logger) {
        for note in card.notes { logger.info("\(source): \(HTTPLogText.escaped(note))") }
    }

    public static func wallClockSeconds() -> Int64 {
        Int64(time(nil))
    }

    /// `2018-02-27T19:36:10Z`, as Gotify dates its messages.
    static func rfc3339(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = seconds - days * 86400
        // Howard Hinnant's days-to-civil.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60))Z"
    }
}

/// Numbers Gotify's answers count with, on the loop thread.
final class Counter {
    private var value = 0
    func next() -> Int {
        value += 1
        return value
    }
}
