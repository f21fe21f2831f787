import NookActivities
import NookLogging
import NookProtocol

/// AWTRIX 3's custom-app routes as AWTRIX documents them (A3): `POST /api/custom?name=APP`,
/// `GET /api/apps`, `GET /api/loop`, `POST /api/switch`, `POST /api/nextapp` and
/// `POST /api/previousapp`. Each is nookd's `app-…` operation for the caller, whose token's
/// name owns the apps it sets (U3), as the notify route's cards are. AWTRIX answers `OK`; so
/// does nook-http, with a line after it for each field it did not draw.
public enum AWTRIXAppRoutes {
    public static func routes(logger: Logger) -> [HTTPRoute] {
        [
            HTTPRoute("POST", "/api/custom", scope: .publish, speaks: .awtrix) { exchange, _, nookd in custom(exchange, nookd: nookd, logger: logger) },
            HTTPRoute("GET", "/api/apps", scope: .read, speaks: .awtrix) { exchange, _, nookd in
                listApps(exchange, nookd: nookd) { apps in
                    // AWTRIX's shape: [{"name": …, "icon": …}], in the loop's order.
                    .array(apps.map { state in
                        .object([("name", .string(state.app.name))] + (state.app.icon.map { [("icon", .string($0))] } ?? []))
                    })
                }
            },
            HTTPRoute("GET", "/api/loop", scope: .read, speaks: .awtrix) { exchange, _, nookd in
                // AWTRIX's shape: {"name": place in the loop, …}.
                listApps(exchange, nookd: nookd) { apps in .object(apps.enumerated().map { ($1.app.name, .number(Double($0))) }) }
            },
            HTTPRoute("POST", "/api/switch", scope: .publish, speaks: .awtrix) { exchange, _, nookd in
                let name: String
                switch switchName(exchange.request.body) {
                case .failure(let error): exchange.respond(error.response); return
                case .success(let value): name = value
                }
                nookd.ask(.appSwitch(name), for: exchange) { _ in exchange.respond(ok([])) }
            },
            HTTPRoute("POST", "/api/nextapp", scope: .publish, speaks: .awtrix) { exchange, _, nookd in
                nookd.ask(.appNext, for: exchange) { _ in exchange.respond(ok([])) }
            },
            HTTPRoute("POST", "/api/previousapp", scope: .publish, speaks: .awtrix) { exchange, _, nookd in
                nookd.ask(.appPrevious, for: exchange) { _ in exchange.respond(ok([])) }
            },
        ]
    }

    /// AWTRIX's answer, `OK`, and a line for each remark (fields left out, an icon not drawn).
    static func ok(_ remarks: [String]) -> HTTPResponse {
        let text = (["OK"] + remarks).joined(separator: "\n")
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }

    /// An AWTRIX body refused before nookd was asked anything, as an error naming the field.
    static func refusal(_ error: ProtocolError) -> HTTPAPIError {
        switch error.code {
        case .badJSON: HTTPAPIError(status: 400, code: "malformed_json", field: error.field, message: error.message)
        case .wrongType: HTTPAPIError(status: 400, code: "invalid_field", field: error.field, message: error.message)
        default: NativeAPIErrors.error(error)
        }
    }

    static func custom(_ exchange: any HTTPExchange, nookd: any NookdCalls, logger: Logger) {
        let given = exchange.request.query.filter { $0.name == "name" }
        guard let name = given.first?.value else {
            exchange.respond(HTTPAPIError(status: 400, code: "missing_field", field: "name",
                                          message: "is required: the app's name as a query parameter, /api/custom?name=APP").response)
            return
        }
        // Which one is meant is a guess (a proxy in front may read the last), so none is taken.
        guard given.count == 1 else {
            exchange.respond(HTTPAPIError(status: 400, code: "invalid_field", field: "name",
                                          message: "is given \(given.count) times; /api/custom?name=APP takes one app's name").response)
            return
        }
        let body: AWTRIXApp.Body
        do { body = try AWTRIXApp.body(name: name, exchange.request.body) } catch {
            exchange.respond(refusal(error).response)
            return
        }
        switch body {
        case .remove:
            remove(name, exchange, nookd: nookd, logger: logger)
        case .set(let apps):
            for app in apps {
                for remark in app.remarks { logger.info("AWTRIX app \(HTTPLogText.escaped(app.app.name)): \(HTTPLogText.escaped(remark))") }
            }
            let remarks = apps.count == 1 ? apps[0].remarks : apps.flatMap { app in app.remarks.map { "\(app.app.name): \($0)" } }
            guard apps.count > 1 else {
                // nookd's own warnings follow (an icon it has no drawing of, characters its font lacks).
                nookd.ask(.appSet(apps[0].app), for: exchange, strippingPrefix: "app") { answer in
                    exchange.respond(ok(remarks + ((try? AppSetAnswer(json: answer))?.warnings ?? [])))
                }
                return
            }
            // An array is set whole or not at all, in one step of nookd's (its errors name
            // `[1].progress`, as the translator's do), and joins the rotation in its order.
            let operation = NookOperation.appSetAll(apps.map(\.app))
            // One request line: what its names, field names and `#` tints add to a body under
            // the limit can take it over nookd's, said as that, not as the body's size.
            // Measured with the longest id the link numbers its requests with (it adds one).
            var measured = exchange.caller.request(operation)
            measured.id = .number(9_007_199_254_740_991)
            let bytes = measured.encoded().utf8.count
            guard bytes <= NookProtocol.maximumLineBytes else {
                exchange.respond(HTTPAPIError(status: 413, code: "body_too_large", field: "body",
                    message: "these \(apps.count) apps make one request to nookd of \(bytes) bytes, over the \(NookProtocol.maximumLineBytes) it reads "
                        + "(an array is set in one step; its names and fields grow in translation): send fewer apps or shorter texts").response)
                return
            }
            nookd.ask(operation, for: exchange, strippingPrefix: "apps") { answer in
                exchange.respond(ok(remarks + ((try? AppSetAllAnswer(json: answer))?.warnings ?? [])))
            }
        }
    }

    /// An empty body removes APP and the APP0, APP1, … an array made of it (AWTRIX removes
    /// every app whose name begins with APP; Nook only those, so `weather` never takes
    /// `weatherstation` with it). Removing an app that is not there is done already: `OK`.
    static func remove(_ name: String, _ exchange: any HTTPExchange, nookd: any NookdCalls, logger: Logger) {
        if let problem = NookApp.nameProblem(name) {
            exchange.respond(HTTPAPIError(status: 422, code: "invalid_field", field: "name", message: "the app's name \(problem)").response)
            return
        }
        nookd.ask(.appList, for: exchange) { answer in
            let names: [String]
            // The numbered ones only if they are the caller's: another token's `weather2` is no
            // part of this caller's `weather`. The app itself always, so a refusal is answered.
            let stated = exchange.caller.statedSender
            do {
                let held = try AppListAnswer(json: answer).apps.map(\.app).filter { app in
                    app.name == name || (isPart(app.name, of: name) && (stated == nil || (app.sender?.relayed == true && app.sender?.name == stated)))
                }.map(\.name)
                // APP itself first: when it is not the caller's, the refusal comes before any
                // of its parts is gone, and nothing is removed.
                names = held.filter { $0 == name } + held.filter { $0 != name }
            } catch {
                exchange.respond(HTTPAPIError(status: 502, code: "nookd_error", message: "nookd's app list cannot be read: \(error)").response)
                return
            }
            guard !names.isEmpty else {
                exchange.respond(ok(["no app named \(name) to remove"]))
                return
            }
            func remove(_ index: Int) {
                guard index < names.count else {
                    exchange.respond(ok(names.count > 1 ? ["removed \(names.joined(separator: ", "))"] : []))
                    return
                }
                nookd.ask(.appRemove(names[index]), for: exchange) { _ in remove(index + 1) }
            }
            remove(0)
        }
    }

    /// `app` is one an array sent to `name` made: `name` and digits.
    static func isPart(_ app: String, of name: String) -> Bool {
        guard app.hasPrefix(name), app != name else { return false }
        return app.dropFirst(name.count).allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// `{"name": "…"}` (AWTRIX's `fast` is taken and has nothing to change: Nook slides).
    static func switchName(_ body: [UInt8]) -> Result<String, HTTPAPIError> {
        let value: JSONValue
        do { value = try JSONValue.parse(body) } catch {
            return .failure(HTTPAPIError(status: 400, code: "malformed_json", field: "body", message: "a switch is a JSON object {\"name\": \"APP\"}: \(error)"))
        }
        guard case .object = value else {
            return .failure(HTTPAPIError(status: 400, code: "invalid_field", field: "body", message: "must be a JSON object {\"name\": \"APP\"}, got \(value.typeName)"))
        }
        switch value["name"] {
        case .string(let name)?: return .success(name)
        case nil, .null?: return .failure(HTTPAPIError(status: 400, code: "missing_field", field: "name", message: "is required: the app to switch to, {\"name\": \"APP\"}"))
        case let other?: return .failure(HTTPAPIError(status: 400, code: "invalid_field", field: "name", message: "must be a string, got \(other.typeName)"))
        }
    }

    static func listApps(_ exchange: any HTTPExchange, nookd: any NookdCalls, shape: @escaping ([AppState]) -> JSONValue) {
        nookd.ask(.appList, for: exchange) { answer in
            do { exchange.respond(.json(shape(try AppListAnswer(json: answer).apps))) } catch {
                exchange.respond(HTTPAPIError(status: 502, code: "nookd_error", message: "nookd's app list cannot be read: \(error)").response)
            }
        }
    }
}
