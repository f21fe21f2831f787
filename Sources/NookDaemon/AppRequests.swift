import NookActivities
import NookProtocol
import NookConfig

extension Daemon {
    /// The apps (A1) and their rotation (A2).
    static let appHandlers: [OperationHandler] = [
        OperationHandler(\.apps.appSet) { daemon, app, reply in
            try daemon.appSetRequest(app, reply)
        },
        OperationHandler(\.apps.appSetAll) { daemon, apps, reply in
            try daemon.appSetAllRequest(apps, reply)
        },
        OperationHandler(\.apps.appRemove) { daemon, name, reply in
            try daemon.appRemoveRequest(name, reply)
        },
        OperationHandler(\.apps.appList) { daemon, _, reply in
            reply.answer(AppListAnswer(apps: daemon.apps.list()))
        },
        OperationHandler(\.apps.appShow) { daemon, name, reply in
            guard let state = daemon.apps.list().first(where: { $0.app.name == name }) else { throw Daemon.noApp(name) }
            reply.answer(AppShowAnswer(app: state))
        },
        OperationHandler(\.apps.appNext) { daemon, _, reply in
            try daemon.appMove(reply) { $0.move(by: 1) }
        },
        OperationHandler(\.apps.appPrevious) { daemon, _, reply in
            try daemon.appMove(reply) { $0.move(by: -1) }
        },
        OperationHandler(\.apps.appSwitch) { daemon, name, reply in
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
        let replaced = try setApps([requested], reply, field: nil)
        let warnings = undrawn(requested)
        logSaid(warnings, about: "app \(requested.name)", peer: reply.connection.peer)
        reply.answerChange(AppSetAnswer(name: requested.name, replaced: replaced[0], warnings: warnings))
    }

    /// `app-set-all` (A3, an AWTRIX array): every app set as `app-set` sets one, or none.
    func appSetAllRequest(_ requested: [NookApp], _ reply: RequestReply) throws(ProtocolError) {
        let replaced = try setApps(requested, reply, field: { "apps[\($0)]" })
        let answers = zip(requested, replaced).map { AppSetAnswer(name: $0.name, replaced: $1, warnings: undrawn($0)) }
        for answer in answers { logSaid(answer.warnings, about: "app \(answer.name)", peer: reply.connection.peer) }
        reply.answerChange(AppSetAllAnswer(apps: answers))
    }

    /// A card standing in for `app`'s icon and its fallback, checked as a card's (R3, M3).
    private static func iconStandIn(_ app: NookApp) -> NookActivity {
        var standIn = NookActivity(title: app.name, systemImage: app.icon)
        standIn.iconFallback = app.iconFallback
        return standIn
    }

    /// What of an app the glass will not show, said in its answer as a card's is (R3, M3).
    private func undrawn(_ app: NookApp) -> [String] {
        // As drawn: an icon id or name found as a file is that file (M3).
        let asked = Self.iconStandIn(app)
        let drawn = (try? checkedIcon(asked)) ?? asked
        let icon = drawn.systemImage
        let note = iconPolicy.said(asked: asked, drawn: drawn, shownOn: "app")
        return (note.map { [$0] } ?? [])
            + screen.undrawn(title: app.chart == nil ? app.content.plainText : nil, subtitle: nil, icon: icon, titleField: "text")
            // A drawing's text is drawn in the same font.
            + (app.drawing?.commands ?? []).enumerated().flatMap { index, command -> [String] in
                guard case .text(_, _, let text, _) = command else { return [] }
                return screen.undrawn(title: text, subtitle: nil, icon: nil, titleField: "draw[\(index)] text")
            }
    }

    /// Sets `requested` in one step for the request's sender; whether each replaced one.
    /// `field` names the app at an index in an array's errors (`apps[2]`); nil: one app (`app`),
    /// whose errors are `app-set`'s own.
    private func setApps(_ requested: [NookApp], _ reply: RequestReply, field arrayField: ((Int) -> String)?) throws(ProtocolError) -> [Bool] {
        let connection = reply.connection
        // Its owner (U3), as a card's: the connection's uid and pid, and the name it stated.
        var sender = connection.peer.sender
        if let stated = reply.request.sender { (sender.name, sender.relayed) = (stated, true) }
        let isArray = arrayField != nil
        let field = arrayField ?? { _ in "app" }
        let unset = requested.count > 1 ? "; none of the \(requested.count) apps was set" : isArray ? "; it was not set" : ""
        var apps: [NookApp] = []
        for (index, requestedApp) in requested.enumerated() {
            var app = requestedApp
            app.sender = sender
            // The icon file is checked as a card's is (R3).
            if app.icon != nil {
                do throws(ProtocolError) {
                    app.icon = try checkedIcon(Self.iconStandIn(app)).systemImage
                    app.iconFallback = nil
                } catch {
                    // Named as the app's field (the check is a card's, which names `activity.icon`).
                    throw ProtocolError(error.code, field: field(index) + ".icon", error.message + unset)
                }
            }
            apps.append(app)
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
        // A user's own share (`apps.shares`, M6) where the share is the user's, not a relay's stated sender's.
        let user = sender.relayed && relays.contains(sender.uid) ? nil : sender.uid
        let outcome = self.apps.setAll(apps, sameShare: sameShare, user: user) { existing in
            ownership.appRefusal(of: "replace", app: existing.app.name, owner: existing.app.sender, by: peer, actingFor: stated, isAdmin: isAdmin)
        }
        let replaced: [NookAppShelf.Entry?]
        switch outcome {
        case .success(let entries): replaced = entries
        case .failure(let refused):
            let at = field(refused.index)
            switch refused.refusal {
            case .app(.invalid(let problem)): throw ProtocolError(.invalid, field: at + "." + problem.field, problem.problem + unset)
            case .app(.full(let limit)) where isArray:
                throw ProtocolError(.queueFull, field: "apps",
                                    "nookd keeps at most \(limit) apps and has room for \(max(0, limit - refused.kept)) more; this array adds \(refused.added)"
                                    + unset + " (remove some first)")
            case .app(let full): throw ProtocolError(.queueFull, field: at + "." + full.field, full.problem + unset)
            case .forbidden(let refusal):
                throw isArray ? ProtocolError(refusal.code, field: at + "." + (refusal.field ?? "name"), refusal.message + unset) : refusal
            case .share(let held, let limit, let key):
                // Where the share is a user's, the setting that gives that user more is named (M6).
                let more = user.map { " (\(Service.Apps.share.named(userName(of: $0) ?? String($0)).key) in nook.toml gives that user's programs a share of their own)" } ?? ""
                guard isArray else {
                    throw ProtocolError(.queueFull, field: at + ".name",
                                        "\(shareHolder(sender)) already keeps \(held) \(held == 1 ? "app" : "apps"), the most \(key) allows (\(limit))\(key == Service.Apps.perSender.key ? more : ""); "
                                        + "remove one of them first (nookctl app rm NAME) or set one of them again")
                }
                throw ProtocolError(.queueFull, field: at + ".name",
                                    "\(shareHolder(sender)) may keep at most \(limit) apps (\(key)\(key == Service.Apps.perSender.key ? more : "")), and this array's new apps would pass that at '\(apps[refused.index].name)'"
                                    + unset + " (remove some first, nookctl app rm NAME)")
            }
        }
        for (app, entry) in zip(apps, replaced) {
            logger.info("apps: \(entry == nil ? "added" : "updated") \(app.name)", metadata: ["peer": "\(connection.peer)"])
        }
        return replaced.map { $0 != nil }
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
        reply.answer(AppSwitchAnswer(showing: moved.turn, afterCard: moved.afterCard, afterLight: apps.isLit))
    }
}
