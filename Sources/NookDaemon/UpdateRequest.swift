import NookActivities
import NookProtocol

extension Daemon {
    /// `update` (U1): changes each targeted activity in place, after checking the sender may
    /// (U3). A bad change, an unknown or ended activity, or someone else's changes nothing.
    func performUpdate(_ target: UpdateTarget, changes: ActivityChanges, restartDwell: Bool,
                       peer: PeerCredentials) async throws(ProtocolError) -> UpdateAnswer {
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
        let isAdmin = ownership.isAdmin(peer)
        // An icon file is checked here, in the connection's task, not inside the queue: a FIFO
        // or a slow disk must not stall the queue (see checkedIcon).
        var iconPath: String?
        if let icon = changes.members.first(where: { $0.0 == ActivityField.icon.wireName })?.1.text {
            iconPath = try checkedIcon(NookActivity(title: "icon", systemImage: icon)).systemImage
        }
        let resolvedIcon = iconPath
        var changed: [UpdateAnswer.Change] = []
        for (queue, id) in targets {
            do {
                let update = try await queue.update(id, restartDwell: restartDwell) { [screen] current in
                    if let refusal = ownership.refusal(of: "update", on: current, by: peer, isAdmin: isAdmin) { throw refusal }
                    var result = try changes.applied(to: current)
                    if let resolvedIcon { result.systemImage = resolvedIcon }
                    return screen.fitted(result)
                }
                changed.append(UpdateAnswer.Change(id: id, fields: ActivityField.changed(from: update.previous, to: update.activity).map(\.wireName),
                                                   onScreen: update.wasOnScreen))
            } catch let error as ProtocolError {
                // By key, someone else's card with the same key is left alone, not an error,
                // unless it was the only one.
                if case .key = target, error.code == .forbidden, targets.count > 1 { continue }
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
            throw ProtocolError(.forbidden, field: "key", "every activity with this key was sent by another user")
        }
        return UpdateAnswer(updated: changed)
    }
}
