import NookActivities
import NookProtocol

/// The native API's app routes (A3): list, show, set by name, remove, and the rotation's
/// next, previous and switch, each one of nookd's `app-…` operations. The fields are the
/// socket's `app-set` fields, decoded by the protocol's own ``AppPayload``, so the limits and
/// the words are nookd's. Sets and removals state the token's name as their sender, as the
/// activity routes do (U3): a publish token reaches only the apps it set.
enum NativeAPIApps {
    /// `GET /api/v1/apps`: every app in the rotation's order, as nookd's `app-list` gives them.
    static func list(_ exchange: any HTTPExchange, _: [String: String], _ nookd: any NookdCalls) {
        nookd.ask(.appList, for: exchange) { answer in exchange.respond(.json(answer)) }
    }

    /// `GET /api/v1/apps/{name}`: one app (`app-show`'s `app`), or 404.
    static func one(_ exchange: any HTTPExchange, _ parameters: [String: String], _ nookd: any NookdCalls) {
        withName(exchange, parameters) { name in
            nookd.ask(.appShow(name), for: exchange) { answer in exchange.respond(.json(answer["app"] ?? answer)) }
        }
    }

    /// `PUT /api/v1/apps/{name}`: the body is the app as `app-set` carries it, without its name
    /// (the path's; a `name` in the body must be the same). 201 for a new app, 200 for one
    /// updated in place.
    static func set(_ exchange: any HTTPExchange, _ parameters: [String: String], _ nookd: any NookdCalls) {
        let app: NookApp
        do throws(HTTPAPIError) {
            let name = try pathName(parameters)
            var members = try NativeAPIBody.object(exchange.request)
            if let stated = try NativeAPIBody.takeString("name", from: &members), stated != name {
                throw HTTPAPIError(status: 422, code: "invalid_field", field: "name",
                                   message: "must be the path's name or absent; the path names '\(name)', the body '\(stated.prefix(64))'")
            }
            do throws(ProtocolError) {
                app = try AppPayload.decode(.object([("name", .string(name))] + members), path: "")
            } catch {
                throw NativeAPIErrors.local(error)
            }
        } catch {
            exchange.respond(error.response)
            return
        }
        nookd.callForResult(exchange.caller.request(.appSet(app))) { result in
            switch result {
            case .success(let answer):
                exchange.respond(.json(answer, status: answer["replaced"] == .bool(true) ? 200 : 201))
            case .failure(let failure):
                exchange.respond(refusal(failure, app: app.name, by: exchange.caller, verb: "replaced", nookd: nookd).response)
            }
        }
    }

    /// `DELETE /api/v1/apps/{name}`: by the token that set it (or an admin token, U3).
    static func remove(_ exchange: any HTTPExchange, _ parameters: [String: String], _ nookd: any NookdCalls) {
        withName(exchange, parameters) { name in
            nookd.callForResult(exchange.caller.request(.appRemove(name))) { result in
                switch result {
                case .success(let answer): exchange.respond(.json(answer))
                case .failure(let failure): exchange.respond(refusal(failure, app: name, by: exchange.caller, verb: "removed", nookd: nookd).response)
                }
            }
        }
    }

    /// `POST /api/v1/rotation/next` and `/previous` (A2): the turn after or before this one.
    static func next(_ exchange: any HTTPExchange, _: [String: String], _ nookd: any NookdCalls) {
        turn(.appNext, exchange, nookd)
    }

    static func previous(_ exchange: any HTTPExchange, _: [String: String], _ nookd: any NookdCalls) {
        turn(.appPrevious, exchange, nookd)
    }

    /// A turn of the rotation; one nookd may have made without answering is not to be pressed
    /// again blindly: it would turn twice.
    private static func turn(_ operation: NookOperation, _ exchange: any HTTPExchange, _ nookd: any NookdCalls) {
        nookd.callForResult(exchange.caller.request(operation)) { result in
            switch result {
            case .success(let answer): exchange.respond(.json(answer))
            case .failure(.outcomeUnknown(let reason)):
                exchange.respond(NativeAPIErrors.outcomeUnknown(reason, advice: "the rotation may have turned: look at what it shows (GET /api/v1/status, apps.showing) before turning it again").response)
            case .failure(let failure): exchange.respond(nookd.failure(failure).response)
            }
        }
    }

    /// `POST /api/v1/rotation/switch` with `{"name": APP}`: that app's turn.
    static func switchTo(_ exchange: any HTTPExchange, _: [String: String], _ nookd: any NookdCalls) {
        let name: String
        do throws(HTTPAPIError) {
            var members = try NativeAPIBody.object(exchange.request)
            guard let given = try NativeAPIBody.takeString("name", from: &members) else {
                throw HTTPAPIError(status: 422, code: "missing_field", field: "name", message: "is required: the app whose turn it becomes")
            }
            if let other = members.first {
                throw HTTPAPIError(status: 422, code: "invalid_field", field: other.0, message: "is not a field of this request (known: name)")
            }
            name = try checkedName(given)
        } catch {
            exchange.respond(error.response)
            return
        }
        // Switching to one app again is harmless: the general advice about cards does not fit.
        nookd.callForResult(exchange.caller.request(.appSwitch(name))) { result in
            switch result {
            case .success(let answer): exchange.respond(.json(answer))
            case .failure(.outcomeUnknown(let reason)):
                exchange.respond(NativeAPIErrors.outcomeUnknown(reason, advice: "switching to '\(name)' again only makes it the turn once more").response)
            case .failure(let failure): exchange.respond(nookd.failure(failure).response)
            }
        }
    }

    // MARK: Names and refusals

    private static func withName(_ exchange: any HTTPExchange, _ parameters: [String: String], _ then: (String) -> Void) {
        let name: String
        do throws(HTTPAPIError) { name = try pathName(parameters) } catch {
            exchange.respond(error.response)
            return
        }
        then(name)
    }

    /// The path's `{name}`, checked here as nookd checks it: a name with a NUL would reach nookd
    /// as a line it refuses as malformed, which would read as nook-http's fault.
    static func pathName(_ parameters: [String: String]) throws(HTTPAPIError) -> String {
        try checkedName(parameters["name"] ?? "")
    }

    static func checkedName(_ name: String) throws(HTTPAPIError) -> String {
        if let problem = NookApp.nameProblem(name) { throw HTTPAPIError(status: 422, code: "invalid_field", field: "name", message: problem) }
        return name
    }

    /// nookd's refusal as the client hears it. Another token's app is refused without naming
    /// that token or the uid behind it, as for an activity (``NativeAPIErrors/notSent(id:by:)``).
    static func refusal(_ failure: NookdCallError, app name: String, by caller: HTTPCaller, verb: String, nookd: any NookdCalls) -> HTTPAPIError {
        if case .outcomeUnknown(let reason) = failure {
            // An app is its name: looking at it, or setting it again (which updates it in place), is the way back.
            let path = "/api/v1/apps/" + FormBody.percentEncoded(name)
            return NativeAPIErrors.outcomeUnknown(reason, advice: verb == "removed"
                ? "look before removing it again (GET \(path)): removing an app that is gone answers 404"
                : "look before sending it again (GET \(path)), or send it again: an app of the same name is updated in place, never added twice")
        }
        if case .refused(let json) = failure, caller.statedSender != nil, ProtocolError(json: json)?.code == .forbidden {
            return HTTPAPIError(status: 403, code: "forbidden", field: "name",
                                message: "app '\(name)' was not set by token '\(caller.senderName)', so it is not \(verb): a token changes only the apps it set (one with the admin scope changes any)")
        }
        return nookd.failure(failure, strippingPrefix: "app")
    }
}
