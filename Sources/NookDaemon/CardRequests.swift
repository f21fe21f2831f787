import NookActivities
import NookProtocol

extension Daemon {
    /// The operations that end or act on cards, each on the caller's own (U3).
    static let cardHandlers: [OperationHandler] = [
        OperationHandler(\.cards.cancel) { daemon, id, reply in
            try await daemon.cancelRequest(id, reply)
        },
        OperationHandler(\.cards.cancelAll) { daemon, request, reply in
            try await daemon.cancelAllRequest(key: request.key, module: request.module, reply)
        },
        OperationHandler(\.cards.dismiss) { daemon, id, reply in
            try await daemon.dismissRequest(id, reply)
        },
        OperationHandler(\.cards.invoke) { daemon, id, reply in
            try await daemon.invokeRequest(id, reply)
        },
    ]

    /// `cancel` (Q5, U3): the sender's (or an admin's) pending, shown or snoozed activity ends as cancelled.
    func cancelRequest(_ id: NookActivityID, _ reply: RequestReply) async throws(ProtocolError) {
        let (request, connection) = (reply.request, reply.connection)
        let arrivals = (journal?.arrival(of: id), history.arrival(of: id))
        let permits = owners(for: connection.peer, actingFor: request.sender)
        for (_, queue) in modules.map({ ($0, queues[$0]!) }) {
            let outcome = await queue.cancelling(id, permits: permits)
            try refuseIfRefused(outcome, "cancel", peer: connection.peer, actingFor: request.sender)
            guard outcome != .notFound else { continue }
            reply.answerChange(CancelAnswer(cancelled: id, alreadyEnding: outcome.alreadyEndingReason),
                               ending: EndedByRequest(id, arrivals, how: outcome.alreadyEndingReason ?? .cancelled))
            return
        }
        // Snoozed by a touch (T2): not live, but its sender still means it to end.
        if await !parts.touch.dropSnoozes(where: { $0.id == id && permits($0) }).isEmpty {
            reply.answerChange(CancelAnswer(cancelled: id))
            return
        }
        throw ProtocolError(.notFound, field: "activity", "no pending or shown activity has id \(id)")
    }

    /// `cancel-all` (Q4, U3): every card of the caller's with the key, pending, shown or snoozed.
    func cancelAllRequest(key: String, module moduleName: String?, _ reply: RequestReply) async throws(ProtocolError) {
        let (request, connection) = (reply.request, reply.connection)
        // Only the caller's own cards with the key, as its key coalesces only those (U3).
        let permits = owners(for: connection.peer, actingFor: request.sender)
        var count = await parts.touch.dropSnoozes(where: { $0.coalescingKey == key && permits($0) }).count
        for (_, queue) in try targets(moduleName) { count += await queue.cancelAll(coalescingKey: key, permits: permits) }
        reply.answerChange(CancelAllAnswer(cancelled: count))
    }

    /// `dismiss` (U3): the given activity, or the card on the glass (a recalled one included, U5).
    func dismissRequest(_ id: NookActivityID?, _ reply: RequestReply) async throws(ProtocolError) {
        let (request, connection) = (reply.request, reply.connection)
        // Without an id, a recall on the glass (U5) is what is meant, as for the dismiss
        // input: it is nobody's card, so anyone who may use the socket may end it.
        if id == nil, let shown = recall.ending(because: "dismiss requested by \(connection.peer)")?.first {
            reply.answer(DismissAnswer(dismissed: shown))
            return
        }
        let permits = owners(for: connection.peer, actingFor: request.sender)
        for (_, queue) in modules.map({ ($0, queues[$0]!) }) {
            if let id {
                // Taken before the request ends it (see ActivityJournal.ended(_:arrival:)).
                let arrivals = (journal?.arrival(of: id), history.arrival(of: id))
                let outcome = await queue.dismissing(id, permits: permits)
                try refuseIfRefused(outcome, "dismiss", peer: connection.peer, actingFor: request.sender)
                guard outcome != .notFound else { continue }
                reply.answerChange(DismissAnswer(dismissed: id, alreadyEnding: outcome.alreadyEndingReason),
                                   ending: EndedByRequest(id, arrivals, how: outcome.alreadyEndingReason ?? .dismissed))
                return
            }
            // Without an id the card on the glass is meant, checked and ended in one step.
            // It keeps its id until its slide out ends: nobody can enqueue a new one under it
            // before this end is recorded.
            guard let shown = await queue.dismissingCurrent(permits: permits) else { continue }
            try refuseIfRefused(shown.outcome, "dismiss", peer: connection.peer, actingFor: request.sender)
            reply.answerChange(DismissAnswer(dismissed: shown.id, alreadyEnding: shown.outcome.alreadyEndingReason),
                               ending: EndedByRequest(shown.id, (journal?.arrival(of: shown.id), history.arrival(of: shown.id)),
                                                      how: shown.outcome.alreadyEndingReason ?? .dismissed))
            return
        }
        throw ProtocolError(.notFound, field: id == nil ? nil : "activity",
                            id.map { "no pending or shown activity has id \($0)" } ?? "nothing is on the glass to dismiss")
    }

    /// `invoke` (E3, U3): the default action of the card on the glass.
    func invokeRequest(_ id: NookActivityID?, _ reply: RequestReply) async throws(ProtocolError) {
        let (request, connection) = (reply.request, reply.connection)
        // Like a dismiss over the socket, not like the open input at the device: only the
        // sender (or an admin) may act on its card (U3).
        let permits = owners(for: connection.peer, actingFor: request.sender)
        var seen: NookInvokeOutcome = .notOnGlass
        for module in modules {
            let outcome = await queues[module]!.invoking(id, permits: permits)
            switch outcome {
            case .invoked(let activity):
                reply.answer(InvokeAnswer(invoked: activity.id))
                return
            case .refused(let activity):
                throw ownership.refusal(of: "invoke", on: activity, by: connection.peer, actingFor: request.sender, isAdmin: false)
                    ?? ProtocolError(.forbidden, field: "activity", "uid \(connection.peer.uid) may not invoke activity \(activity.id)")
            case .noAction: seen = outcome
            case .notOnGlass: continue
            }
        }
        if case .noAction(let shown) = seen {
            throw ProtocolError(.invalid, field: id == nil ? nil : "activity", "activity \(shown.id) on the glass has no action to invoke")
        }
        throw ProtocolError(.notFound, field: id == nil ? nil : "activity",
                            id.map { "activity \($0) is not on the glass (only a card on the glass can be invoked)" } ?? "nothing is on the glass to invoke")
    }

    /// Whether `peer` may end an activity (U3), for the queue to ask inside its own step: the
    /// group database is read once per request, here, not inside the queue. `name`: the sender
    /// the request states it acts for, which reaches only its own cards (and needs no look-up).
    func owners(for peer: PeerCredentials, actingFor name: String? = nil) -> @Sendable (NookActivity) -> Bool {
        let ownership = self.ownership
        if let name { return { activity in ownership.refusal(of: "end", on: activity, by: peer, actingFor: name) == nil } }
        let isAdmin = ownership.isAdmin(peer)
        return { activity in ownership.refusal(of: "end", on: activity, by: peer, isAdmin: isAdmin) == nil }
    }

    /// For an activity without a key, which coalesces nothing: no look-up needed.
    static let noOwners: @Sendable (NookActivity) -> Bool = { _ in false }

    /// The `forbidden` answer for an activity the queue would not let `peer` end.
    /// Throws `forbidden` if `peer` may not act on the activity (U3); nothing if it is not in
    /// this queue (the caller goes on looking, or answers `notFound`).
    private func refuseIfRefused(_ outcome: NookEndRequestOutcome, _ operation: String, peer: PeerCredentials,
                                 actingFor name: String?) throws(ProtocolError) {
        guard case .refused(let activity) = outcome else { return }
        throw ownership.refusal(of: operation, on: activity, by: peer, actingFor: name, isAdmin: false)
            ?? ProtocolError(.forbidden, field: "activity", "uid \(peer.uid) may not \(operation) activity \(activity.id)")
    }
}

/// An activity a cancel or dismiss ended, for its answer to record the end in the journal and
/// the history: which arrival of its id each saw before the request (an id freed by the end may
/// be taken by a newer activity before the answer), and how it ends.
struct EndedByRequest {
    var id: NookActivityID
    var journalArrival: UInt64?
    var historyArrival: UInt64?
    var how: NookEndReason

    init(_ id: NookActivityID, _ arrivals: (journal: UInt64?, history: UInt64?), how: NookEndReason) {
        (self.id, journalArrival, historyArrival, self.how) = (id, arrivals.journal, arrivals.history, how)
    }
}

extension NookEndRequestOutcome {
    /// How an activity that was already ending ends, for the answer.
    var alreadyEndingReason: NookEndReason? {
        if case .alreadyEnding(let reason) = self { reason } else { nil }
    }
}
