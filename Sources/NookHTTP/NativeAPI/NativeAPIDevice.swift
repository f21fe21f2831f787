import NookProtocol

/// The native API's routes for the board as a whole (H1): status, suspend, resume, quiet.
enum NativeAPIDevice {
    /// `GET /api/v1/status`: nookd's `status` answer as it gives it, with its quiet hours
    /// (`quiet`'s status answer) beside, so a page shows both from one request.
    static func status(_ exchange: any HTTPExchange, _: [String: String], _ nookd: any NookdCalls) {
        nookd.ask(.status, for: exchange) { status in
            nookd.ask(.quiet(.status), for: exchange) { quiet in
                guard case .object(let members) = status else { return exchange.respond(.json(status)) }
                exchange.respond(.json(.object(members.filter { $0.0 != "quiet" } + [("quiet", quiet)])))
            }
        }
    }

    /// `POST /api/v1/suspend` and `/resume` (`?module=M`; default every module).
    static func suspend(_ exchange: any HTTPExchange, _: [String: String], _ nookd: any NookdCalls) {
        modules(exchange, nookd) { .suspend(module: $0) }
    }

    static func resume(_ exchange: any HTTPExchange, _: [String: String], _ nookd: any NookdCalls) {
        modules(exchange, nookd) { .resume(module: $0) }
    }

    private static func modules(_ exchange: any HTTPExchange, _ nookd: any NookdCalls, _ operation: (String?) -> NookOperation) {
        let module: String?
        do throws(HTTPAPIError) { module = try NativeAPIBody.module(in: exchange.request) } catch {
            exchange.respond(error.response)
            return
        }
        nookd.ask(operation(module), for: exchange) { answer in exchange.respond(.json(answer)) }
    }

    /// `PUT /api/v1/quiet` with `{"set": "on" | "off" | "until", "until": "HH:MM" or "45m"}`
    /// (Z1). Read by the protocol's own `quiet` decoder, so the words are nookd's.
    static func quiet(_ exchange: any HTTPExchange, _: [String: String], _ nookd: any NookdCalls) {
        ask(exchange, nookd) { () throws(HTTPAPIError) -> NookOperation in
            let members = try NativeAPIBody.object(exchange.request)
            for (key, _) in members where key != "set" && key != "until" {
                throw HTTPAPIError(status: 422, code: "invalid_field", field: key, message: "is not a field of this request (known: set, until)")
            }
            let set = members.first(where: { $0.0 == "set" })?.1
            if set == .string("status") {
                throw HTTPAPIError(status: 422, code: "invalid_field", field: "set",
                                   message: "must be on, off or until; got 'status' (GET /api/v1/status shows quiet hours)")
            }
            // The OpenAPI file says a string: a null is refused as any other type is.
            if let until = members.first(where: { $0.0 == "until" })?.1, until.text == nil {
                throw HTTPAPIError(status: 422, code: "invalid_field", field: "until", message: "must be a string: HH:MM or a duration such as 45m")
            }
            // nookd reads `until` only with "set": "until"; a time given with on or off would
            // be dropped without a word.
            if case .string(let word)? = set, word != "until", members.contains(where: { $0.0 == "until" }) {
                throw HTTPAPIError(status: 422, code: "invalid_field", field: "until", message: "applies only with \"set\": \"until\"")
            }
            switch NookOperation.Name.quiet.decode(members) {
            case .success(let operation):
                guard case .quiet = operation else {
                    throw HTTPAPIError(status: 422, code: "invalid_field", field: "set", message: "must be on, off or until")
                }
                return operation
            case .failure(let error):
                throw NativeAPIErrors.local(error)
            }
        }
    }

    /// The operation `read` makes of the request asked of nookd, and its answer given as it is;
    /// a request `read` refuses, answered with the refusal.
    static func ask(_ exchange: any HTTPExchange, _ nookd: any NookdCalls, _ read: () throws(HTTPAPIError) -> NookOperation) {
        let operation: NookOperation
        do throws(HTTPAPIError) { operation = try read() } catch {
            exchange.respond(error.response)
            return
        }
        nookd.ask(operation, for: exchange) { answer in exchange.respond(.json(answer)) }
    }

    /// `PUT /api/v1/display` with `{"power": "on" | "off", "forS": N, "brightness": 0–100 | "auto"}`
    /// (M1): the display switched and its brightness set. Read by the protocol's own `display`
    /// decoder, so the words are nookd's; a body asking nothing is refused (`GET` reads it).
    static func display(_ exchange: any HTTPExchange, _: [String: String], _ nookd: any NookdCalls) {
        ask(exchange, nookd) { () throws(HTTPAPIError) -> NookOperation in
            let members = try NativeAPIBody.object(exchange.request)
            let known = NookOperation.table.device.display.entry.fields
            for (key, value) in members {
                guard known.contains(key) else {
                    throw HTTPAPIError(status: 422, code: "invalid_field", field: key, message: "is not a field of this request (known: \(known.joined(separator: ", ")))")
                }
                // The OpenAPI file says what each is: a null is none of them (leave the field out).
                if value == .null { throw HTTPAPIError(status: 422, code: "invalid_field", field: key, message: "must not be null: leave it out instead") }
            }
            switch NookOperation.Name.display.decode(members) {
            case .success(let operation) where operation.changesSomething: return operation
            case .success:
                throw HTTPAPIError(status: 422, code: "missing_field", field: "power",
                                   message: "the body asks for nothing: give power, brightness or both (GET /api/v1/display reads the display)")
            case .failure(let error):
                throw NativeAPIErrors.local(error)
            }
        }
    }
}
