import NookActivities
import NookProtocol

/// nookd's half of a row of the operations' table: the handler of one operation. The
/// protocol's ``NookOperation/Row`` is the rest (the request's fields, their coding, its answer,
/// who may ask); the dispatch checks that scope, then hands the handler the request's fields
/// typed as the row declares them. Each concern declares the handlers of the operations it owns
/// beside them, in its own file (`cardHandlers` in CardRequests.swift, `historyHandlers` in
/// HistoryService.swift …), and ``Daemon/operationHandlers`` gathers them.
struct OperationHandler: Sendable {
    let name: NookOperation.Name
    /// The row's handler, typed by its fields (``Typed``).
    fileprivate let typed: any Sendable

    /// The handler of the row at `row` (`\.apps.appSetAll`). It answers the request
    /// (``RequestReply/answer(_:)``), or throws the `ProtocolError` it is answered with. Not
    /// typed throws: Swift 6.0 (Debian 13's) is not trusted with async closures that throw a
    /// typed error; the dispatch takes any other error as nookd's fault.
    init<Fields>(_ row: KeyPath<NookOperation.Table, NookOperation.Row<Fields>>,
                 _ handle: @escaping @Sendable (Daemon, Fields, RequestReply) async throws -> Void) {
        name = NookOperation.table[keyPath: row].name
        typed = Typed(handle: handle)
    }

    fileprivate final class Typed<Fields>: Sendable {
        let handle: @Sendable (Daemon, Fields, RequestReply) async throws -> Void
        init(handle: @escaping @Sendable (Daemon, Fields, RequestReply) async throws -> Void) { self.handle = handle }
    }

    /// A request handed to its row's handler: the call, with the fields the row read, and who
    /// may make it. The call is nil only if no handler was registered for the row, which
    /// OperationHandlerTests rules out.
    struct Dispatch: NookOperationVisitor {
        func visit<Fields>(_ row: NookOperation.Row<Fields>, _ fields: Fields)
            -> (name: NookOperation.Name, scope: NookOperation.Scope, call: (@Sendable (Daemon, RequestReply) async throws -> Void)?) {
            guard let handler = Daemon.operationHandlers[row.name]?.typed as? Typed<Fields> else { return (row.name, row.scope(of: fields), nil) }
            return (row.name, row.scope(of: fields), { daemon, reply in try await handler.handle(daemon, fields, reply) })
        }
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
            + pictureHandlers + homeHandlers + quietHandlers + indicatorHandlers + displayHandlers + historyHandlers + appHandlers + soundHandlers
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
}
