import NookActivities
import NookProtocol

extension Daemon {
    /// The apps (A1) and their rotation (A2).
    static let appHandlers: [OperationHandler] = [
        OperationHandler(.appSet) { daemon, reply in
            guard case .appSet(let app) = reply.request.operation else { throw reply.misrouted }
            try daemon.appSetRequest(app, reply)
        },
        OperationHandler(.appRemove) { daemon, reply in
            guard case .appRemove(let name) = reply.request.operation else { throw reply.misrouted }
            try daemon.appRemoveRequest(name, reply)
        },
        OperationHandler(.appList) { daemon, reply in
            guard case .appList = reply.request.operation else { throw reply.misrouted }
            reply.answer(AppListAnswer(apps: daemon.apps.list()))
        },
        OperationHandler(.appShow) { daemon, reply in
            guard case .appShow(let name) = reply.request.operation else { throw reply.misrouted }
            guard let state = daemon.apps.list().first(where: { $0.app.name == name }) else { throw Daemon.noApp(name) }
            reply.answer(AppShowAnswer(app: state))
        },
        OperationHandler(.appNext) { daemon, reply in
            guard case .appNext = reply.request.operation else { throw reply.misrouted }
            try daemon.appMove(reply) { $0.move(by: 1) }
        },
        OperationHandler(.appPrevious) { daemon, reply in
            guard case .appPrevious = reply.request.operation else { throw reply.misrouted }
            try daemon.appMove(reply) { $0.move(by: -1) }
        },
        OperationHandler(.appSwitch) { daemon, reply in
            guard case .appSwitch(let name) = reply.request.operation else { throw reply.misrouted }
            try daemon.appMove(reply) { rotation throws(ProtocolError) in
                guard let moved = rotation.switchTo(name) else { throw Daemon.noApp(name) }
                return moved
            }
        },
    ]

    static func noApp(_ name: String) -> ProtocolError {
        ProtocolError(.notFound, field: "name", "no app named '\(name)' (nookctl app list names them)")
    }

    /// `app-set` (A1): a new app, or one of the same name replaced in place by whoever may (U3).
    func appSetRequest(_ requested: NookApp, _ reply: RequestReply) throws(ProtocolError) {
        let connection = reply.connection
        var app = requested
        // Its owner (U3), as a card's: the connection's uid and pid, and the name it stated.
        var sender = connection.peer.sender
        if let stated = reply.request.sender { (sender.name, sender.relayed) = (stated, true) }
        app.sender = sender
        // The icon file is checked as a card's is (R3).
        if let icon = app.icon {
            app.icon = try checkedIcon(NookActivity(title: app.name, systemImage: icon)).systemImage
        }
        let (ownership, peer, stated) = (self.ownership, connection.peer, reply.request.sender)
        // Looked up before the rotation's lock is taken: the group database may be slow.
        let isAdmin = ownership.isAdmin(peer)
        // Its sender's share of the apps (`apps.per_sender`), counted as a card's share of a
        // queue is; root, nookd's own user and the admin group have none, as they own every
        // app (U3), unless they relay for a stated sender, who has its own.
        let relays = ownership.relayUIDs
        let share = Daemon.share(of: sender, relays: relays)
        let sameShare: ((NookSender?) -> Bool)? = isAdmin && stated == nil ? nil : { Daemon.share(of: $0, relays: relays) == share }
        let replaced: NookAppShelf.Entry?
        do throws(AppRotation.Refusal) {
            replaced = try apps.set(app, sameShare: sameShare) { existing in
                ownership.appRefusal(of: "replace", app: existing.app.name, owner: existing.app.sender, by: peer, actingFor: stated, isAdmin: isAdmin)
            }
        } catch {
            switch error {
            case .app(.invalid(let problem)): throw ProtocolError(.invalid, field: "app." + problem.field, problem.problem)
            case .app(let full): throw ProtocolError(.queueFull, field: "app." + full.field, full.problem)
            case .forbidden(let refusal): throw refusal
            case .share(let held, let limit):
                throw ProtocolError(.queueFull, field: "app.name",
                                    "\(shareHolder(sender)) already keeps \(held) \(held == 1 ? "app" : "apps"), the most apps.per_sender allows (\(limit)); "
                                    + "remove one of them first (nookctl app rm NAME) or set one of them again")
            }
        }
        logger.info("apps: \(replaced == nil ? "added" : "updated") \(app.name)", metadata: ["peer": "\(connection.peer)"])
        reply.answerChange(AppSetAnswer(name: app.name, replaced: replaced != nil))
    }

    /// `app-rm` (A1): by its sender, root or the admin group (U3).
    func appRemoveRequest(_ name: String, _ reply: RequestReply) throws(ProtocolError) {
        let (ownership, peer, stated) = (self.ownership, reply.connection.peer, reply.request.sender)
        let isAdmin = ownership.isAdmin(peer)
        let removed: NookAppShelf.Entry?
        do throws(AppRotation.Refusal) {
            removed = try apps.remove(name) { existing in
                ownership.appRefusal(of: "remove", app: name, owner: existing.app.sender, by: peer, actingFor: stated, isAdmin: isAdmin)
            }
        } catch {
            switch error {
            case .forbidden(let refusal): throw refusal
            case .app(let problem): throw ProtocolError(.invalid, field: "name", problem.description)
            case .share: throw ProtocolError(.internalError, field: "name", "a removal was refused as beyond a share")
            }
        }
        guard removed != nil else { throw Daemon.noApp(name) }
        logger.info("apps: removed \(name)", metadata: ["peer": "\(peer)"])
        reply.answerChange(AppRemoveAnswer(removed: name))
    }

    /// `app-next`, `app-previous`, `app-switch` (A2): anyone may turn the rotation, as a press does.
    private func appMove(_ reply: RequestReply, _ move: (AppRotation) throws(ProtocolError) -> (turn: String?, afterCard: Bool)) throws(ProtocolError) {
        guard apps.count > 0 else { throw ProtocolError(.notFound, field: "op", "there are no apps to move between (nookctl app set NAME --text …)") }
        let moved = try move(apps)
        reply.answer(AppSwitchAnswer(showing: moved.turn, afterCard: moved.afterCard))
    }
}
