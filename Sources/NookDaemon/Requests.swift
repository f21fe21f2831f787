import NookLogging
import NookActivities
import NookDisplay
import NookProtocol
import NookRender
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
            if case .success(let request) = decoded, case .enqueue(let activity, let module, false) = request.operation, !Self.isPastDeadline(request) {
                // A run shares its module and its stated sender (whose cards its keys coalesce).
                if !run.isEmpty, module != runModule || activity.sender?.name != runSender || runIDs.contains(activity.id) || run.count == Self.longestRun {
                    guard await connection.makeRoom() else { return }
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
                guard await connection.makeRoom() else { return }
                await enqueue(run, module: runModule, on: connection)
                run.removeAll(keepingCapacity: true)
                runIDs.removeAll(keepingCapacity: true)
            }
            guard await connection.makeRoom() else { return }
            // Held again after a request that streamed (and released) mid-batch.
            connection.holdOutput()
            await handle(connection, decoded)
        }
        if !run.isEmpty, await connection.makeRoom() { await enqueue(run, module: runModule, on: connection) }
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

    private func perform(_ request: Request, on connection: ClientConnection) async throws(ProtocolError) {
        func answer(_ result: some NookAnswer) { connection.send(ResponseLine.success(id: request.id, result: result.json).encoded()) }
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
        switch request.operation {
        case .enqueue(let requested, let moduleName, let wait):
            // Subscribed before the activity is queued: its first event is never missed.
            var events: AsyncStream<NookActivityEvent>?
            let accepted = await enqueue([(request, requested)], module: moduleName, on: connection, beforeQueueing: { queue in
                if wait { events = queue.events(where: { $0.id == requested.id }) }
            })
            if accepted == [true], let events { await streamUntilFinal(from: events, to: connection, request: request) }

        case .cancel(let id):
            let arrivals = (journal?.arrival(of: id), history.arrival(of: id))
            let permits = owners(for: connection.peer, actingFor: request.sender)
            for (_, queue) in modules.map({ ($0, queues[$0]!) }) {
                let outcome = await queue.cancelling(id, permits: permits)
                try refuseIfRefused(outcome, "cancel", peer: connection.peer, actingFor: request.sender)
                guard outcome != .notFound else { continue }
                answerChange(CancelAnswer(cancelled: id, alreadyEnding: outcome.alreadyEndingReason),
                             ending: EndedByRequest(id, arrivals, how: outcome.alreadyEndingReason ?? .cancelled))
                return
            }
            // Snoozed by a touch (T2): not live, but its sender still means it to end.
            if await !parts.touch.dropSnoozes(where: { $0.id == id && permits($0) }).isEmpty {
                answerChange(CancelAnswer(cancelled: id))
                return
            }
            throw ProtocolError(.notFound, field: "activity", "no pending or shown activity has id \(id)")

        case .cancelAll(let key, let moduleName):
            // Only the caller's own cards with the key, as its key coalesces only those (U3).
            let permits = owners(for: connection.peer, actingFor: request.sender)
            var count = await parts.touch.dropSnoozes(where: { $0.coalescingKey == key && permits($0) }).count
            for (_, queue) in try targets(moduleName) { count += await queue.cancelAll(coalescingKey: key, permits: permits) }
            answerChange(CancelAllAnswer(cancelled: count))

        case .dismiss(let id):
            // Without an id, a recall on the glass (U5) is what is meant, as for the dismiss
            // input: it is nobody's card, so anyone who may use the socket may end it.
            if id == nil, let shown = recall.ending(because: "dismiss requested by \(connection.peer)")?.first {
                answer(DismissAnswer(dismissed: shown))
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
                    answerChange(DismissAnswer(dismissed: id, alreadyEnding: outcome.alreadyEndingReason),
                                 ending: EndedByRequest(id, arrivals, how: outcome.alreadyEndingReason ?? .dismissed))
                    return
                }
                // Without an id the card on the glass is meant, checked and ended in one step.
                // It keeps its id until its slide out ends: nobody can enqueue a new one under it
                // before this end is recorded.
                guard let shown = await queue.dismissingCurrent(permits: permits) else { continue }
                try refuseIfRefused(shown.outcome, "dismiss", peer: connection.peer, actingFor: request.sender)
                answerChange(DismissAnswer(dismissed: shown.id, alreadyEnding: shown.outcome.alreadyEndingReason),
                             ending: EndedByRequest(shown.id, (journal?.arrival(of: shown.id), history.arrival(of: shown.id)),
                                                    how: shown.outcome.alreadyEndingReason ?? .dismissed))
                return
            }
            throw ProtocolError(.notFound, field: id == nil ? nil : "activity",
                                id.map { "no pending or shown activity has id \($0)" } ?? "nothing is on the glass to dismiss")

        case .invoke(let id):
            // Like a dismiss over the socket, not like the open input at the device: only the
            // sender (or an admin) may act on its card (U3).
            let permits = owners(for: connection.peer, actingFor: request.sender)
            var seen: NookInvokeOutcome = .notOnGlass
            for module in modules {
                let outcome = await queues[module]!.invoking(id, permits: permits)
                switch outcome {
                case .invoked(let activity):
                    answer(InvokeAnswer(invoked: activity.id))
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

        case .suspend(let moduleName), .resume(let moduleName), .quiesce(let moduleName):
            // They hold back or release everyone's cards: a whole-device change.
            if let refusal = ownership.deviceRefusal(of: request.operation.name.rawValue, by: connection.peer) { throw refusal }
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
            answer(ModulesAnswer(modules: names))

        case .status:
            let server = state.withLock { $0.server }
            var status = await status(connections: server?.openConnections ?? 0)
            status.bufferedBytes = server?.bufferedBytes
            answer(status)

        case .list(let moduleName, let offset, let after, let limit):
            if offset > 0 {
                // Version 1's paging by count, kept for the clients written for it.
                var lists: [ListAnswer.Module] = []
                for (module, queue) in try targets(moduleName) {
                    let snapshot = await queue.snapshot()
                    lists.append(ListAnswer.Module(name: module.rawValue, current: snapshot.current, pending: snapshot.pending))
                }
                answer(ListAnswer.page(of: lists, offset: offset, limit: limit ?? .max))
            } else {
                answer(try await listPage(moduleName, after: after, limit: limit ?? ListAnswer.maximumLimit))
            }

        case .watch:
            // Subscribed before the answer: an event right after "watching" is never missed.
            let subscriptions = modules.map { module in
                let tap = WatchTap()
                return (module, tap, queues[module]!.events(where: tap.admit))
            }
            // Status changes no activity event tells: a watcher mirroring `status`
            // asks again on these instead of polling. Sent from whichever thread changed it.
            let statusLine: @Sendable (StatusChangeMessage.Change) -> Void = { [clock] change in
                let at = clock.now.sinceOrigin.nookSeconds
                _ = connection.send(ResponseLine.event(id: request.id, event: StatusChangeMessage(change, at: at).json).encoded())
            }
            // After the answer is queued (output is held until it is released): a change from
            // another thread in between would otherwise be sent ahead of the answer.
            answer(WatchAnswer())
            let observations = [statusChanges.add(statusLine), engagement.observe { _ in statusLine(.engaged) }]
            defer { observations.forEach { $0.cancel() } }
            await connection.releaseOutputWhenSettled()
            await withTaskGroup(of: Void.self) { group in
                for (module, tap, events) in subscriptions {
                    group.addTask { [journal, history] in
                        for await event in events {
                            await journal?.settle(event, with: history)
                            guard connection.send(ResponseLine.event(id: request.id, event: EventMessage(event).json).encoded()) else { return }
                            if let dropped = tap.consumed() {
                                let overflow = OverflowMessage(module: module.rawValue, dropped: dropped)
                                guard connection.send(ResponseLine.event(id: request.id, event: overflow.json).encoded()) else { return }
                            }
                        }
                    }
                }
                group.addTask { await connection.waitUntilClosed() }
                await group.next()
                group.cancelAll()
            }

        case .inputs:
            // Subscribed before the answer: a press right after it is never missed.
            let presses = inputs.subscribe()
            answer(InputsAnswer())
            await connection.releaseOutputWhenSettled()
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await press in presses {
                        guard connection.send(ResponseLine.event(id: request.id, event: press.json).encoded()) else { return }
                    }
                }
                group.addTask { await connection.waitUntilClosed() }
                await group.next()
                group.cancelAll()
            }

        case .press(let input, let holdMs):
            guard state.withLock({ $0.config.pressInputs }) else {
                throw ProtocolError(.unavailable, field: "op", "press is off; set debug.press_inputs = true in nookd's config to act as the buttons over the socket")
            }
            // As the button (``InputRules``); the toggle is the socket's own, a second open
            // button's (I3: hover OR open). The hold is taken as said, not waited out: the
            // toggle a long press takes back is never made.
            var taken = false
            switch input {
            case .open:
                let outcome = inputRules.open(held: holdMs.map { .milliseconds($0) })
                taken = outcome.taken
                if outcome == .toggle {
                    // Toggle and set in one step: two racing presses must not leave the input
                    // active while the toggle says closed.
                    pressedOpen.withLock { open in
                        open.toggle()
                        engagement.set(.open, active: open, input: "press")
                    }
                }
            case .dismiss:
                inputRules.dismiss(because: "dismiss pressed")
            }
            logger.info("press: \(input.rawValue)\(holdMs.map { " held \($0) ms" } ?? "") (debug.press_inputs)")
            inputs.publish(InputMessage(input: input, source: "press", taken: taken))
            answer(PressAnswer(pressed: input))

        case .snapshot:
            guard let frame = await screen.lastPresentedFrame else {
                throw ProtocolError(.unavailable, "nothing has been presented yet")
            }
            do {
                let png = try PNG.encode(frame)
                answer(SnapshotAnswer(width: frame.width, height: frame.height, png: png))
            } catch {
                throw ProtocolError(.internalError, "could not encode the snapshot: \(error)")
            }

        case .frame(let after):
            if let frame = try await liveFrame(after: after, for: connection) { answer(frame) }

        case .home(let setting):
            if let refusal = ownership.deviceRefusal(of: "set the home content", by: connection.peer) { throw refusal }
            let content: HomeContent = switch setting {
            case .clock: .clock
            case .blank: .blank
            case .text(let text): .text(text)
            }
            // Announced only when what `status` says changes (a watcher asks `status` again).
            menuOnGlance.withLock { $0 = nil }
            if await screen.setHome(content).description != content.description { statusChanges.notify(.home) }
            answer(HomeAnswer(home: content.description))

        case .glance(let glance):
            // Nil gives back the home the config names (the bridge has no screens left).
            let content = glance.map(HomeContent.glance) ?? state.withLock { $0.config.home }
            let sender = ObjectIdentifier(connection)
            let claims = glance?.menu == true
            menuOnGlance.withLock { $0 = claims ? MenuClaim(owner: sender) : nil }
            // A bridge that dies with its menu open must not leave the open button dead until
            // the lease runs out. One watcher per connection, however often its menu opens.
            if claims, menuClaimWatched.withLock({ $0.insert(sender).inserted }) {
                Task { [menuOnGlance, menuClaimWatched] in
                    await connection.waitUntilClosed()
                    menuOnGlance.withLock { if $0?.owner == sender { $0 = nil } }
                    menuClaimWatched.withLock { _ = $0.remove(sender) }
                }
            }
            // nook-lcdproc sends a glance whenever a widget changes (a clock: every second);
            // `status` only names the grid, so most glances change nothing it reports.
            if await screen.setHome(content).description != content.description { statusChanges.notify(.home) }
            answer(GlanceAnswer(home: content.description))
        case .quiet(let setting):
            // Quiet holds back or ends (as suppressed) everyone's cards; reading it is open.
            if setting != .status, let refusal = ownership.deviceRefusal(of: "change quiet hours", by: connection.peer) { throw refusal }
            answer(try await quietRequest(setting))
        case .update(let target, let changes, let restartDwell):
            var result = try await performUpdate(target, changes: changes, restartDwell: restartDwell, peer: connection.peer, actingFor: request.sender)
            result.warnings = Self.iconWarnings(changes.json[ActivityField.icon.wireName]?.text)
            // Debug: a client may send a hundred updates a second.
            logger.debug("updated \(result.updated.map { "\($0.id) (\($0.fields.joined(separator: ", ")))" }.joined(separator: "; "))",
                        metadata: ["peer": "\(connection.peer)"])
            answerChange(result)

        case .history(let query):
            connection.send(utf8: await historyAnswerLine(query, id: request.id))

        case .historyShow, .historyClear:
            answer(try await historyRequest(request.operation, peer: connection.peer))

        case .historyReplay(let reference):
            let (entry, replay, moduleName) = try replayed(reference)
            await enqueue([(request, replay)], module: moduleName, on: connection,
                          answer: { id, module, _ in HistoryReplayAnswer(id: id, module: module.rawValue, replayed: entry.number) })

        case .focus(let name):
            if let refusal = ownership.deviceRefusal(of: "switch the foreground module", by: connection.peer) { throw refusal }
            do {
                let report = try await arbiter.switchForeground(to: NookModuleID(name))
                statusChanges.notify(.foreground)
                logger.info("foreground is now \(report.to)", metadata: ["from": "\(report.from?.rawValue ?? "none")", "preparedInTime": "\(report.preparedInTime)"])
                answer(FocusAnswer(from: report.from?.rawValue, to: report.to.rawValue, preparedInTime: report.preparedInTime))
            } catch {
                throw ProtocolError(.unknownModule, field: "module", "\(error); this nookd has \(modules.map(\.rawValue).joined(separator: ", "))")
            }
        }
    }

    /// The share of a queue an activity counts against (`queue.per_sender`, Q16): its sender's.
    /// A uid's own programs share one, and apart from them each name a relay (a uid of
    /// `daemon.relay_users`, `relays`) states for whom it sends (a nook-http token) has its own.
    /// The names any other program states count in its uid's share.
    @Sendable static func share(of activity: NookActivity, relays: Set<UInt32>) -> String {
        guard let sender = activity.sender else { return "nookd" }
        return sender.relayed && relays.contains(sender.uid) ? "\(sender.uid) \(sender.name ?? "")" : "\(sender.uid)"
    }

    /// The id of an accepted enqueue, or the error its request is answered with.
    private func accepted(_ result: NookEnqueueResult, _ activity: NookActivity, module: NookModuleID, queue: NookActivityQueue,
                          share: (held: Int, limit: Int)?, on connection: ClientConnection) throws(ProtocolError) -> NookActivityID {
        switch result {
        case .rejected(_, .invalid(let error)):
            throw ProtocolError(.invalid, field: "activity.\(error.field)", error.problem)
        case .rejected(_, .queueFull):
            if let share {
                let sender = activity.sender.map { sender in
                    guard sender.relayed else { return "uid \(sender.uid)" }
                    guard ownership.relayUIDs.contains(sender.uid) else {
                        return "uid \(sender.uid) (whose stated senders share its own share: it is not in daemon.relay_users)"
                    }
                    return "sender \"\(sender.name ?? "")\" (relayed by uid \(sender.uid))"
                } ?? "nookd"
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
    /// whether it was accepted.
    @discardableResult
    func enqueue(_ run: [(request: Request, activity: NookActivity)], module name: String?, on connection: ClientConnection,
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
        let perSender = state.withLock { $0.config.perSender }
        beforeQueueing(queue)
        var results = perSender > 0
            ? await queue.enqueue(contentsOf: queued, coalescing: permits, shareLimit: perSender)[...]
            : await queue.enqueue(contentsOf: queued, coalescing: permits).map { (result: $0, shareHeld: Int?.none) }[...]
        var wasAccepted: [Bool] = []
        wasAccepted.reserveCapacity(run.count)
        for ((request, _), outcome) in zip(run, outcomes) {
            let verdict: Result<NookActivityID, ProtocolError>
            var warnings: [String] = []
            switch outcome {
            case .failure(let error):
                verdict = .failure(error)
            case .success(let index):
                let activity = activities[index]
                warnings = Self.iconWarnings(activity.systemImage)
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
                if let journal { connection.dependOn(journal.mark) }
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

    /// R3: an icon name nookd cannot draw is accepted (the card shows the generic glyph), and
    /// the sender is told in the answer rather than only in nookd's log.
    static func iconWarnings(_ icon: String?) -> [String] {
        icon.flatMap(NookIconNames.warning(for:)).map { [$0] } ?? []
    }

    /// The activity with its icon file, if it names one, checked and replaced by the canonical
    /// path. Read here, in the connection's task: a FIFO, a device or a huge file is refused at
    /// once instead of stalling the screen later.
    func checkedIcon(_ activity: NookActivity) throws(ProtocolError) -> NookActivity {
        try state.withLock { IconPolicy(directories: $0.config.iconDirectories) }.checked(activity)
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

    func status(connections: Int) async -> StatusAnswer {
        var moduleStates: [StatusAnswer.Module] = []
        for module in modules {
            let snapshot = await queues[module]!.snapshot()
            moduleStates.append(StatusAnswer.Module(
                name: module.rawValue, current: snapshot.current, phase: snapshot.currentPhase,
                pending: snapshot.pending.count, capacity: snapshot.capacity, suspended: snapshot.isSuspended,
                displayAvailable: snapshot.isDisplayAvailable, parked: snapshot.parkReason?.description,
                blockedBy: snapshot.blockingActivity))
        }
        let proximity = state.withLock { $0.proximity }
        let inputs = engagement.inputs.map { input in
            // The proximity sensor's last value, so thresholds can be chosen from what it reads.
            let reading = proximity.flatMap { $0.label == input.input || $0.presenceLabel == input.input ? $0.observation.reading : nil }
            return StatusAnswer.Input(input: input.input, role: input.role.rawValue, active: input.isActive, problem: input.problem,
                                      reading: reading.map { Double($0.nanos) / 1_000_000_000 })
        }
        let settings = await screen.currentSettings
        let frameInterval = await screen.medianSlideFrameInterval
        let display = StatusAnswer.Display(
            backend: backendName, mode: self.display.mode.description, rotation: settings.rotation.degrees,
            theme: settings.theme.appearance.rawValue, refreshHz: self.display.mode.refreshHz,
            slideFrameIntervalMs: frameInterval.map { ($0.nookSeconds * 10_000).rounded() / 10 },
            flips: self.display.pageFlips.map { StatusAnswer.Flips(requested: $0.requested, completed: $0.completed, timedOut: $0.timedOut) })
        return StatusAnswer(foreground: arbiter.foregroundModule?.rawValue, display: display, home: settings.home.description,
                            engaged: engagement.isEngaged, inputs: inputs, gpio: gpioStatus(), modules: moduleStates,
                            connections: connections, presence: await presenceStatus(), brightness: await brightness.withLock { $0 }?.status,
                            touch: touchStatus())
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
