import NookActivities
import NookProtocol

extension Daemon {
    /// The subscriptions: a stream of lines until the client goes.
    static let streamHandlers: [OperationHandler] = [
        OperationHandler(\.reading.watch) { daemon, _, reply in
            try await daemon.watchRequest(reply)
        },
        OperationHandler(\.reading.inputs) { daemon, _, reply in
            try await daemon.inputsRequest(reply)
        },
        OperationHandler(\.reading.iconsWanted) { daemon, _, reply in
            try await daemon.iconsWantedRequest(reply)
        },
    ]

    /// `watch` (Q13): every activity event, and the status changes no event tells, until the client goes.
    func watchRequest(_ reply: RequestReply) async throws(ProtocolError) {
        let (request, connection) = (reply.request, reply.connection)
        // Subscribed before the answer: an event right after "watching" is never missed.
        let subscriptions = modules.map { module in
            let tap = WatchTap()
            return (module, tap, queues[module]!.events(where: tap.admit))
        }
        // An app's action (A4) is heard as a card's is: an `invoked` event, naming the app
        // (`"app": NAME`). Nothing else of the rotation is an event.
        let appActions = apps.queue.events { $0.kind == .invoked }
        // Status changes no activity event tells: a watcher mirroring `status`
        // asks again on these instead of polling. Sent from whichever thread changed it.
        let statusLine: @Sendable (StatusChangeMessage.Change) -> Void = { [clock] change in
            let at = clock.now.sinceOrigin.nookSeconds
            _ = connection.send(ResponseLine.event(id: request.id, event: StatusChangeMessage(change, at: at).json).encoded())
        }
        // After the answer is queued (output is held until it is released): a change from
        // another thread in between would otherwise be sent ahead of the answer.
        reply.answer(WatchAnswer())
        let observations = [statusChanges.add(statusLine), engagement.observe { _ in statusLine(.engaged) },
                            parts.sound.stateChanges.add { _ in statusLine(.sound) }, parts.displayPower.changes.add { _ in statusLine(.display) },
                            parts.brightness.changes.add { _ in statusLine(.display) }]
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
            group.addTask {
                for await event in appActions {
                    var message = EventMessage(event)
                    message.app = AppRotation.name(ofKey: event.activity.coalescingKey)
                    guard connection.send(ResponseLine.event(id: request.id, event: message.json).encoded()) else { return }
                }
            }
            group.addTask { await connection.waitUntilClosed() }
            await group.next()
            group.cancelAll()
        }
    }

    /// `inputs` (E8): every press of the open and dismiss inputs, until the client goes.
    func inputsRequest(_ reply: RequestReply) async throws(ProtocolError) {
        // Subscribed before the answer: a press right after it is never missed.
        let presses = inputs.subscribe()
        reply.answer(InputsAnswer())
        await stream(presses, after: reply) { (press: InputMessage) in press.json }
    }

    /// Sends each of `messages` as an event of `reply`'s request, until the client goes.
    private func stream<Message: Sendable>(_ messages: AsyncStream<Message>, after reply: RequestReply, _ json: @escaping @Sendable (Message) -> JSONValue) async {
        let (request, connection) = (reply.request, reply.connection)
        await connection.releaseOutputWhenSettled()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in messages {
                    guard connection.send(ResponseLine.event(id: request.id, event: json(message)).encoded()) else { return }
                }
            }
            group.addTask { await connection.waitUntilClosed() }
            await group.next()
            group.cancelAll()
        }
    }

    /// `icons-wanted` (M3): every LaMetric icon id found in no icon directory, until the client goes.
    func iconsWantedRequest(_ reply: RequestReply) async throws(ProtocolError) {
        let wanted = iconWants.subscribe()
        reply.answer(IconsWantedAnswer(directories: iconPolicy.directories))
        await stream(wanted, after: reply) { (message: IconWantedMessage) in message.json }
    }
}
