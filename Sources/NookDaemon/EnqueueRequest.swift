import NookLogging
import NookActivities
import NookProtocol

extension Daemon {
    /// The operation this file answers (see ``OperationHandler``).
    static let enqueueHandlers: [OperationHandler] = [
        OperationHandler(\.cards.enqueue) { daemon, request, reply in
            if let reach = request.inPlace, let key = request.activity.coalescingKey,
               try await daemon.changeInPlace(into: request.activity, key: key, module: request.module, reach: reach, reply) {
                return
            }
            try await daemon.enqueueRequest(request.activity, module: request.module, wait: request.wait, reply)
        },
    ]

    /// `enqueue` (Q1, C2): one activity, answered once it is queued; with `wait`, its events until its last.
    func enqueueRequest(_ requested: NookActivity, module moduleName: String?, wait: Bool, _ reply: RequestReply) async throws(ProtocolError) {
        let (request, connection) = (reply.request, reply.connection)
        // Subscribed before the activity is queued: its first event is never missed.
        var events: AsyncStream<NookActivityEvent>?
        let accepted = await enqueue([(request, requested)], module: moduleName, on: connection, beforeQueueing: { queue in
            if wait { events = queue.events(where: { $0.id == requested.id }) }
        })
        if accepted == [true], let events { await streamUntilFinal(from: events, to: connection, request: request) }
    }

    /// The share of a queue an activity counts against (`queue.per_sender`, Q16): its sender's.
    /// A uid's own programs share one, and apart from them each name a relay (a uid of
    /// `daemon.relay_users`, `relays`) states for whom it sends (a nook-http token) has its own.
    /// The names any other program states count in its uid's share.
    @Sendable static func share(of activity: NookActivity, relays: Set<UInt32>) -> String { share(of: activity.sender, relays: relays) }

    /// The share a sender's cards or apps (`apps.per_sender`) count against.
    static func share(of sender: NookSender?, relays: Set<UInt32>) -> String {
        guard let sender else { return "nookd" }
        return sender.relayed && relays.contains(sender.uid) ? "\(sender.uid) \(sender.name ?? "")" : "\(sender.uid)"
    }

    /// A share's sender in a refusal's words: a uid, or a relay's stated sender.
    func shareHolder(_ sender: NookSender?) -> String {
        sender.map { sender in
            guard sender.relayed else { return "uid \(sender.uid)" }
            guard ownership.relayUIDs.contains(sender.uid) else {
                return "uid \(sender.uid) (whose stated senders share its own share: it is not in daemon.relay_users)"
            }
            return "sender \"\(sender.name ?? "")\" (relayed by uid \(sender.uid))"
        } ?? "nookd"
    }

    /// The id of an accepted enqueue, or the error its request is answered with.
    private func accepted(_ result: NookEnqueueResult, _ activity: NookActivity, module: NookModuleID, queue: NookActivityQueue,
                          share: (held: Int, limit: Int)?, on connection: ClientConnection) throws(ProtocolError) -> NookActivityID {
        switch result {
        case .rejected(_, .invalid(let error)):
            throw ProtocolError(.invalid, field: "activity.\(error.field)", error.problem)
        case .rejected(_, .queueFull):
            if let share {
                let sender = shareHolder(activity.sender)
                throw ProtocolError(.queueFull, "\(sender) already holds \(share.held) pending \(share.held == 1 ? "activity" : "activities") in module \(module), "
                                    + "none of lower priority, and queue.per_sender allows \(share.limit)")
            }
            throw ProtocolError(.queueFull, "module \(module) already holds \(queue.configuration.capacity) pending activities of equal or higher priority")
        case .rejected(_, let reason):
            throw ProtocolError(.invalid, "rejected: \(reason)")
        case .accepted(let id):
            logger.info("enqueued \"\(LogText.short(activity.title))\"", metadata: ["id": "\(id)", "module": "\(module)", "peer": "\(connection.peer)"])
            return id
        }
    }

    /// Every enqueue goes through here: one, or a run of plain enqueues for one module with
    /// distinct ids (pipelined lines), or a history entry replayed. Each activity is fitted to
    /// the screen, its icon file checked, its sender recorded (U3), and refused if its id is
    /// pending or on screen in any module or being enqueued by another request right now (an id
    /// names one activity until it ends; only the refused request hears of it). Then all are
    /// queued in one call, in order, each key coalescing only the pending cards the sender may
    /// end (U3), and answered in order, each once its journal records are settled (J1):
    /// `answer` makes an accepted one's answer. `beforeQueueing` runs just before the queue
    /// call (a `wait` subscribes to the activity's events there). Returns, per activity,
    /// whether it was accepted. `hastening`: the last run of a read, whose answers (and the
    /// read's before them) wait for their records next.
    @discardableResult
    func enqueue(_ run: [(request: Request, activity: NookActivity)], module name: String?, on connection: ClientConnection, hastening: Bool = false,
                 beforeQueueing: (NookActivityQueue) -> Void = { _ in },
                 answer: (NookActivityID, NookModuleID, _ warnings: [String]) -> any NookAnswer = { EnqueueAnswer(id: $0, module: $1.rawValue, warnings: $2) }) async -> [Bool] {
        connection.holdOutput()
        let module: NookModuleID, queue: NookActivityQueue
        do throws(ProtocolError) {
            (module, queue) = try self.queue(name)
        } catch {
            for (request, _) in run { connection.send(ResponseLine.failure(id: request.id, error: error).encoded()) }
            return run.map { _ in false }
        }
        // Each request's outcome: the error it is answered with, or its place in the call below.
        var outcomes: [Result<Int, ProtocolError>] = []
        var activities: [NookActivity] = []
        var reserved: [NookActivityID] = []
        outcomes.reserveCapacity(run.count)
        activities.reserveCapacity(run.count)
        reserved.reserveCapacity(run.count)
        for (_, requested) in run {
            do throws(ProtocolError) {
                var activity = try checkedIcon(screen.fitted(requested))
                try checkCardSound(activity, field: "activity.sound", repeatField: "activity.soundRepeat")
                // Its owner (U3): the connection's uid and pid; the name the client stated for
                // whom it relays (nook-http's token), else the process's.
                var sender = connection.peer.sender
                if let stated = activity.sender?.name { (sender.name, sender.relayed) = (stated, true) }
                activity.sender = sender
                guard idsBeingEnqueued.withLock({ $0.insert(activity.id).inserted }) else {
                    throw Self.idRefusal(activity.id, "being enqueued by another request")
                }
                reserved.append(activity.id)
                outcomes.append(.success(activities.count))
                activities.append(activity)
            } catch {
                outcomes.append(.failure(error))
            }
        }
        defer { idsBeingEnqueued.withLock { ids in for id in reserved { ids.remove(id) } } }
        // Held in another module: refused before the queue sees it (its own queue refuses an id it holds).
        var heldIn: [NookActivityID: NookModuleID] = [:]
        for other in modules where other != module {
            for id in await queues[other]!.held(among: reserved) where heldIn[id] == nil { heldIn[id] = other }
        }
        // A snoozed card's id stays its sender's until it is back (T2): a newer card of that
        // sender ends the snooze, anyone else's is refused as for a card on the glass (U3).
        var snoozedByOthers: Set<NookActivityID> = []
        let snoozed = reserved.compactMap { parts.touch.snoozed($0) }
        if !snoozed.isEmpty {
            let mayReplace = owners(for: connection.peer, actingFor: run.first?.request.statedSender)
            for card in snoozed where !mayReplace(card) { snoozedByOthers.insert(card.id) }
        }
        let queued = activities.filter { heldIn[$0.id] == nil && !snoozedByOthers.contains($0.id) }
        // The admin check (a look-up in the user database) only when a key may need it. A run
        // shares one stated sender (see handle(_:batch:)): a key then coalesces only the cards
        // that name sent (U3).
        let permits = queued.contains { $0.coalescingKey != nil } ? owners(for: connection.peer, actingFor: run.first?.request.statedSender) : Self.noOwners
        let perSender = state.withLock { $0.config.requests.perSender }
        beforeQueueing(queue)
        var results = perSender > 0
            ? await queue.enqueue(contentsOf: queued, coalescing: permits, shareLimit: perSender)[...]
            : await queue.enqueue(contentsOf: queued, coalescing: permits).map { (result: $0, shareHeld: Int?.none) }[...]
        // The writers start on the read's records now, while the answers are made, rather than
        // when the answers wait for them (`journaled_ack_p99_vs_fdatasync_p99`). Only after a
        // read's last run: an earlier run's sync would cover only its records, and the rest of
        // the read would wait for a second. Only when something was recorded: refusals wait for nothing.
        // The run's records are made in the queue call: its answers depend on the mark after it,
        // not on one that records made meanwhile elsewhere (a card shown, another client's) would
        // raise past the sync hastened here.
        let recorded = journal?.mark
        if hastening, let recorded, results.contains(where: { $0.result.isAccepted }) { journal?.hastenSettling(through: recorded, with: history) }
        var wasAccepted: [Bool] = []
        wasAccepted.reserveCapacity(run.count)
        let iconPolicy = self.iconPolicy
        let prioritySounds = state.withLock { $0.config.sound.byPriority }
        for ((request, requested), outcome) in zip(run, outcomes) {
            let verdict: Result<NookActivityID, ProtocolError>
            var warnings: [String] = []
            switch outcome {
            case .failure(let error):
                verdict = .failure(error)
            case .success(let index):
                let activity = activities[index]
                warnings = (iconPolicy.said(asked: requested, drawn: activity).map { [$0] } ?? [])
                    + screen.undrawn(title: activity.title, subtitle: activity.subtitle, icon: activity.systemImage)
                    + parts.displayPower.unseenNote
                    + parts.sound.unplayable(activity.sound, priority: activity.priority)
                    + parts.sound.unrepeated(activity.soundRepeat, sound: activity.sound, priorityHasSound: prioritySounds[activity.priority] != nil)
                if snoozedByOthers.contains(activity.id) {
                    verdict = .failure(Self.idRefusal(activity.id, "snoozed by a long press, and another sender's"))
                } else if let other = heldIn[activity.id] {
                    verdict = .failure(Self.idRefusal(activity.id, "queued or on screen in module \(other)"))
                } else {
                    let (result, shareHeld) = results.removeFirst()
                    if case .rejected(_, .invalid(let error)) = result, error.field == "id" {
                        // The queue's own refusal of an id it holds, as the check across modules words it.
                        verdict = .failure(Self.idRefusal(activity.id, "queued or on screen in module \(module)"))
                    } else {
                        do throws(ProtocolError) {
                            verdict = .success(try accepted(result, activity, module: module, queue: queue,
                                                                        share: shareHeld.map { ($0, perSender) }, on: connection))
                        } catch {
                            verdict = .failure(error)
                        }
                    }
                }
            }
            switch verdict {
            case .success(let id):
                logSaid(warnings, about: "\(id)", peer: connection.peer)
                if let recorded { connection.dependOn(recorded) }
                connection.send(ResponseLine.success(id: request.id, result: answer(id, module, warnings).json).encoded())
                wasAccepted.append(true)
            case .failure(let error):
                connection.send(ResponseLine.failure(id: request.id, error: error).encoded())
                wasAccepted.append(false)
            }
        }
        // Z1: while quiet, a priority configured to be suppressed ends at once.
        if queued.contains(where: { quiet.suppresses($0.priority) }) { await endSuppressed() }
        return wasAccepted
    }

    static func idRefusal(_ id: NookActivityID, _ place: String) -> ProtocolError {
        ProtocolError(.invalid, field: "activity.id", "activity \(id) is already \(place); an id names one activity until it ends")
    }

    /// What an answer said to its sender is in the log too (R3, M3): a bridge's sender may
    /// never read the answer (a D-Bus notification, an MQTT message), its owner reads the log.
    /// `what` is made only when there is something to log: an enqueue's id as text cost a tenth of
    /// the instructions the pipelined path added after 0957e97 (callgrind, docs/benchmarks.md).
    func logSaid(_ warnings: [String], about what: @autoclosure () -> String, peer: PeerCredentials) {
        guard !warnings.isEmpty else { return }
        logger.info("told the sender of \(what()): \(warnings.joined(separator: "; "))", metadata: ["peer": "\(peer)"])
    }

    /// The activity with its icon file, if it names one, checked and replaced by the canonical
    /// path. Read here, in the connection's task: a FIFO, a device or a huge file is refused at
    /// once instead of stalling the screen later.
    func checkedIcon(_ activity: NookActivity) throws(ProtocolError) -> NookActivity {
        try iconPolicy.checked(activity)
    }

    /// The icon directories as configured now (a reload may change them).
    var iconPolicy: IconPolicy {
        state.withLock { IconPolicy(directories: $0.config.requests.iconDirectories, wants: iconWants) }
    }

    /// For `enqueue` with `wait`: streams the activity's events (`events` holds only that
    /// activity's) until its final one (C2).
    private func streamUntilFinal(from events: AsyncStream<NookActivityEvent>,
                                  to connection: ClientConnection, request: Request) async {
        await connection.releaseOutputWhenSettled()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [journal, history] in
                for await event in events {
                    await journal?.settle(event, with: history)
                    guard connection.send(ResponseLine.event(id: request.id, event: EventMessage(event).json).encoded()) else { return }
                    if event.isFinal { return }
                }
            }
            group.addTask { await connection.waitUntilClosed() }
            await group.next()
            group.cancelAll()
        }
    }
}
