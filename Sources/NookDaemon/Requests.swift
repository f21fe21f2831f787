import Logging
import NookActivities
import NookDisplay
import NookDRM
import NookProtocol
import NookRender

extension Daemon {
    /// Answers one request line (C1). Bad input gets a structured error naming the field and
    /// changes nothing (C3); the connection stays open.
    func handle(_ connection: ClientConnection, _ line: [UInt8]) async {
        switch Request.decode(line) {
        case .failure(let failure):
            logger.debug("bad request: \(failure.error)", metadata: ["peer": "\(connection.peer)"])
            connection.send(ResponseLine.failure(id: failure.id, error: failure.error).encoded())
        case .success(let request):
            do {
                try await perform(request, on: connection)
            } catch {
                connection.send(ResponseLine.failure(id: request.id, error: error).encoded())
            }
        }
    }

    private func queue(_ name: String?) throws(ProtocolError) -> (NookModuleID, NookActivityQueue) {
        let module = name.map { NookModuleID($0) } ?? arbiter.foregroundModule ?? modules[0]
        guard let queue = queues[module] else {
            throw ProtocolError(.unknownModule, field: "module", "no module '\(module)'; this nookd has \(modules.map(\.rawValue).joined(separator: ", "))")
        }
        return (module, queue)
    }

    /// The queues an operation with an optional module applies to: that one, or all.
    private func targets(_ name: String?) throws(ProtocolError) -> [(NookModuleID, NookActivityQueue)] {
        if let name { return [try queue(name)] }
        return modules.map { ($0, queues[$0]!) }
    }

    private func perform(_ request: Request, on connection: ClientConnection) async throws(ProtocolError) {
        func answer(_ result: JSONValue) { connection.send(ResponseLine.success(id: request.id, result: result).encoded()) }
        /// An answer that reports a change: it leaves once the change's journal records are
        /// settled (J1). The queue recorded them before the call that made the change returned.
        func answerChange(_ result: JSONValue, ending ended: NookActivityID? = nil) {
            if let journal {
                // An activity ended on the glass records its end now: the answer says it is
                // gone, and it must not come back if the power fails during its slide out.
                if let ended { journal.ended(ended) }
                connection.dependOn(journal.mark)
            }
            answer(result)
        }
        switch request.operation {
        case .enqueue(let activity, let moduleName, let wait):
            let (module, queue) = try queue(moduleName)
            let events = wait ? queue.events(where: { $0.id == activity.id }) : nil
            switch await queue.enqueue(activity) {
            case .rejected(_, .invalid(let error)):
                throw ProtocolError(.invalid, field: "activity.\(error.field)", error.problem)
            case .rejected(_, .queueFull):
                throw ProtocolError(.queueFull, "module \(module) already holds \(queue.configuration.capacity) pending activities of equal or higher priority")
            case .rejected(_, let reason):
                throw ProtocolError(.invalid, "rejected: \(reason)")
            case .accepted(let id):
                logger.info("enqueued \"\(activity.title)\"", metadata: ["id": "\(id)", "module": "\(module)", "peer": "\(connection.peer)"])
                answerChange(.object([("id", .string(id.description)), ("module", .string(module.rawValue))]))
            }
            if let events { await streamUntilFinal(from: events, to: connection, request: request) }

        case .cancel(let id):
            for (_, queue) in modules.map({ ($0, queues[$0]!) }) where await queue.cancel(id) {
                answerChange(.object([("cancelled", .string(id.description))]), ending: id)
                return
            }
            throw ProtocolError(.notFound, field: "activity", "no pending or shown activity has id \(id)")

        case .cancelAll(let key, let moduleName):
            var count = 0
            for (_, queue) in try targets(moduleName) { count += await queue.cancelAll(coalescingKey: key) }
            answerChange(.object([("cancelled", .number(Double(count)))]))

        case .dismiss(let id):
            for (_, queue) in modules.map({ ($0, queues[$0]!) }) {
                if let id, await queue.dismiss(id) {
                    answerChange(.object([("dismissed", .string(id.description))]), ending: id)
                    return
                }
                if id == nil, let shown = await queue.dismissCurrent() {
                    answerChange(.object([("dismissed", .string(shown.description))]), ending: shown)
                    return
                }
            }
            throw ProtocolError(.notFound, field: id == nil ? nil : "activity",
                                id.map { "no pending or shown activity has id \($0)" } ?? "nothing is on the glass to dismiss")

        case .suspend(let moduleName), .resume(let moduleName), .quiesce(let moduleName):
            var names: [JSONValue] = []
            for (module, queue) in try targets(moduleName) {
                switch request.operation {
                case .suspend: await queue.suspend()
                case .resume: await queue.resume()
                default: await queue.quiesce()
                }
                names.append(.string(module.rawValue))
            }
            answer(.object([("modules", .array(names))]))

        case .status:
            answer(await statusJSON(connections: state.withLock { $0.server?.openConnections } ?? 0))

        case .list(let moduleName):
            var lists: [JSONValue] = []
            for (module, queue) in try targets(moduleName) {
                let snapshot = await queue.snapshot()
                lists.append(.object([
                    ("name", .string(module.rawValue)),
                    ("current", snapshot.current.map(ActivityPayload.encode) ?? .null),
                    ("pending", .array(snapshot.pending.map(ActivityPayload.encode))),
                ]))
            }
            answer(.object([("modules", .array(lists))]))

        case .watch:
            answer(.object([("watching", .bool(true))]))
            await connection.releaseOutputWhenSettled()
            await withTaskGroup(of: Void.self) { group in
                for module in modules {
                    let events = queues[module]!.events(bufferingPolicy: .bufferingNewest(4096))
                    group.addTask { [journal] in
                        for await event in events {
                            await journal?.settle(event)
                            guard connection.send(ResponseLine.event(id: request.id, event: EventPayload.encode(event)).encoded()) else { return }
                        }
                    }
                }
                group.addTask { await connection.waitUntilClosed() }
                await group.next()
                group.cancelAll()
            }

        case .snapshot:
            guard let frame = await screen.lastPresentedFrame else {
                throw ProtocolError(.unavailable, "nothing has been presented yet")
            }
            do {
                let png = try PNG.encode(frame)
                answer(.object([("width", .number(Double(frame.width))), ("height", .number(Double(frame.height))),
                                ("png", .string(Base64.encode(png)))]))
            } catch {
                throw ProtocolError(.internalError, "could not encode the snapshot: \(error)")
            }

        case .home(let setting):
            let content: HomeContent = switch setting {
            case .clock: .clock
            case .blank: .blank
            case .text(let text): .text(text)
            }
            await screen.setHome(content)
            answer(.object([("home", .string(content.description))]))

        case .focus(let name):
            do {
                let report = try await arbiter.switchForeground(to: NookModuleID(name))
                logger.info("foreground is now \(report.to)", metadata: ["from": "\(report.from?.rawValue ?? "none")", "preparedInTime": "\(report.preparedInTime)"])
                answer(.object([("from", report.from.map { .string($0.rawValue) } ?? .null), ("to", .string(report.to.rawValue)),
                                ("preparedInTime", .bool(report.preparedInTime))]))
            } catch {
                throw ProtocolError(.unknownModule, field: "module", "\(error); this nookd has \(modules.map(\.rawValue).joined(separator: ", "))")
            }
        }
    }

    /// For `enqueue` with `wait`: streams the activity's events (`events` holds only that
    /// activity's) until its final one (C2).
    private func streamUntilFinal(from events: AsyncStream<NookActivityEvent>,
                                  to connection: ClientConnection, request: Request) async {
        await connection.releaseOutputWhenSettled()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [journal] in
                for await event in events {
                    await journal?.settle(event)
                    guard connection.send(ResponseLine.event(id: request.id, event: EventPayload.encode(event)).encoded()) else { return }
                    if event.isFinal { return }
                }
            }
            group.addTask { await connection.waitUntilClosed() }
            await group.next()
            group.cancelAll()
        }
    }

    func statusJSON(connections: Int) async -> JSONValue {
        var moduleStates: [JSONValue] = []
        for module in modules {
            let snapshot = await queues[module]!.snapshot()
            var members: [(String, JSONValue)] = [
                ("name", .string(module.rawValue)),
                ("current", snapshot.current.map(ActivityPayload.encode) ?? .null),
                ("phase", snapshot.currentPhase.map { .string($0.rawValue) } ?? .null),
                ("pending", .number(Double(snapshot.pending.count))),
                ("capacity", .number(Double(snapshot.capacity))),
                ("suspended", .bool(snapshot.isSuspended)),
                ("displayAvailable", .bool(snapshot.isDisplayAvailable)),
                ("parked", snapshot.parkReason.map { .string($0.description) } ?? .null),
            ]
            members.append(("blockedBy", snapshot.blockingActivity.map(ActivityPayload.encode) ?? .null))
            moduleStates.append(.object(members))
        }
        let inputs = engagement.inputs.map { input in
            JSONValue.object([("input", .string(input.input)), ("role", .string(input.role.rawValue)), ("active", .bool(input.isActive))])
        }
        let gpio = gpioStatusJSON()
        let settings = await screen.currentSettings
        let frameInterval = await screen.medianSlideFrameInterval
        let flips: JSONValue = (display as? DRMDisplay).map { drm in
            let counts = drm.flipCounts
            return .object([("requested", .number(Double(counts.requested))), ("completed", .number(Double(counts.completed))),
                            ("timedOut", .number(Double(counts.timedOut)))])
        } ?? .null
        let displayState = JSONValue.object([
            ("backend", .string(backendName)), ("mode", .string(display.mode.description)),
            ("rotation", .number(Double(settings.rotation.degrees))), ("theme", .string(settings.theme.appearance.rawValue)),
            ("refreshHz", .number(display.mode.refreshHz)),
            ("slideFrameIntervalMs", frameInterval.map { .number(($0.nookSeconds * 10_000).rounded() / 10) } ?? .null),
            ("flips", flips),
        ])
        return .object([
            ("version", .number(Double(NookProtocol.version))),
            ("foreground", arbiter.foregroundModule.map { .string($0.rawValue) } ?? .null),
            ("display", displayState),
            ("home", .string(settings.home.description)),
            ("engaged", .bool(engagement.isEngaged)),
            ("inputs", .array(inputs)),
            ("gpio", gpio),
            ("modules", .array(moduleStates)),
            ("connections", .number(Double(connections))),
        ])
    }
}
