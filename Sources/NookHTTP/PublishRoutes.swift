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

    /// First path segments nook-http answers itself, and `v1`, ntfy's API (`/v1/account` is a
    /// route here: `/v1/webpush` published a card to a topic `v1`), which ntfy refuses as a topic.
    public static let reservedTopics: Set<String> = ["api", "message", "page", "healthz", "v1"]

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
        NtfyRoutes.routes(settings: settings, order: order, logger: logger, now: now)
            + GotifyRoutes.routes(module: settings.gotifyModule, logger: logger, now: now)
            + AWTRIXNotifyRoutes.routes(module: settings.awtrixModule, logger: logger)
    }

    /// Logs what `card` leaves out, delivers it for the caller and answers with `answer` once
    /// nookd took it, or with the refusal.
    static func publish(_ card: PublishedCard, source: String, _ exchange: any HTTPExchange, nookd: any NookdCalls, logger: Logger,
                        answer: @escaping (DeliveredCard) -> HTTPResponse) {
        log(card, source: source, logger: logger)
        CardDelivery.deliver(card, for: exchange.caller, to: nookd) { result in
            switch result {
            case .failure(let error): exchange.respond(error.response)
            case .success(let delivered):
                // nookd's own (an icon it drew as the card's fallback, …) beside the card's notes.
                for warning in delivered.warnings { logger.info("\(source): \(HTTPLogText.escaped(warning))") }
                exchange.respond(answer(delivered))
            }
        }
    }

    static func log(_ card: PublishedCard, source: String, logger: Logger) {
        for note in card.notes { logger.info("\(source): \(HTTPLogText.escaped(note))") }
    }

    public static func wallClockSeconds() -> Int64 {
        Int64(time(nil))
    }
}
