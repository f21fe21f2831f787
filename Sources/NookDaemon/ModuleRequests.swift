import NookLogging
import NookActivities
import NookProtocol

extension Daemon {
    /// The operations on the modules' queues and on which one is in front.
    static let moduleHandlers: [OperationHandler] = [
        OperationHandler(\.modules.suspend) { daemon, moduleName, reply in
            try await daemon.moduleQueueRequest(module: moduleName, reply)
        },
        OperationHandler(\.modules.resume) { daemon, moduleName, reply in
            try await daemon.moduleQueueRequest(module: moduleName, reply)
        },
        OperationHandler(\.modules.quiesce) { daemon, moduleName, reply in
            try await daemon.moduleQueueRequest(module: moduleName, reply)
        },
        OperationHandler(\.modules.list) { daemon, request, reply in
            try await daemon.listRequest(module: request.module, offset: request.offset, after: request.after, limit: request.limit, reply)
        },
        OperationHandler(\.modules.focus) { daemon, name, reply in
            try await daemon.focusRequest(name, reply)
        },
    ]

    /// `suspend`, `resume` and `quiesce` (Q7, Q8): one module's queue, or every one. They hold back or release
    /// everyone's cards: a whole-device change (the dispatch checked the scope).
    func moduleQueueRequest(module moduleName: String?, _ reply: RequestReply) async throws(ProtocolError) {
        let request = reply.request
        var names: [String] = []
        for (module, queue) in try targets(moduleName) {
            switch request.operation {
            case .suspend: await queue.suspend()
            case .resume: await queue.resume()
            default: await queue.quiesce()
            }
            names.append(module.rawValue)
        }
        statusChanges.notify(.suspended)
        reply.answer(ModulesAnswer(modules: names))
    }

    /// `list` (C1): the cards on the glass and pending, a page at a time.
    func listRequest(module moduleName: String?, offset: Int, after: ListCursor?, limit: Int?, _ reply: RequestReply) async throws(ProtocolError) {
        if offset > 0 {
            // Version 1's paging by count, kept for the clients written for it.
            var lists: [ListAnswer.Module] = []
            for (module, queue) in try targets(moduleName) {
                let snapshot = await queue.snapshot()
                lists.append(ListAnswer.Module(name: module.rawValue, current: snapshot.current, pending: snapshot.pending))
            }
            reply.answer(ListAnswer.page(of: lists, offset: offset, limit: limit ?? .max))
        } else {
            reply.answer(try await listPage(moduleName, after: after, limit: limit ?? ListAnswer.maximumLimit))
        }
    }

    /// `focus` (Q10): switches the foreground module (a whole-device change: the dispatch checked the scope).
    func focusRequest(_ name: String, _ reply: RequestReply) async throws(ProtocolError) {
        do {
            let report = try await arbiter.switchForeground(to: NookModuleID(name))
            statusChanges.notify(.foreground)
            logger.info("foreground is now \(report.to)", metadata: ["from": "\(report.from?.rawValue ?? "none")", "preparedInTime": "\(report.preparedInTime)"])
            reply.answer(FocusAnswer(from: report.from?.rawValue, to: report.to.rawValue, preparedInTime: report.preparedInTime))
        } catch {
            throw ProtocolError(.unknownModule, field: "module", "\(error); this nookd has \(modules.map(\.rawValue).joined(separator: ", "))")
        }
    }
}
