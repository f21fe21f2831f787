import NookActivities
import NookProtocol

extension Daemon {
    /// `update` (U1): changes each targeted activity in place, after checking the sender may
    /// (U3). A bad change, an unknown or ended activity, or someone else's changes nothing.
    /// `name`: the sender the request states it acts for, whose own cards alone it may change.
    func performUpdate(_ target: UpdateTarget, changes: ActivityChanges, restartDwell: Bool,
                       peer: PeerCredentials, actingFor name: String? = nil) async throws(ProtocolError) -> UpdateAnswer {
        // A sound no card could play is the request's fault, whether or not its cards still live.
        try checkCardSound(changes.json[ActivityField.sound.wireName]?.text, repeat: changes.soundRepeat, priority: nil,
                           field: "changes.sound", repeatField: "changes.soundRepeat")
        var targets: [(NookActivityQueue, NookActivityID)] = []
        switch target {
        case .id(let id):
            for module in modules where await queues[module]!.holds(id) { targets.append((queues[module]!, id)) }
            if targets.isEmpty {
                throw ProtocolError(.notFound, field: "activity", "no pending or shown activity has id \(id); it has ended or never was")
            }
        case .key(let key, let moduleName):
            let names = try moduleName.map { (name) throws(ProtocolError) in [try queue(name).0] } ?? modules
            for module in names {
                for id in await queues[module]!.live(withKey: key) { targets.append((queues[module]!, id)) }
            }
            if targets.isEmpty {
                throw ProtocolError(.notFound, field: "key", "no pending or shown activity has key '\(key)'")
            }
        }
        let ownership = self.ownership
        let isAdmin = name == nil && ownership.isAdmin(peer)
        // An icon file is checked here, in the connection's task, not inside the queue: a FIFO
        // or a slow disk must not stall the queue (see checkedIcon).
        var iconPath: String?
        if let asked = Self.askedIcon(changes) {
            iconPath = try checkedIcon(asked).systemImage
        }
        let resolvedIcon = iconPath
        let change: @Sendable (NookActivity) throws -> NookActivity = { [screen] current in
            if let refusal = ownership.refusal(of: "update", on: current, by: peer, actingFor: name, isAdmin: isAdmin) { throw refusal }
            var result = try changes.applied(to: current)
            if let resolvedIcon { result.systemImage = resolvedIcon }
            // Resolved above, or meaningless without a new icon: a held card has none.
            result.iconFallback = nil
            return screen.fitted(result)
        }
        // All or nothing: the change is made and checked for every card before any is changed,
        // so one card refusing it (a timeout for a timed card) leaves the others as they were.
        // Each queue checks its cards again and changes them in one step of its own.
        var checked: [(queue: NookActivityQueue, ids: [NookActivityID])] = []
        for (queue, id) in targets {
            guard let current = await queue.activity(id) else {
                // Ended since it was looked up: by key, there is nothing left of it to change.
                if case .key = target { continue }
                throw ProtocolError(.notFound, field: "activity", "no pending or shown activity has id \(id); it has ended or never was")
            }
            do {
                let changed = try change(current)
                try changed.validate()
                if changes.soundRepeat != nil || changes.json[ActivityField.sound.wireName] != nil { try checkRepeat(of: changed) }
            } catch let error as ProtocolError {
                // By key, someone else's card with the same key is left alone, not an error,
                // unless it was the only one.
                if case .key = target, error.code == .forbidden, targets.count > 1 { continue }
                throw error
            } catch let error as NookActivityValidationError {
                throw ProtocolError(.invalid, field: "changes.\(error.field)", error.problem)
            } catch {
                throw ProtocolError(.internalError, "update failed: \(error)")
            }
            if let index = checked.firstIndex(where: { $0.queue === queue }) { checked[index].ids.append(id) } else { checked.append((queue, [id])) }
        }
        if checked.isEmpty {
            if case .key = target, !targets.isEmpty { throw ProtocolError(.forbidden, field: "key", "every activity with this key was sent by " + (name.map { "another sender than '\($0)'" } ?? "another user")) }
            throw ProtocolError(.notFound, field: "activity", "no pending or shown activity is left to update; it has ended")
        }
        var changed: [UpdateAnswer.Change] = []
        // A new key coalesces only the pending cards the caller may end (U3).
        let permits = owners(for: peer, actingFor: name)
        for (queue, ids) in checked {
            do {
                // A card that ended since it was checked is left out by the queue: by key, the
                // others are still updated (another module's may already be).
                for update in try await queue.update(ids, restartDwell: restartDwell, coalescing: permits, change) {
                    let fields = ActivityField.changed(from: update.previous, to: update.activity).map(\.wireName)
                    changed.append(UpdateAnswer.Change(id: update.activity.id, fields: fields, onScreen: update.wasOnScreen))
                    // The same icon path again changes nothing the queue sees, but the file there
                    // may be a new picture (R3): the screen compares the file with the one drawn.
                    // Not awaited: the answer does not wait for a picture to be read and drawn.
                    if fields.isEmpty, update.wasOnScreen, resolvedIcon != nil {
                        Task { [screen, id = update.activity.id] in await screen.recheckIcon(of: id) }
                    }
                }
            } catch let error as ProtocolError {
                throw error
            } catch let error as NookUpdateError {
                switch error {
                case .notFound:
                    // Ended between the look-up and the update.
                    throw ProtocolError(.notFound, field: "activity", error.description)
                case .invalid(let problem):
                    throw ProtocolError(.invalid, field: "changes.\(problem.field)", problem.problem)
                }
            } catch {
                throw ProtocolError(.internalError, "update failed: \(error)")
            }
        }
        if changed.isEmpty {
            throw ProtocolError(.notFound, field: "activity", "no pending or shown activity is left to update; it has ended")
        }
        return UpdateAnswer(updated: changed)
    }
}

extension Daemon {
    /// `update`.
    static let updateHandlers: [OperationHandler] = [
        OperationHandler(\.cards.update) { daemon, request, reply in
            try await daemon.updateRequest(request.target, changes: request.changes, restartDwell: request.restartDwell, reply)
        },
    ]

    /// `update` (U1, U3): changes cards in place.
    func updateRequest(_ target: UpdateTarget, changes: ActivityChanges, restartDwell: Bool, _ reply: RequestReply) async throws(ProtocolError) {
        let (request, connection) = (reply.request, reply.connection)
        let result = try await performUpdate(target, changes: changes, restartDwell: restartDwell, peer: connection.peer, actingFor: request.sender)
        reply.answerChange(said(of: result, changes: changes, peer: connection.peer))
    }

    /// `enqueue` with `inPlace` (U1, U3): the live cards with `key` it reaches become `activity`
    /// (every field, ``ActivityChanges/replacing(with:)``), answered as an enqueue naming them.
    /// False when none is live, or only cards it does not reach: the caller queues it. A change
    /// refused (a sound file that is not there) is the request's answer, naming the activity's
    /// field as an enqueue's refusal does.
    func changeInPlace(into activity: NookActivity, key: String, module moduleName: String?, reach: InPlaceReach,
                       _ reply: RequestReply) async throws(ProtocolError) -> Bool {
        let (request, connection) = (reply.request, reply.connection)
        let changes = ActivityChanges.replacing(with: activity)
        let result: UpdateAnswer
        do throws(ProtocolError) {
            result = try await performUpdate(.key(key, module: moduleName), changes: changes, restartDwell: false,
                                             peer: connection.peer, actingFor: reach == .any ? nil : request.statedSender)
        } catch where [.notFound, .forbidden].contains(error.code) {
            return false
        } catch {
            var named = error
            if let field = error.field, field.hasPrefix("changes.") { named.field = "activity." + field.dropFirst("changes.".count) }
            throw named
        }
        let said = said(of: result, changes: changes, peer: connection.peer)
        guard let first = said.updated.first else { return false }
        // Without a module the key reaches every module's cards: the answer names the first's.
        var module = moduleName
        for name in modules where module == nil {
            if await queues[name]!.holds(first.id) { module = name.rawValue }
        }
        reply.answerChange(EnqueueAnswer(id: first.id, module: module ?? modules[0].rawValue, warnings: said.warnings, updated: said.updated))
        return true
    }

    /// `result` with what its sender is told beside it (M3, B4), logged as well.
    private func said(of result: UpdateAnswer, changes: ActivityChanges, peer: PeerCredentials) -> UpdateAnswer {
        var result = result
        // As drawn: an icon id or name found as a file is that file (M3).
        let asked = Self.askedIcon(changes)
        let drawn = asked.map { (try? checkedIcon($0)) ?? $0 }
        let icon = drawn?.systemImage
        let iconNote = asked.flatMap { asked in drawn.flatMap { iconPolicy.said(asked: asked, drawn: $0) } }
        // The cards that slid in already among those whose `field` changed.
        let updated = result.updated
        let slidIn = { (field: ActivityField) in
            updated.filter { $0.fields.contains(field.wireName) && ($0.onScreen || self.parts.sound.slidInWithSound($0.id)) }.map(\.id)
        }
        result.warnings = (iconNote.map { [$0] } ?? [])
            + screen.undrawn(title: changes.json[ActivityField.title.wireName]?.text,
                             subtitle: changes.json[ActivityField.subtitle.wireName]?.text, icon: icon)
            // A new sound for a card that slid in already (on the glass, or back in the queue
            // after a more urgent one) would never play: said, not dropped. So would a new repeat.
            + parts.sound.unplayable(changes.json[ActivityField.sound.wireName]?.text, slidIn: slidIn(.sound))
            + parts.sound.unrepeated(changes.soundRepeat,
                                     sound: changes.json[ActivityField.sound.wireName]?.text, priorityHasSound: true, slidIn: slidIn(.soundRepeat))
            // A card on a dark glass (switched off, or at 0 %) changed unseen: said, as at its enqueue.
            + (updated.contains(where: \.onScreen) ? parts.displayPower.unseenNote : [])
        logSaid(result.warnings, about: result.updated.map { "\($0.id)" }.joined(separator: ", "), peer: peer)
        // Debug: a client may send a hundred updates a second.
        logger.debug("updated \(result.updated.map { "\($0.id) (\($0.fields.joined(separator: ", ")))" }.joined(separator: "; "))",
                    metadata: ["peer": "\(peer)"])
        return result
    }

    /// The icon an update's changes ask for, with the fallback a bridge sent beside it (M3).
    static func askedIcon(_ changes: ActivityChanges) -> NookActivity? {
        guard let icon = changes.json[ActivityField.icon.wireName]?.text else { return nil }
        var asked = NookActivity(title: "icon", systemImage: icon)
        asked.iconFallback = changes.json["iconFallback"]?.text
        return asked
    }
}

extension Daemon {
    /// A new repeat or sound, the repeat with the sound it repeats: the card's own (the update's, or the one it had),
    /// else its priority's, as enqueue checks it, so a count that would pass 15 minutes is refused
    /// rather than cut short as it plays. The sound itself was checked already; a file of the
    /// card's that is gone since is the sound's matter as it plays, not this update's.
    fileprivate func checkRepeat(of card: NookActivity) throws(ProtocolError) {
        do throws(ProtocolError) {
            try checkCardSound(card, field: "changes.sound", repeatField: "changes.soundRepeat")
        } catch where error.field == "changes.soundRepeat" {
            throw error
        } catch {}
    }
}

extension ActivityChanges {
    /// The repeat the changes ask for; nil where they leave it (or clear it).
    fileprivate var soundRepeat: NookSoundRepeat? {
        json[ActivityField.soundRepeat.wireName].flatMap { try? ActivityFieldValue.soundRepeat($0).get() }
    }
}
