import NookActivities
import NookProtocol

/// nookd's half of a row of the operations' table: the handler of one operation. The
/// protocol's ``NookOperation/Entry`` is the other half (the request's fields, its answer,
/// who may ask); the dispatch checks that scope before the handler runs. Each concern
/// declares the rows of the operations it owns beside their handlers, in its own file
/// (`cardHandlers` in CardRequests.swift, `historyHandlers` in HistoryService.swift …), and
/// ``Daemon/operationHandlers`` gathers them.
struct OperationHandler: Sendable {
    let name: NookOperation.Name
    /// Answers the request (``RequestReply/answer(_:)``), or throws the `ProtocolError` it is
    /// answered with. Not typed throws: Swift 6.0 (Debian 13's) is not trusted with async
    /// closures that throw a typed error; the dispatch takes any other error as nookd's fault.
    let handle: @Sendable (Daemon, RequestReply) async throws -> Void

    init(_ name: NookOperation.Name, _ handle: @escaping @Sendable (Daemon, RequestReply) async throws -> Void) {
        (self.name, self.handle) = (name, handle)
    }
}

extension Daemon {
    /// Every operation's handler, by its wire name: the rows each concern registers. A name
    /// registered twice stops nookd at its start; one missing is answered `internalError`
    /// (OperationHandlerTests checks there is exactly one for each).
    static let operationHandlers: [NookOperation.Name: OperationHandler] = Dictionary(
        uniqueKeysWithValues: operationHandlerRows.map { ($0.name, $0) })

    /// The concerns' rows. A new operation goes into its concern's list; only a new concern
    /// is added here.
    static var operationHandlerRows: [OperationHandler] {
        enqueueHandlers + cardHandlers + updateHandlers + moduleHandlers + statusHandlers + streamHandlers + pressHandlers
            + pictureHandlers + homeHandlers + quietHandlers + historyHandlers + appHandlers
    }
}

/// The request being answered and where its answer goes.
struct RequestReply: Sendable {
    let request: Request
    let connection: ClientConnection
    let journal: ActivityJournal?
    let history: ActivityHistory

    /// The success line answering the request.
    func answer(_ result: some NookAnswer) {
        connection.send(ResponseLine.success(id: request.id, result: result.json).encoded())
    }

    /// An answer that reports a change: it leaves once the change's journal records, and the
    /// history entries of what it ended, are settled (J1, U4). The queue recorded them before
    /// the call that made the change returned.
    func answerChange(_ result: some NookAnswer, ending ended: EndedByRequest? = nil) {
        // An activity ended on the glass records its end now, in the journal and in the
        // history: the answer says it is gone, and it must neither come back nor be missing
        // from the history if nookd dies or the power fails during its slide out (U4).
        if let ended { history.ended(ended.id, arrival: ended.historyArrival, how: ended.how.rawValue) }
        if let journal {
            if let ended { journal.ended(ended.id, arrival: ended.journalArrival) }
            connection.dependOn(journal.mark)
        }
        answer(result)
    }

    /// For a row whose pattern does not match its request: a table put together wrongly.
    var misrouted: ProtocolError {
        ProtocolError(.internalError, field: "op", "nookd handed '\(request.operation.name.rawValue)' to another operation's handler")
    }
}
