import NookProtocol

/// The live view over HTTP (V1): the glass as a PNG, and a stream of PNGs that sends a part
/// only when the glass changes. Both are chains of nookd's `frame` operation, the waits of
/// every viewer shared in one call (``GlassWaiters``), which ``NookdLink`` sends on a
/// connection of its own: nookd answers a connection's requests in order, so a `frame`
/// waiting for the next change (up to 25 s) would hold every call behind it. A slow viewer
/// gets the newest frame when it reads, never a queue of old ones.
public enum LiveViewRoutes {
    /// The boundary between the stream's parts.
    static let boundary = "nookframe"

    public static func routes() -> [HTTPRoute] {
        let waiters = GlassWaiters()
        let parts = StreamParts()
        return [
            HTTPRoute("GET", "/api/v1/screen.png", scope: .read) { exchange, _, nookd in screenPNG(exchange, nookd, waiters) },
            HTTPRoute("GET", "/api/v1/screen/stream", scope: .read) { exchange, _, nookd in stream(exchange, nookd, waiters, parts) },
        ]
    }

    /// `?after=N`: a generation, a whole number from 0; nil when absent.
    static func after(in request: HTTPRequest) -> Result<Int?, HTTPAPIError> {
        guard let text = request.parameter("after") else { return .success(nil) }
        guard !text.isEmpty, text.utf8.count <= 16, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(text),
              number <= 9_007_199_254_740_992 else {
            return .failure(HTTPAPIError(status: 400, code: "invalid_field", field: "after",
                                         message: "after must be a frame generation (a whole number from 0), got '\(text.prefix(40))'"))
        }
        return .success(number)
    }

    static func screenPNG(_ exchange: any HTTPExchange, _ nookd: any NookdCalls, _ waiters: GlassWaiters) {
        switch after(in: exchange.request) {
        case .failure(let error): exchange.respond(error.response)
        case .success(let after):
            let answer: (Result<FrameAnswer, HTTPAPIError>) -> Void = { result in
                // Ended early meanwhile (nook-http stopping, the token withdrawn), or gone.
                guard exchange.isOpen else { return }
                switch result {
                case .success(let answer):
                    exchange.respond(HTTPResponse(status: 200, headers: [
                        ("Content-Type", "image/png"), ("Cache-Control", "no-store"), ("X-Nook-Frame", String(answer.generation)),
                    ], body: answer.png))
                case .failure(let error):
                    exchange.respond(error.response)
                }
            }
            if let after {
                exchange.whenEndedEarly { [weak exchange] why in exchange?.respond(endedEarly(why).response) }
                waiters.next(after: after, viewer: exchange.client, nookd: nookd, isOpen: { [weak exchange] in exchange?.isOpen ?? false },
                             done: answer)
            } else {
                waiters.now(nookd: nookd, done: answer)
            }
        }
    }

    /// `multipart/x-mixed-replace`: the frame on the glass, then one part per newer frame,
    /// until the client goes.
    static func stream(_ exchange: any HTTPExchange, _ nookd: any NookdCalls, _ waiters: GlassWaiters, _ parts: StreamParts) {
        // A viewer without a place is a plain 503, not a stream that ends after its first frame.
        if let refusal = waiters.refusal(for: exchange.client) {
            exchange.respond(refusal.response)
            return
        }
        // The first frame is asked for before the stream starts, so that nookd being down is a
        // plain 503, not a stream that ends at once. Stopping or a withdrawn token while it is
        // asked for answers at once, as for a long poll; the stream's own end replaces this.
        exchange.whenEndedEarly { [weak exchange] why in exchange?.respond(endedEarly(why).response) }
        waiters.now(nookd: nookd) { result in
            // Ended early meanwhile (nook-http stopping, the token withdrawn), or gone.
            guard exchange.isOpen else { return }
            switch result {
            case .failure(let error):
                exchange.respond(error.response)
            case .success(let first):
                let writer = exchange.startStream(status: 200, headers: [
                    ("Content-Type", "multipart/x-mixed-replace; boundary=\(boundary)"), ("Cache-Control", "no-store"),
                ])
                writer.send(parts.part(first))
                // Stopping or a withdrawn token ends the stream now, not at the glass's next change.
                exchange.whenEndedEarly { _ in writer.finish() }
                follow(after: first.generation, exchange, writer, nookd, waiters, parts)
            }
        }
    }

    /// The next link of the chain: waits in nookd for a frame newer than `generation`.
    static func follow(after generation: Int, _ exchange: any HTTPExchange, _ writer: any HTTPStreamWriter, _ nookd: any NookdCalls,
                       _ waiters: GlassWaiters, _ parts: StreamParts) {
        guard exchange.isOpen else {
            writer.finish()
            return
        }
        waiters.next(after: generation, viewer: exchange.client, nookd: nookd, isOpen: { [weak exchange] in exchange?.isOpen ?? false }) { result in
            guard exchange.isOpen else {
                writer.finish()
                return
            }
            switch result {
            case .success(let answer):
                // The same generation: nookd's wait ran out with the glass unchanged.
                if answer.generation > generation { writer.send(parts.part(answer)) }
                follow(after: max(generation, answer.generation), exchange, writer, nookd, waiters, parts)
            case .failure:
                // nookd went away or refused: the stream ends, and a viewer reconnects.
                writer.finish()
            }
        }
    }

    /// What a wait for the glass that the server ends early answers.
    static func endedEarly(_ why: HTTPEarlyEnd) -> HTTPAPIError {
        switch why {
        case .stopping:
            return HTTPAPIError(status: 503, code: "stopping", message: "nook-http is stopping; ask again shortly", headers: [("Retry-After", "1")])
        case .accessWithdrawn:
            return HTTPAPIError(status: 401, code: "unauthorized", message: "the token was withdrawn (the token file was read again)",
                                headers: HTTPAccess.challenge)
        }
    }

    /// One part of the stream: its headers, the PNG, and the boundary that ends it.
    static func part(_ answer: FrameAnswer) -> [UInt8] {
        var bytes = Array("--\(boundary)\r\nContent-Type: image/png\r\nContent-Length: \(answer.png.count)\r\nX-Nook-Frame: \(answer.generation)\r\n\r\n".utf8)
        bytes += answer.png
        bytes += Array("\r\n".utf8)
        return bytes
    }

    /// Asks nookd for a frame; `done` gets it or the HTTP error to answer with.
    static func frame(after: Int?, _ nookd: any NookdCalls, done: @escaping (Result<FrameAnswer, HTTPAPIError>) -> Void) {
        nookd.call(Request(id: .number(1), operation: .frame(after: after))) { result in
            switch result {
            case .success(let line):
                do {
                    // `done` gets nookd's whole answer line; the frame is its result.
                    guard let result = line["result"] else { throw ProtocolError(.missingField, field: "result", "is required") }
                    done(.success(try FrameAnswer(json: result)))
                } catch {
                    done(.failure(HTTPAPIError(status: 502, code: "nookd_error", message: "nookd's frame could not be read: \(error)")))
                }
            case .failure(let error):
                done(.failure(httpError(error)))
            }
        }
    }

    static func httpError(_ error: NookdCallError) -> HTTPAPIError {
        switch error {
        case .unavailable(let why):
            return HTTPAPIError(status: 503, code: "nookd_unavailable", message: why, headers: [("Retry-After", "1")])
        case .outcomeUnknown(let why):
            return NativeAPIErrors.outcomeUnknown(why)
        case .refused(let json):
            let failure = ProtocolError(json: json)
            let message = failure?.message ?? json.serialized
            if failure?.code == .unavailable {
                return HTTPAPIError(status: 503, code: "nookd_unavailable", field: failure?.field, message: message, headers: [("Retry-After", "1")])
            }
            if failure?.code == .invalid || failure?.code == .wrongType {
                return HTTPAPIError(status: 400, code: "invalid_field", field: failure?.field, message: message)
            }
            return HTTPAPIError(status: 502, code: "nookd_error", field: failure?.field, message: message)
        }
    }
}

/// The stream's part of the newest frame, built once for all the viewers it goes to: the part
/// that waits for each slow viewer is then one shared array, not a copy of the PNG each.
final class StreamParts {
    private var frame: FrameAnswer?
    private var bytes: [UInt8] = []

    func part(_ answer: FrameAnswer) -> [UInt8] {
        // The same answer handed to every viewer holds the same PNG storage; the one kept here
        // stays alive, so no other PNG can be at that address.
        let same = frame.map { kept in
            kept.generation == answer.generation && kept.png.withUnsafeBufferPointer { a in
                answer.png.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress && a.count == b.count }
            }
        } ?? false
        if !same {
            frame = answer
            bytes = LiveViewRoutes.part(answer)
        }
        return bytes
    }
}
