import NookActivities
import NookLogging
import NookProtocol

/// LaMetric Time's local API v2 as nook-http's routes (M4), served on the TLS listener
/// (`lametric.listen`) where LaMetric's clients call it: the device, its notifications as
/// cards, the display (switched and its brightness set by nookd) and audio (said to be left as
/// it is), the rotation's next and previous app. Basic `dev:TOKEN` is a token of nook-http's like any other; errors answer in LaMetric's
/// body (``LaMetricErrorBody``).
enum LaMetricRoutes {
    /// - Parameters:
    ///   - order: runs the changes of one card's key one after another, with every other route's.
    ///   - firstID: where the notification ids start: the milliseconds since 1970 at start, so
    ///     ids do not repeat across restarts and cards still up keep theirs.
    static func routes(settings: LaMetricSettings, module: String?, order: CardKeyOrder, logger: Logger, firstID: Int64) -> [HTTPRoute] {
        let device = LaMetricDevice.ofThisBoard(name: settings.name)
        var nextID = firstID
        func status(_ exchange: any HTTPExchange, _ nookd: any NookdCalls, then: @escaping (JSONValue) -> Void) {
            nookd.ask(.status, for: exchange, then: then)
        }
        let prefix = "/api/v2/device"
        func row(_ method: String, _ path: String, _ scope: HTTPScope,
                 _ handler: @escaping (any HTTPExchange, [String: String], any NookdCalls) -> Void) -> HTTPRoute {
            HTTPRoute(method, prefix + path, scope: scope, speaks: .lametric, handler: handler)
        }
        return [
            row("GET", "", .read) { exchange, _, nookd in
                status(exchange, nookd) { exchange.respond(.json(device.json(status: $0, host: exchange.request.header("Host")))) }
            },
            row("GET", "/display", .read) { exchange, _, nookd in
                status(exchange, nookd) { exchange.respond(.json(LaMetricDevice.display(status: $0))) }
            },
            row("PUT", "/display", .publish) { exchange, _, nookd in
                status(exchange, nookd) { before in
                    switch LaMetricSettingsBody.display(exchange.request.body, status: before) {
                    case .failure(let error): exchange.respond(error.response)
                    case .success(let (setting, notes)) where setting.reads:
                        for note in notes { logger.info("LaMetric display: \(HTTPLogText.escaped(note))") }
                        exchange.respond(success(data: LaMetricDevice.display(status: before), notes: notes))
                    case .success(let (setting, notes)):
                        nookd.ask(.display(setting), for: exchange) { json in
                            let said: [String]
                            do { said = notes + (try DisplayAnswer(json: json)).warnings } catch {
                                said = notes + ["nookd's answer cannot be read (\(error)): what became of the display is below"]
                            }
                            for note in said { logger.info("LaMetric display: \(HTTPLogText.escaped(note))") }
                            // The display as it is now, read again after the change.
                            status(exchange, nookd) { exchange.respond(success(data: LaMetricDevice.display(status: $0), notes: said)) }
                        }
                    }
                }
            },
            row("GET", "/audio", .read) { exchange, _, nookd in
                status(exchange, nookd) { exchange.respond(.json(LaMetricDevice.audio(status: $0))) }
            },
            row("PUT", "/audio", .publish) { exchange, _, nookd in
                func answer(_ notes: [String]) {
                    for note in notes { logger.info("LaMetric audio: \(HTTPLogText.escaped(note))") }
                    status(exchange, nookd) { exchange.respond(success(data: LaMetricDevice.audio(status: $0), notes: notes)) }
                }
                switch LaMetricSettingsBody.audio(exchange.request.body) {
                case .failure(let error): exchange.respond(error.response)
                case .success(let (nil, notes)): answer(notes)
                case .success(let (volume?, notes)):
                    nookd.ask(.soundVolume(volume), for: exchange) { json in
                        do { answer(notes + (try SoundVolumeAnswer(json: json)).warnings) } catch {
                            answer(notes + ["nookd's answer cannot be read (\(error)): the volume is below as it is now"])
                        }
                    }
                }
            },
            row("GET", "/bluetooth", .read) { exchange, _, _ in exchange.respond(.json(LaMetricDevice.bluetooth)) },
            row("GET", "/wifi", .read) { exchange, _, _ in exchange.respond(.json(device.wifi(host: exchange.request.header("Host")))) },
            row("GET", "/apps", .read) { exchange, _, nookd in
                nookd.ask(.appList, for: exchange) { answer in exchange.respond(.json(LaMetricApps.listed(answer))) }
            },
            row("PUT", "/apps/next", .publish) { exchange, _, nookd in LaMetricApps.turn(.appNext, exchange, nookd) },
            row("PUT", "/apps/prev", .publish) { exchange, _, nookd in LaMetricApps.turn(.appPrevious, exchange, nookd) },
            row("POST", "/notifications", .publish) { exchange, _, nookd in
                let notification: LaMetricNotification
                switch LaMetricNotification.decode(exchange.request.body) {
                case .failure(let error): exchange.respond(error.response); return
                case .success(let value): notification = value
                }
                nextID += 1
                let id = nextID
                let card = LaMetricMapping.card(for: notification, id: id, module: module)
                order.run(key: LaMetricMapping.key(id), exchange) { exchange in
                    PublishRoutes.publish(card, source: "LaMetric", exchange, nookd: nookd, logger: logger) { delivered in
                        var answer: [(String, JSONValue)] = [("success", .object([("id", .string(String(id)))]))]
                        let notes = card.notes + delivered.warnings
                        if !notes.isEmpty { answer.append(("notes", .array(notes.map(JSONValue.string)))) }
                        return .json(.object(answer))
                    }
                }
            },
            row("GET", "/notifications", .read) { exchange, _, nookd in
                LaMetricQueue.cards(module: module, exchange, nookd) { exchange.respond(.json(.array($0.map(\.notification)))) }
            },
            row("GET", "/notifications/current", .read) { exchange, _, nookd in
                LaMetricQueue.cards(module: module, exchange, nookd) { cards in
                    exchange.respond(.json(cards.first(where: \.onScreen)?.notification ?? .null))
                }
            },
            row("DELETE", "/notifications/{id}", .publish) { exchange, parameters, nookd in
                LaMetricQueue.dismiss(parameters["id"] ?? "", module: module, order: order, exchange, nookd)
            },
        ]
    }

    /// `{"success": {"data": …}}`, LaMetric's answer to a change, with Nook's notes beside it.
    static func success(data: JSONValue, notes: [String]) -> HTTPResponse {
        var answer: [(String, JSONValue)] = [("success", .object([("data", data)]))]
        if !notes.isEmpty { answer.append(("notes", .array(notes.map(JSONValue.string)))) }
        return .json(.object(answer))
    }
}
