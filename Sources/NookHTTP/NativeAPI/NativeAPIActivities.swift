import NookActivities
import NookProtocol

/// The native API's activity routes (H1): create, pending, one, update, dismiss, cancel.
enum NativeAPIActivities {
    static let collection = "/api/v1/activities"

    /// `POST /api/v1/activities`: the body is an activity as the socket protocol's `enqueue`
    /// carries it (`title`, `subtitle`, …), plus `module`. Decoded by the protocol's own codec,
    /// so the fields, limits and words are nookd's; answered 201 only once nookd has answered,
    /// which it does after the activity is durable (J1). The caller's name is its sender (U3).
    /// With a `key`, it waits for the requests with that key taken before it (``CardKeyOrder``).
    static func create(_ exchange: any HTTPExchange, _: [String: String], _ nookd: any NookdCalls, order: CardKeyOrder) {
        var activity: NookActivity
        let module: String?
        do throws(HTTPAPIError) {
            var members = try NativeAPIBody.object(exchange.request)
            module = try NativeAPIBody.takeString("module", from: &members)
            if let module, module.isEmpty { throw HTTPAPIError(status: 422, code: "invalid_field", field: "module", message: "must not be empty") }
            do throws(ProtocolError) {
                activity = try ActivityPayload.decode(.object(members), path: "")
            } catch {
                throw NativeAPIErrors.local(error)
            }
        } catch {
            exchange.respond(error.response)
            return
        }
        activity.sender = NookSender(uid: 0, pid: 0, name: exchange.caller.senderName)
        order.run(key: activity.coalescingKey, exchange) { [activity] exchange in
            nookd.ask(.enqueue(activity, module: module, wait: false), for: exchange, strippingPrefix: "activity") { answer in
                let id = answer["id"]?.text ?? activity.id.description
                exchange.respond(.json(answer, status: 201, headers: [("Location", collection + "/" + id)]))
            }
            // Its one call is made: the key's next request may make its own.
            CardKeyOrder.lastCallMade(exchange, on: nookd)
        }
    }

    /// One activity as the API shows a live one: where it is and the activity itself.
    static func live(module: String, onScreen: Bool, activity: JSONValue) -> JSONValue {
        .object([("state", .string(onScreen ? "onScreen" : "pending")), ("module", .string(module)), ("activity", activity)])
    }

    /// Activities in one page of `GET /api/v1/activities` unless `limit` says otherwise, and the most it may say.
    static let defaultLimit = 100
    static let maximumLimit = 1_000

    /// `GET /api/v1/activities`: what is on the glass and what waits, every module (or
    /// `?module=`), a page at a time: `limit` activities (or as many as fit in nookd's answer
    /// of 1 MiB) after `after`, the `next` of the page before. `next` and a `Link` header with
    /// `rel="next"` say where the following page starts; cards that end between two pages move
    /// nothing from one to another. A page is one answer of nookd's, so nook-http holds one
    /// page, however full the queue.
    static func pending(_ exchange: any HTTPExchange, _: [String: String], _ nookd: any NookdCalls) {
        let module: String?, limit: Int
        var after: ListCursor?
        do throws(HTTPAPIError) {
            module = try NativeAPIBody.module(in: exchange.request)
            limit = try NativeAPIBody.count("limit", in: exchange.request, range: 1...maximumLimit, fallback: defaultLimit)
            if let text = try NativeAPIBody.text("after", in: exchange.request) {
                guard let cursor = ListCursor(text: text) else {
                    throw HTTPAPIError(status: 422, code: "invalid_field", field: "after",
                                       message: "is not a page's `next`: pass the `next` of the page before as it came")
                }
                after = cursor
            }
        } catch {
            exchange.respond(error.response)
            return
        }
        nookd.listPage(module: module, after: after, limit: limit, for: exchange) { page in
            var members: [(String, JSONValue)] = [("activities", .array(page.activities.map { live(module: $0.module, onScreen: $0.onScreen, activity: $0.activity) }))]
            var headers: [(name: String, value: String)] = []
            if let next = page.cursor {
                members.append(("next", .string(next)))
                var query = "after=\(FormBody.percentEncoded(next))&limit=\(limit)"
                if let module { query += "&module=\(FormBody.percentEncoded(module))" }
                headers.append(("Link", "<\(collection)?\(query)>; rel=\"next\""))
            }
            exchange.respond(.json(.object(members), headers: headers))
        }
    }

    /// `GET /api/v1/activities/{id}`: a live activity, or how it ended (from the history), or 404.
    /// nookd's list is read page by page until the card is found, one page held at a time.
    static func one(_ exchange: any HTTPExchange, _ parameters: [String: String], _ nookd: any NookdCalls) {
        let id: NookActivityID
        do throws(HTTPAPIError) { id = try NativeAPIBody.activityID(parameters) } catch {
            exchange.respond(error.response)
            return
        }
        nookd.listPages(module: nil, asking: exchange.caller.request, page: { items, next in
            if let found = items.first(where: { $0.activity["id"]?.text == id.description }) {
                exchange.respond(.json(live(module: found.module, onScreen: found.onScreen, activity: found.activity)))
                return
            }
            if let next {
                next()
                return
            }
            nookd.callForResult(Request(id: nil, operation: .historyShow(.id(id)))) { result in
                switch result {
                case .success(let answer):
                    guard case .object(let members)? = answer["entry"] else {
                        exchange.respond(NativeAPIErrors.notFound(id: id.description).response)
                        return
                    }
                    exchange.respond(.json(.object([("state", .string("ended"))] + members)))
                case .failure(.refused(let json)) where ProtocolError(json: json)?.code == .notFound:
                    exchange.respond(NativeAPIErrors.notFound(id: id.description).response)
                case .failure(let failure):
                    exchange.respond(nookd.failure(failure).response)
                }
            }
        }, failed: { failure in exchange.respond(nookd.failure(failure).response) })
    }

    /// `PATCH /api/v1/activities/{id}` (U1): the body names the fields to change (`null`
    /// clears an optional one), checked by the protocol's own ``ActivityChanges``; `restartDwell`
    /// restarts its time on the glass.
    static func update(_ exchange: any HTTPExchange, _ parameters: [String: String], _ nookd: any NookdCalls) {
        let id: NookActivityID, changes: ActivityChanges, restartDwell: Bool
        do throws(HTTPAPIError) {
            id = try NativeAPIBody.activityID(parameters)
            var members = try NativeAPIBody.object(exchange.request)
            restartDwell = try NativeAPIBody.takeBool("restartDwell", from: &members) ?? false
            do throws(ProtocolError) {
                changes = try ActivityChanges(json: .object(members), path: "")
            } catch {
                throw NativeAPIErrors.local(error)
            }
            guard !changes.members.isEmpty || restartDwell else {
                throw HTTPAPIError(status: 422, code: "missing_field", message: "the body names no field to change (and restartDwell is not set)")
            }
        } catch {
            exchange.respond(error.response)
            return
        }
        nookd.askAbout(id, .update(.id(id), changes: changes, restartDwell: restartDwell), for: exchange, strippingPrefix: "changes") { answer in
            exchange.respond(.json(answer))
        }
    }

    /// `POST /api/v1/activities/{id}/dismiss`.
    static func dismiss(_ exchange: any HTTPExchange, _ parameters: [String: String], _ nookd: any NookdCalls) {
        end(exchange, parameters, nookd, verb: "dismissed") { .dismiss($0) }
    }

    /// `DELETE /api/v1/activities/{id}`.
    static func cancel(_ exchange: any HTTPExchange, _ parameters: [String: String], _ nookd: any NookdCalls) {
        end(exchange, parameters, nookd, verb: "cancelled") { .cancel($0) }
    }

    /// Dismiss and cancel: 200 when it ended because of this request; 409 when it was already
    /// ending on its own (nookd's `alreadyEnding`: it ends as that, not as asked); 410 when it had
    /// ended; 404 when no activity had the id.
    private static func end(_ exchange: any HTTPExchange, _ parameters: [String: String], _ nookd: any NookdCalls,
                            verb: String, _ operation: (NookActivityID) -> NookOperation) {
        let id: NookActivityID
        do throws(HTTPAPIError) { id = try NativeAPIBody.activityID(parameters) } catch {
            exchange.respond(error.response)
            return
        }
        nookd.askAbout(id, operation(id), for: exchange) { answer in
            if let ending = answer["alreadyEnding"]?.text {
                exchange.respond(HTTPAPIError(status: 409, code: "already_ending", field: "id",
                                              message: "activity \(id) was already ending (\(ending)); it was not \(verb)").response)
                return
            }
            exchange.respond(.json(answer))
        }
    }

    /// `DELETE /api/v1/activities?key=K` (`&module=M`): cancels the caller's cards with the key
    /// (a publish token's: those it sent; another token's are left alone, U3), waiting or on
    /// the glass: a sender taking back what it sent expects it gone from the glass, as ntfy's
    /// delete and an alert's resolve take it (nookd's `cancel-all` takes only waiting cards,
    /// Q4). After the requests with the key taken before it (``CardKeyOrder``), so it ends a
    /// card whose create was still on its way to nookd.
    static func cancelByKey(_ exchange: any HTTPExchange, _: [String: String], _ nookd: any NookdCalls, order: CardKeyOrder) {
        let key: String, module: String?
        do throws(HTTPAPIError) {
            guard let given = try NativeAPIBody.text("key", in: exchange.request) else {
                throw HTTPAPIError(status: 422, code: "missing_field", field: "key",
                                   message: "is required: DELETE on the collection cancels the activities with this key (DELETE /api/v1/activities/{id} cancels one)")
            }
            key = given
            module = try NativeAPIBody.module(in: exchange.request)
        } catch {
            exchange.respond(error.response)
            return
        }
        order.run(key: key, exchange) { exchange in
            CardDelivery.end(key: key, module: module, how: .cancel, for: exchange.caller, nookd: nookd) { result in
                switch result {
                case .failure(let error): exchange.respond(error.response)
                case .success(let ended): exchange.respond(.json(.object([("cancelled", .number(Double(ended)))])))
                }
            }
        }
    }
}
