import NookLogging
import NookActivities
import NookProtocol
import NookSystem

extension Daemon {
    /// Answers the lines of one read in order (C1). Consecutive plain enqueues for one module
    /// (no `wait`, distinct ids) go to their queue in one call: a pipelining client
    /// otherwise cost two hops to the queue's executor and back per line, about half of nookd's
    /// time under load. Each line is still answered on its own and in order, after the same
    /// checks, and the answers still wait for their journal records (J1). Before each request
    /// (or run) it waits while the client's answers pile up unread (back-pressure, C1).
    func handle(_ connection: ClientConnection, batch lines: [[UInt8]]) async {
        var run: [(request: Request, activity: NookActivity)] = []
        run.reserveCapacity(min(lines.count, Self.longestRun))
        var runIDs: Set<NookActivityID> = []
        var runModule: String?
        var runSender: String?
        for line in lines {
            let decoded = Request.decode(line)
            if case .success(let request) = decoded, case .enqueue(let activity, let module, false, nil) = request.operation, !Self.isPastDeadline(request) {
                // A run shares its module and its stated sender (whose cards its keys coalesce).
                if !run.isEmpty, module != runModule || activity.sender?.name != runSender || runIDs.contains(activity.id) || run.count == Self.longestRun {
                    guard await connection.makeRoom(), Self.begin(run, on: connection) else { return }
                    await enqueue(run, module: runModule, on: connection)
                    run.removeAll(keepingCapacity: true)
                    runIDs.removeAll(keepingCapacity: true)
                }
                runModule = module
                runSender = activity.sender?.name
                run.append((request, activity))
                runIDs.insert(activity.id)
                continue
            }
            if !run.isEmpty {
                guard await connection.makeRoom(), Self.begin(run, on: connection) else { return }
                await enqueue(run, module: runModule, on: connection)
                run.removeAll(keepingCapacity: true)
                runIDs.removeAll(keepingCapacity: true)
            }
            // Nothing begins once nookd stops: the connection's last line names what did.
            guard await connection.makeRoom(), connection.begin(through: decoded.requestID) else { return }
            // Held again after a request that streamed (and released) mid-batch.
            connection.holdOutput()
            await handle(connection, decoded)
        }
        if !run.isEmpty, await connection.makeRoom(), Self.begin(run, on: connection) { await enqueue(run, module: runModule, on: connection, hastening: true) }
    }

    /// A run of enqueues begins as one (``ClientConnection/begin(through:)``).
    private static func begin(_ run: [(request: Request, activity: NookActivity)], on connection: ClientConnection) -> Bool {
        connection.begin(through: run.last { $0.request.id != nil }?.request.id)
    }

    /// Whether the client's deadline for the request has passed (nookd was stopped or stalled
    /// while the request waited in its socket).
    static func isPastDeadline(_ request: Request) -> Bool {
        guard let deadline = request.deadline else { return false }
        return MonotonicClock.seconds > deadline
    }

    /// At most this many enqueues go to the queue in one call. A read of 64 KiB holds about 700
    /// short ones, and arrays of that many requests and activities (hundreds of kilobytes) were
    /// mapped afresh by malloc for every read, page faults and copies that cost a tenth of
    /// nookd's time; 64 a call keeps them on the heap and still saves all but one hop in 64.
    static let longestRun = 64

    /// Answers one request line (C1). Bad input gets a structured error naming the field and
    /// changes nothing (C3); the connection stays open.
    func handle(_ connection: ClientConnection, _ line: [UInt8]) async {
        await handle(connection, Request.decode(line))
    }

    private func handle(_ connection: ClientConnection, _ decoded: Result<Request, RequestFailure>) async {
        switch decoded {
        case .failure(let failure):
            logger.debug("bad request: \(failure.error)", metadata: ["peer": "\(connection.peer)"])
            connection.send(ResponseLine.failure(id: failure.id, error: failure.error).encoded())
        case .success(let request) where Self.isPastDeadline(request):
            connection.send(ResponseLine.failure(id: request.id, error: ProtocolError(
                .unavailable, field: "deadline", "the request arrived after its deadline (its client has stopped waiting): not carried out")).encoded())
        case .success(let request):
            do {
                try await perform(request, on: connection)
            } catch {
                connection.send(ResponseLine.failure(id: request.id, error: error).encoded())
            }
        }
    }

    func queue(_ name: String?) throws(ProtocolError) -> (NookModuleID, NookActivityQueue) {
        let module = name.map { NookModuleID($0) } ?? arbiter.foregroundModule ?? modules[0]
        guard let queue = queues[module] else {
            throw ProtocolError(.unknownModule, field: "module", "no module '\(module)'; this nookd has \(modules.map(\.rawValue).joined(separator: ", "))")
        }
        return (module, queue)
    }

    /// The queues an operation with an optional module applies to: that one, or all.
    func targets(_ name: String?) throws(ProtocolError) -> [(NookModuleID, NookActivityQueue)] {
        if let name { return [try queue(name)] }
        return modules.map { ($0, queues[$0]!) }
    }

    /// Hands the request to its operation's handler (``OperationHandler``) with the fields its
    /// row read, once its scope (the protocol's table says who may ask) lets the caller ask.
    private func perform(_ request: Request, on connection: ClientConnection) async throws(ProtocolError) {
        let (name, scope, call) = request.operation.visit(OperationHandler.Dispatch())
        switch scope {
        case .anyone, .own: break
        case .device(let change):
            if let refusal = ownership.deviceRefusal(of: change, by: connection.peer) { throw refusal }
        case .debug:
            guard state.withLock({ $0.config.requests.pressInputs }) else {
                throw ProtocolError(.unavailable, field: "op", "\(name.rawValue) is off; set debug.press_inputs = true in nookd's config to act as the buttons over the socket")
            }
        }
        guard let call else {
            throw ProtocolError(.internalError, field: "op", "this nookd has no handler for '\(name.rawValue)'")
        }
        do {
            try await call(self, RequestReply(request: request, connection: connection, journal: journal, history: history))
        } catch let error as ProtocolError {
            throw error
        } catch {
            throw ProtocolError(.internalError, field: "op", "'\(name.rawValue)' failed inside nookd: \(error)")
        }
    }
}

extension Result<Request, RequestFailure> {
    /// The request's id, or the id of a line refused, when it could be read.
    var requestID: RequestID? {
        switch self {
        case .success(let request): request.id
        case .failure(let failure): failure.id
        }
    }
}
