import NookActivities
import NookProtocol

/// A card a compatible sender asked for (H2, H3), ready for nookd: the activity, the module it
/// goes to, whether a live card with its key is to be changed in place (U1) rather than a new
/// one queued, and what of the request was cut or left out, one note each.
public struct PublishedCard: Sendable, Equatable {
    public var activity: NookActivity
    public var module: String?
    /// With a coalescing key: a pending or shown card of the caller's with that key becomes this
    /// one in place (nookd's in-place enqueue), and only when there is none is this one queued.
    public var updatesInPlace: Bool
    public var notes: [String]
    /// For each of the card's fields (nookd's names, and `module`), the sender's field it was
    /// made from: AWTRIX's `duration` is the card's `dwell`. A refusal names the sender's field,
    /// never one the sender did not send (``namingSendersField(_:)``). nil: the card's own
    /// names are the sender's (the native API's shape).
    public var senderFields: [String: String]?

    public init(activity: NookActivity, module: String? = nil, updatesInPlace: Bool = false, notes: [String] = [],
                senderFields: [String: String]? = nil) {
        (self.activity, self.module, self.updatesInPlace, self.notes) = (activity, module, updatesInPlace, notes)
        self.senderFields = senderFields
    }

    /// `error` as the sender reads it: the card's field it names (`activity.dwell`, an update's
    /// `changes.dwell`, or `dwell`) becomes the sender's field it came from. A field no field of
    /// the sender's made (one nook-http chose) is named in the message as the card's, with no
    /// `field`.
    public func namingSendersField(_ error: HTTPAPIError) -> HTTPAPIError {
        guard let senderFields, var field = error.field else { return error }
        for prefix in ["activity.", "changes."] where field.hasPrefix(prefix) { field.removeFirst(prefix.count) }
        var named = error
        if let sent = senderFields[field] {
            named.field = sent
        } else {
            named.field = nil
            named.message = "the card's \(field): \(error.message)"
        }
        return named
    }

}

/// What nookd did with a card: the activity's id and whether a live card was changed in place.
public struct DeliveredCard: Sendable, Equatable {
    /// The card the sender's key now names: the one queued, or of the live cards changed the
    /// first nookd names (the one on the glass, else the first in line).
    public var id: NookActivityID
    public var updated: Bool
    public var warnings: [String]
    /// Every live card the update changed, `id` first: more than one when an admin's key
    /// reached several tokens' cards (U3); just `id` for a card queued.
    public var changed: [NookActivityID]

    public init(id: NookActivityID, updated: Bool, warnings: [String] = [], changed: [NookActivityID]? = nil) {
        (self.id, self.updated, self.warnings, self.changed) = (id, updated, warnings, changed ?? [id])
    }
}

/// The calls to nookd a publishing route makes, each answered from nookd's `done`: a card is
/// queued (or changes the live one with its key, in the same call) and cards are ended by key.
/// The HTTP answer waits for nookd's answer, which comes once the change is durable (J1). Each card is sent as
/// the caller's (its token's name is the sender), and a key reaches only the caller's own
/// cards unless it is an admin (U3): two tokens posting the same key have a card each.
public enum CardDelivery {
    /// Queues `card`, or with ``PublishedCard/updatesInPlace`` changes the live card of the
    /// caller's with its key and queues it only if none is live: one call to nookd either way
    /// (an in-place enqueue), so a route may end its key's turn once it is made
    /// (``CardKeyOrder/lastCallMade(_:on:)``).
    public static func deliver(_ card: PublishedCard, for caller: HTTPCaller, to nookd: any NookdCalls,
                               done answer: @escaping (Result<DeliveredCard, HTTPAPIError>) -> Void) {
        var card = card
        card.activity.sender = NookSender(uid: 0, pid: 0, name: caller.senderName)
        // What nookd refuses it names by the card's fields; the sender hears of its own.
        let done: (Result<DeliveredCard, HTTPAPIError>) -> Void = { [card] result in answer(result.mapError(card.namingSendersField)) }
        // The live cards the caller's update would reach: its own, or an admin's every sender's (U3).
        let inPlace: InPlaceReach? = card.updatesInPlace ? (caller.statedSender == nil ? .any : .sender) : nil
        nookd.call(Request(id: nil, operation: .enqueue(card.activity, module: card.module, wait: false, inPlace: inPlace))) { result in
            switch result {
            case .success(let line):
                do throws(ProtocolError) {
                    let answer = try EnqueueAnswer(json: resultValue(line))
                    done(.success(DeliveredCard(id: answer.id, updated: answer.updated != nil, warnings: answer.warnings,
                                                changed: answer.updated.map { $0.map(\.id) })))
                } catch {
                    done(.failure(NookdAnswer.unreadable(error)))
                }
            case .failure(let failure):
                done(.failure(HTTPCoreRoutes.error(for: failure, nookd: nookd)))
            }
        }
    }

    /// How ``end(key:module:how:nookd:done:)`` ends a card: `cancel` (its sender withdrew it:
    /// an alert resolved, an ntfy delete) or `dismiss` (as if a person had, an ntfy clear).
    public enum Ending: Sendable { case cancel, dismiss }

    /// Ends every card of the caller's not yet ended with `key` (the one on the glass leaves
    /// through its normal end, pending ones never show); `done` gets how many were ended, 0 when
    /// none was live. Another token's cards with the key are left alone (U3).
    public static func end(key: String, module: String?, how: Ending, for caller: HTTPCaller, nookd: any NookdCalls,
                           done: @escaping (Result<Int, HTTPAPIError>) -> Void) {
        var ended = 0
        // Page by page, each page's cards ended before the next is read: a card with the key
        // can wait behind a megabyte of others, and nookd's cursor lets no card that ends
        // meanwhile hide another from the next page.
        nookd.listPages(module: module, asking: { Request(id: nil, operation: $0) }, page: { items, next in
            let ids = items.filter { $0.activity[ActivityField.key.wireName]?.text == key }
                .compactMap { $0.activity["id"]?.text.flatMap(NookActivityID.init) }
            func onward() { if let next { next() } else { done(.success(ended)) } }
            guard !ids.isEmpty else { return onward() }
            endEach(ids, how: how, for: caller, nookd: nookd) { result in
                switch result {
                case .success(let count):
                    ended += count
                    onward()
                case .failure(let failure):
                    done(ended > 0 ? .success(ended) : .failure(failure))
                }
            }
        }, failed: { failure in
            // A later page's failure does not undo what an earlier one ended.
            done(ended > 0 ? .success(ended) : .failure(HTTPCoreRoutes.error(for: failure, nookd: nookd)))
        })
    }

    /// Ends each of `ids`, pipelined: every end is sent at once and `done` waits for the last.
    /// `done` gets how many were ended.
    private static func endEach(_ ids: [NookActivityID], how: Ending, for caller: HTTPCaller, nookd: any NookdCalls,
                                done: @escaping (Result<Int, HTTPAPIError>) -> Void) {
        var remaining = ids.count, ended = 0
        var failure: HTTPAPIError?
        for id in ids {
            let operation: NookOperation = how == .cancel ? .cancel(id) : .dismiss(id)
            nookd.call(caller.request(operation)) { result in
                switch result {
                case .success: ended += 1
                // Ended on its own meanwhile: nothing is left to end. Or another token's:
                // not the caller's to end.
                case .failure(.refused(let error)) where [.notFound, .forbidden].contains(ProtocolError(json: error)?.code): break
                case .failure(let error): failure = failure ?? HTTPCoreRoutes.error(for: error, nookd: nookd)
                }
                remaining -= 1
                guard remaining == 0 else { return }
                if let failure { done(.failure(failure)) } else { done(.success(ended)) }
            }
        }
    }

    /// The `result` of an answer line (`done` gets the whole line).
    static func resultValue(_ line: JSONValue) -> JSONValue {
        if line["ok"] != nil || line["result"] != nil { return line["result"] ?? .null }
        return line
    }
}

/// An answer of nookd's that could not be read, as an HTTP answer.
enum NookdAnswer {
    static func unreadable(_ error: ProtocolError) -> HTTPAPIError {
        HTTPAPIError(status: 502, code: "nookd_error", message: "nookd's answer could not be read: \(error)")
    }
}
