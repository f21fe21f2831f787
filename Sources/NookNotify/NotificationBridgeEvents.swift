import NookLogging
import NookActivities
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// nookd's events: a card invoked or ended becomes the bus's ActionInvoked or NotificationClosed.
extension NotificationBridge {
    /// Connects and asks for the event stream; its answer is read in the poll loop.
    func connectEvents() {
        do throws(ClientError) {
            let client = try NookClient(path: options.socketPath)
            try client.send(Request(id: .string("watch"), operation: .watch).encoded())
            events = client
            watching = false
        } catch {
            if nextEventsAttempt == 0 || events != nil { logger.warning("nookd is not reachable (\(error)); trying again within a second") }
            events = nil
            nextEventsAttempt = MonotonicClock.seconds + eventsBackoff.next()
        }
    }

    /// After the stream was down, notifications whose activity nookd no longer has ended
    /// unseen: they are closed with reason 4 so clients waiting on them (`notify-send --wait`) return.
    func reconcile(ended: Set<NookActivityID>) {
        for activity in registry.activities where ended.contains(activity) {
            if let (id, reason) = registry.ended(activity, .rejected("unknown")) { closed(id, reason) }
        }
    }

    func readEvents() {
        guard let events else { return }
        // The cards' events decode JSON long after their Notify: the pages are dropped once
        // these too have stopped, not while the code comes back for each event.
        trim.activity(at: MonotonicClock.seconds)
        var open = true
        do throws(ClientError) { open = try events.readAvailable() } catch {
            logger.warning("lost nookd's event stream: \(error)")
            open = false
        }
        while open, let line = events.bufferedLine() {
            switch try? ResponseLine.decode(line) {
            case .success?:
                guard !watching else { continue }
                watching = true
                eventsBackoff.reset()
                logger.info("watching nookd's events at \(options.socketPath)")
                if registry.count > 0 {
                    waiting.append(.list)
                    pump()
                }
            case .failure(_, let error)? where !watching:
                logger.warning("nookd refused to stream its events: \(error)")
                open = false
            case .event(_, let json)?:
                guard let event = try? EventMessage(json: json) else { continue }
                if event.event == .invoked { invoked(event.id); continue }
                guard let ending = event.ending else { continue }
                if let (id, reason) = registry.ended(event.id, ending) { closed(id, reason) }
            default:
                continue
            }
        }
        guard !open else { return }
        self.events = nil
        watching = false
        nextEventsAttempt = MonotonicClock.seconds + eventsBackoff.next()
    }

    /// The open input (or `nookctl invoke`) on a notification's card: ActionInvoked(id,
    /// "default"), then the card is dismissed so the notification closes as dismissed by the
    /// user (reason 2), unless it is resident (spec 1.2).
    func invoked(_ activity: NookActivityID) {
        guard let (id, dismiss) = registry.invoked(activity) else { return }
        logger.debug("notification \(id): default action invoked")
        do {
            try bus.emit(path: Self.objectPath, interface: Self.interface, member: "ActionInvoked") { writer throws(SystemCallError) in
                try writer.uint32(id)
                try writer.string("default")
            }
        } catch {
            logger.error("cannot signal ActionInvoked for \(id): \(error)")
        }
        guard let dismiss else { return }
        waiting.append(.dismiss(dismiss, id: id))
        pump()
    }

    func closed(_ id: UInt32, _ reason: CloseReason) {
        logger.debug("notification \(id) closed (reason \(reason.rawValue))")
        do {
            try bus.emit(path: Self.objectPath, interface: Self.interface, member: "NotificationClosed") { writer throws(SystemCallError) in
                try writer.uint32(id)
                try writer.uint32(reason.rawValue)
            }
        } catch {
            logger.error("cannot signal NotificationClosed for \(id): \(error)")
        }
    }
}
