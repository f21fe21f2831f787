import NookActivities
import NookLogging
import NookProtocol

/// Gotify's `POST /message` as a nook-http route (H2): answered once nookd has acknowledged the
/// card (J1), as a Gotify server answers, numbered and dated.
enum GotifyRoutes {
    static func routes(module: String?, logger: Logger, now: @escaping () -> Int64) -> [HTTPRoute] {
        let gotifyCount = Counter()
        return [
            HTTPRoute("POST", "/message", scope: .publish, speaks: .gotify) { exchange, _, nookd in
                let message: GotifyMessage
                switch GotifyMessage.decode(exchange.request) {
                case .failure(let error): exchange.respond(error.response); return
                case .success(let value): message = value
                }
                let card = GotifyMapping.card(for: message, id: NookActivityID(), module: module)
                PublishRoutes.publish(card, source: "Gotify", exchange, nookd: nookd, logger: logger) { delivered in
                    .json(GotifyMapping.answer(for: message, number: gotifyCount.next(), delivered: delivered, date: rfc3339(now()), notes: card.notes))
                }
            },
        ]
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
