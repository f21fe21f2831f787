import NookLogging
import NookActivities
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// `nook-notify`: owns `org.freedesktop.Notifications` (spec 1.2) on a bus and forwards each
/// notification to nookd over its socket, so nookd stays the one owner of the display and
/// the queue (SPEC E1–E3). One thread: a `poll(2)` loop over the bus connection, nookd's
/// event stream and the connection its requests go over; sd-bus is not thread-safe and needs
/// nothing more. No call waits on nookd inside the loop: a Notify is answered when nookd's
/// answer arrives, so the bus is served while nookd is slow or stopped.
public final class NotificationBridge {
    public struct Options: Sendable {
        public var socketPath: String
        public var systemBus: Bool
        /// Take the name from a notification server that allows it (dunst, mako do not).
        public var replace: Bool
        /// nookd's queue module the cards go to; nil: the foreground one.
        public var module: String?
        public var limits: SenderLimits
        /// Seconds a Notify waits for nookd before its sender is told it failed (and what it
        /// asked for is withdrawn): well under the 25 s D-Bus clients wait by default, so the
        /// sender hears it from the bridge, not from its own timeout.
        public var timeout: Double

        public init(socketPath: String, systemBus: Bool = false, replace: Bool = false, module: String? = nil, limits: SenderLimits = SenderLimits(),
                    timeout: Double = NotifyCommandLine.defaultTimeout) {
            (self.socketPath, self.systemBus, self.replace, self.module, self.limits) = (socketPath, systemBus, replace, module, limits)
            self.timeout = timeout
        }
    }

    public static let busName = "org.freedesktop.Notifications"
    static let objectPath = "/org/freedesktop/Notifications"
    static let interface = "org.freedesktop.Notifications"
    /// `body-markup`: the markup is removed, not drawn, which the spec allows; advertising it
    /// keeps clients from sending tags that would otherwise have to be shown as text.
    /// `actions`: the "default" action, invoked by the open input on its card (E3); other
    /// actions have no button on a nook and are never invoked.
    public static let capabilities = ["actions", "body", "body-markup", "icon-static", "x-canonical-private-synchronous", "x-dunst-stack-tag"]
    public static let serverInformation = (name: "nook-notify", vendor: "Nook", version: "1.0", specVersion: "1.2")

    private let options: Options
    private let logger: Logger
    private let bus: Bus
    private var registry = NotificationRegistry()
    private var limits: SenderLimits
    /// Requests (enqueue, update, cancel, ...) go over this connection one at a time, in the
    /// order they came, each planned against the registry only when it is sent (so it sees
    /// every notification placed before it), and answered in the poll loop.
    private var requests: NookClient?
    private var waiting: [Work] = []
    private var outstanding: [Sent] = []
    private var requestNumber = 0
    /// Notifications waiting for their turn: beyond this, Notify answers LimitsExceeded.
    static let waitingLimit = 128
    /// The `watch` stream: every activity's end, read as it comes. `watching` once nookd has
    /// answered the subscription.
    private var events: NookClient?
    private var watching = false
    private var nextEventsAttempt = 0.0
    /// Up to a second: notifications sent while the stream is down cannot be closed.
    private var eventsBackoff = ReconnectBackoff(limit: 1)
    private var uids: [String: UInt32] = [:]
    private let ownUID = getuid()
    /// When the pages start-up or a burst of notifications needed are dropped
    /// (`notify_bridge_idle_rss_mib`): once serving, then a second after a burst of calls and
    /// of their cards' events.
    private var trim = IdleTrim()

    /// A D-Bus call waiting for nookd: answered once, by nookd's answer or at its deadline.
    private final class Caller {
        let message: RetainedMessage
        let sender: String
        let deadline: Double
        private(set) var answered = false

        init(_ message: BusMessage, sender: String, deadline: Double) {
            (self.message, self.sender, self.deadline) = (message.retained(), sender, deadline)
        }

        func reply(_ id: UInt32) throws(SystemCallError) {
            guard !answered else { return }
            answered = true
            try message.message.reply { writer throws(SystemCallError) in try writer.uint32(id) }
        }

        func fail(_ name: String, _ text: String) throws(SystemCallError) {
            guard !answered else { return }
            answered = true
            try message.message.replyError(name, text)
        }
    }

    private struct NotifyWork {
        let caller: Caller
        let call: NotifyCall
        let uid: UInt32
        let notes: [String]
    }

    /// What waits for its turn on the request connection.
    private enum Work {
        case notify(NotifyWork)
        /// CloseNotification(id): the activity is looked up when the cancel is sent.
        case close(id: UInt32, uid: UInt32)
        /// A notification's card after its default action was invoked.
        case dismiss(NookActivityID, id: UInt32)
        /// nookd's activities, after the event stream was down (``reconcile(ended:)``).
        case list
    }

    /// A request sent and not answered yet.
    private struct Sent {
        let operation: NookOperation
        let purpose: Purpose
        let sentAt: Double
        var retried: Bool
    }

    private enum Purpose {
        /// A notification's card: a new activity, or an update in place of a live one (U1)
        /// whose card before is `previous`.
        case notify(NotifyWork, NotificationRegistry.Placement, card: NookActivity, previous: NookActivity?)
        case close(id: UInt32)
        case dismiss(id: UInt32)
        /// A page of `list` from `offset` on (`list` answers in pages of 1 MiB).
        case list(ListingPass)
        /// Takes back what a Notify asked for after its sender was told it failed.
        case withdraw(String)
    }

    /// Connects to the bus; nookd is reached once ``run()`` starts (and again whenever it
    /// comes back).
    public init(options: Options, logger: Logger) throws(SystemCallError) {
        self.options = options
        self.logger = logger
        limits = options.limits
        bus = try Bus(system: options.systemBus)
    }

    /// Takes the name and serves until the bus connection fails. EEXIST: another notification
    /// server (dunst, mako, a desktop's own) holds the name.
    public func run() throws(SystemCallError) {
        // SIGTERM stops the bridge at once: the bus releases the name when the connection closes.
        StopSignals.restoreDefaults()
        try bus.serve(path: Self.objectPath) { [unowned self] message in self.handle(message) }
        do {
            try bus.requestName(Self.busName, replace: options.replace)
        } catch where error.errno == .fileExists {
            let owner = bus.ownerDescription(of: Self.busName).map { " (\($0))" } ?? ""
            // With --replace, EEXIST means the owner did not allow replacement when it took the
            // name: asking again cannot help.
            let problem = options.replace
                ? "another notification server\(owner) owns it and does not let it be replaced (dunst and mako never do), so --replace cannot take it; stop that server first"
                : "another notification server\(owner) owns it (dunst, mako, the desktop's own); stop it, or pass --replace if it lets the name be replaced"
            throw SystemCallError("sd_bus_request_name", errno: .fileExists, subject: "\(Self.busName): \(problem)")
        }
        logger.info("serving \(Self.busName) on the \(options.systemBus ? "system" : "session") bus as \(bus.uniqueName), forwarding to nookd at \(options.socketPath)")
        connectEvents()
        // Start-up is over (the runtime, the bus handshake, the name): its code need not stay
        // resident.
        IdleTrim.dropPages()
        while true {
            try bus.processAll()
            let now = MonotonicClock.seconds
            expireCallers(now: now)
            pump()
            if trim.takeDue(now: now) { IdleTrim.dropPages() }
            let (entry, busTimeout) = try bus.pollEntry()
            var timeout = busTimeout
            func wake(at time: Double) {
                let wait = Int32(clamping: Int64(max(0, ((time - now) * 1000).rounded(.up))))
                timeout = timeout < 0 ? wait : min(timeout, wait)
            }
            if let due = trim.due { wake(at: due) }
            if let deadline = nextDeadline() { wake(at: deadline) }
            var descriptors = [entry]
            var eventsIndex: Int?
            var requestsIndex: Int?
            if let events {
                eventsIndex = descriptors.count
                descriptors.append(pollfd(fd: events.descriptor, events: Int16(POLLIN), revents: 0))
            } else {
                wake(at: nextEventsAttempt)
            }
            if let requests {
                requestsIndex = descriptors.count
                descriptors.append(pollfd(fd: requests.descriptor, events: Int16(POLLIN), revents: 0))
            }
            _ = try pollDescriptors(&descriptors, timeoutMilliseconds: timeout)
            if let requestsIndex, descriptors[requestsIndex].revents != 0 { readAnswers() }
            if let eventsIndex, descriptors[eventsIndex].revents != 0 { readEvents() }
            if events == nil, MonotonicClock.seconds >= nextEventsAttempt { connectEvents() }
        }
    }

    // MARK: nookd's requests

    /// Sends the next waiting request once nothing is outstanding. One at a time: a request
    /// still waiting here when its sender has been told it failed is never sent.
    private func pump() {
        while outstanding.isEmpty, !waiting.isEmpty {
            let work = waiting.removeFirst()
            guard let (operation, purpose) = prepare(work) else { continue }
            send(operation, purpose)
        }
    }

    /// The request for `work`, planned against the registry as it is now; nil: nothing to send.
    private func prepare(_ work: Work) -> (NookOperation, Purpose)? {
        switch work {
        case .notify(let work):
            guard !work.caller.answered else { return nil }
            let call = work.call
            var notes = work.notes
            let placement = registry.plan(call, uid: work.uid)
            if let note = placement.note { notes.append(note) }
            let activityID = placement.replacing ?? NookActivityID()
            let mapped = NotificationMapping.activity(for: call, id: activityID, key: placement.coalescingKey, allowPaths: work.uid == ownUID)
            notes += mapped.notes
            logger.debug("sending notification \(placement.id) from \(work.caller.sender) to nookd")
            for note in notes {
                logger.notice("notification from \(work.caller.sender) (\(call.appName.isEmpty ? "no app name" : call.appName)): \(note)")
            }
            if let live = placement.replacing {
                // A replacement changes the live card in place (U1): one on the glass is redrawn
                // with no slide out and in, and its time counts again from now, as the sender's
                // expire_timeout says; a pending one keeps its place.
                let previous = registry.record(placement.id)?.card
                return (.update(.id(live), changes: Self.changes(to: mapped.activity), restartDwell: true),
                        .notify(work, placement, card: mapped.activity, previous: previous ?? mapped.activity))
            }
            return (.enqueue(mapped.activity, module: options.module, wait: false), .notify(work, placement, card: mapped.activity, previous: nil))
        case .close(let id, let uid):
            guard case .cancel(let activity) = registry.requestClose(id, uid: uid) else { return nil }
            return (.cancel(activity), .close(id: id))
        case .dismiss(let activity, let id):
            return (.dismiss(activity), .dismiss(id: id))
        case .list:
            return (.list(module: nil), .list(ListingPass()))
        }
    }

    /// Every field of `card` but its id, the absent ones cleared: an update that makes the live
    /// card this one.
    static func changes(to card: NookActivity) -> ActivityChanges {
        let encoded = ActivityPayload.encode(card)
        var members: [(String, JSONValue)] = []
        for field in ActivityField.allCases where field != .id {
            if let value = encoded[field.wireName] {
                members.append((field.wireName, value))
            } else {
                members.append((field.wireName, field.takesValue ? .null : .bool(false)))
            }
        }
        return ActivityChanges(members: members)
    }

    private func send(_ operation: NookOperation, _ purpose: Purpose, retried: Bool = false) {
        do throws(ClientError) {
            let client: NookClient
            if let requests { client = requests } else {
                client = try NookClient(path: options.socketPath)
                requests = client
            }
            requestNumber += 1
            // A Notify's request is not carried out after its sender has been told it failed.
            var deadline: Double?
            if case .notify(let work, _, _, _) = purpose { deadline = work.caller.deadline }
            try client.send(Request(id: .number(Double(requestNumber)), operation: operation, deadline: deadline).encoded())
            outstanding.append(Sent(operation: operation, purpose: purpose, sentAt: MonotonicClock.seconds, retried: retried))
        } catch {
            let hadConnection = requests != nil
            requests = nil
            // A connection that broke since the last request (nookd restarted) is made again
            // once, for what it still owed answers to first.
            if hadConnection, !retried {
                resend(lost: error.description)
                let again = Self.onANewConnection(operation, purpose)
                send(again.operation, again.purpose, retried: true)
                return
            }
            finish(purpose, .failure(error))
        }
    }

    /// The request connection is gone: what was sent on it and not answered goes again, once,
    /// on a new connection (an enqueue that did arrive is refused as a duplicate id, which
    /// counts as taken); a Notify whose sender was already told it failed is not sent again.
    private func resend(lost failure: String) {
        requests = nil
        let lost = outstanding
        outstanding = []
        for sent in lost {
            if case .notify(let work, _, _, _) = sent.purpose, work.caller.answered { continue }
            if sent.retried {
                finish(sent.purpose, .failure(.connectionLost(failure)))
            } else {
                let again = Self.onANewConnection(sent.operation, sent.purpose)
                send(again.operation, again.purpose, retried: true)
            }
        }
    }

    /// What a request lost with its connection is sent as on the next one: itself, but a page
    /// of `list`, whose pages before were another connection's (perhaps another nookd's), starts
    /// its pass again from the first page.
    private static func onANewConnection(_ operation: NookOperation, _ purpose: Purpose) -> (operation: NookOperation, purpose: Purpose) {
        guard case .list(let pass) = purpose else { return (operation, purpose) }
        return (.list(module: nil), .list(ListingPass(suspects: pass.suspects)))
    }

    private func readAnswers() {
        guard let client = requests else { return }
        var open = true
        var failure = "nookd closed the connection"
        do throws(ClientError) {
            open = try client.readAvailable()
        } catch {
            open = false
            failure = error.description
        }
        while requests === client, let line = client.bufferedLine() {
            guard !outstanding.isEmpty else { break }
            let result: Result<JSONValue, ClientError>
            switch try? ResponseLine.decode(line) {
            case .success(_, let value)?: result = .success(value)
            case .failure(_, let error)?: result = .failure(.daemon(error))
            case .event?: continue
            case nil: result = .failure(.daemon(ProtocolError(.badJSON, "nookd's answer cannot be read")))
            }
            finish(outstanding.removeFirst().purpose, result)
        }
        guard !open, requests === client else { return }
        resend(lost: failure)
    }

    /// nookd answered `purpose`'s request (or it could not be sent).
    private func finish(_ purpose: Purpose, _ result: Result<JSONValue, ClientError>) {
        switch purpose {
        case .notify(let work, let placement, let card, let previous):
            finishNotify(work, placement, card: card, previous: previous, result)
        case .close(let id):
            if case .failure(let error) = result, !Self.isNotFound(error) {
                // notFound: it ended meanwhile; its end event is on its way and reports reason 3.
                logger.warning("could not close notification \(id) in nookd: \(error)")
            }
        case .dismiss(let id):
            if case .failure(let error) = result {
                // notFound: it ended meanwhile, and its end event closes it with its own reason.
                logger.info("notification \(id): could not dismiss it after its action: \(error)")
            }
        case .list(var pass):
            let page: ListAnswer
            switch result {
            case .success(let json):
                do throws(ProtocolError) { page = try ListAnswer(json: json) } catch {
                    logger.warning("nookd's list could not be read (\(error)); notifications that ended unseen stay open")
                    return
                }
            case .failure(let error):
                logger.warning("could not list nookd's activities (\(error)); notifications that ended unseen stay open")
                return
            }
            pass.take(page)
            if let text = page.cursor {
                // A page that names where it started as the next would loop.
                guard let cursor = ListCursor(text: text), cursor != pass.cursor else {
                    logger.warning("nookd's list page named \(text) as the next, which is not a later cursor; notifications that ended unseen stay open")
                    return
                }
                pass.cursor = cursor
                send(.list(module: nil, after: cursor), .list(pass))
                return
            }
            let missing = Set(registry.activities).subtracting(pass.live)
            if pass.pages > 1, pass.suspects == nil, !missing.isEmpty {
                // Cards that end between pages move nothing across the cursor, but one that
                // moved ahead of it (an update that raised its priority) is on no page: only
                // what a second pass misses too has ended.
                send(.list(module: nil), .list(ListingPass(suspects: missing)))
                return
            }
            reconcile(ended: missing.intersection(pass.suspects ?? missing))
        case .withdraw(let what):
            if case .failure(let error) = result, !Self.isNotFound(error) { logger.warning("could not withdraw \(what): \(error)") }
        }
    }

    private func finishNotify(_ work: NotifyWork, _ placement: NotificationRegistry.Placement, card: NookActivity, previous: NookActivity?,
                              _ result: Result<JSONValue, ClientError>) {
        let sender = work.caller.sender
        if work.caller.answered {
            // Told it failed at its deadline; its withdrawal went right behind it.
            logger.notice("nookd answered notification \(placement.id) from \(sender) after its sender was told it failed; withdrawn")
            return
        }
        switch result {
        case .success(let answer):
            // nookd's own warnings (characters an LED font lacks, …): a notification has no
            // answer to carry them, so the log says them, as it says the bridge's notes.
            for warning in answer["warnings"]?.items.compactMap(\.text) ?? [] {
                logger.notice("notification from \(sender) (\(work.call.appName.isEmpty ? "no app name" : work.call.appName)): \(warning)")
            }
        case .failure(let error) where previous == nil && Self.isOwnEarlierAttempt(error):
            // The id is new for this call: nookd holding it already means the first attempt
            // got through before its answer was lost (a dropped connection), and the retry was
            // refused as a duplicate. It is queued; treat it as accepted.
            logger.info("nookd already had activity \(card.id) from an attempt whose answer was lost")
        case .failure(let error) where previous != nil && Self.isNotFound(error):
            // The live card ended between the plan and the update: the replacement is a new card
            // under the same notification id.
            var fresh = card
            fresh.id = NookActivityID()
            send(.enqueue(fresh, module: options.module, wait: false), .notify(work, placement, card: fresh, previous: nil))
            return
        case .failure(let error):
            logger.warning("nookd did not take a notification from \(sender): \(error)")
            let (name, text) = busError(error)
            do { try work.caller.fail(name, text) } catch { logger.error("cannot answer \(sender)'s Notify: \(error)") }
            return
        }
        registry.commit(placement, activity: card.id, uid: work.uid, sender: sender, hasDefaultAction: work.call.hasDefaultAction,
                        isResident: work.call.isResident, card: card)
        logger.debug("notification \(placement.id) from \(sender) is activity \(card.id)\(previous == nil ? "" : ", updated in place")")
        do { try work.caller.reply(placement.id) } catch { logger.error("cannot answer \(sender)'s Notify: \(error)") }
    }

    /// The D-Bus error for a request nookd did not carry out.
    private func busError(_ error: ClientError) -> (String, String) {
        switch error {
        case .unreachable, .connectionLost:
            return (Self.errorFailed, "nookd is not reachable at \(options.socketPath): \(error)")
        case .daemon(let refusal):
            let text = "nookd refused the notification: \(error)"
            switch refusal.code {
            case .queueFull: return (Self.errorLimitsExceeded, text)
            case .forbidden: return (Self.errorAccessDenied, text)
            case .unavailable, .internalError: return (Self.errorFailed, text)
            default: return (Self.errorInvalidArgs, text)
            }
        }
    }

    /// Answers every Notify whose deadline has passed: one still waiting is dropped unsent; one
    /// sent has its request withdrawn at once, right behind it on the same connection, so
    /// nookd takes the withdrawal next.
    private func expireCallers(now: Double) {
        let message = "nookd did not answer within \(Self.seconds(options.timeout)) (it is stopped or stalled)"
        waiting.removeAll { work in
            guard case .notify(let notify) = work, now >= notify.caller.deadline else { return false }
            logger.warning("notification from \(notify.caller.sender) not sent: \(message)")
            do { try notify.caller.fail(Self.errorFailed, message + "; the notification was not sent") } catch {
                logger.error("cannot answer \(notify.caller.sender)'s Notify: \(error)")
            }
            return true
        }
        for sent in outstanding {
            guard case .notify(let work, let placement, let card, let previous) = sent.purpose, !work.caller.answered, now >= work.caller.deadline
            else { continue }
            logger.warning("notification \(placement.id) from \(work.caller.sender): \(message); withdrawing it")
            do { try work.caller.fail(Self.errorFailed, message + "; the notification was withdrawn") } catch {
                logger.error("cannot answer \(work.caller.sender)'s Notify: \(error)")
            }
            if let previous {
                send(.update(.id(card.id), changes: Self.changes(to: previous), restartDwell: false),
                     .withdraw("the replacement of notification \(placement.id)"))
            } else {
                send(.cancel(card.id), .withdraw("notification \(placement.id) (activity \(card.id))"))
            }
        }
    }

    /// The next time a waiting or outstanding Notify must be answered.
    private func nextDeadline() -> Double? {
        var next: Double?
        func consider(_ caller: Caller) {
            guard !caller.answered else { return }
            next = min(next ?? caller.deadline, caller.deadline)
        }
        for work in waiting { if case .notify(let notify) = work { consider(notify.caller) } }
        for sent in outstanding { if case .notify(let work, _, _, _) = sent.purpose { consider(work.caller) } }
        return next
    }

    /// Whether nookd has left a request unanswered for the whole timeout: new notifications
    /// are then told at once instead of each waiting that long.
    private func stalledFor(now: Double) -> Double? {
        guard let oldest = outstanding.first, now - oldest.sentAt >= options.timeout else { return nil }
        return now - oldest.sentAt
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    static func isNotFound(_ error: ClientError) -> Bool {
        if case .daemon(let refusal) = error, refusal.code == .notFound { return true }
        return false
    }

    /// nookd's refusal of an id it already holds (see `enqueueUnique` in NookDaemon).
    static func isOwnEarlierAttempt(_ error: ClientError) -> Bool {
        guard case .daemon(let refusal) = error else { return false }
        return refusal.code == .invalid && refusal.field == "activity.id" && refusal.message.contains("already")
    }

    // MARK: nookd's events

    /// Connects and asks for the event stream; its answer is read in the poll loop.
    private func connectEvents() {
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
    private func reconcile(ended: Set<NookActivityID>) {
        for activity in registry.activities where ended.contains(activity) {
            if let (id, reason) = registry.ended(activity, .rejected("unknown")) { closed(id, reason) }
        }
    }

    private func readEvents() {
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
    private func invoked(_ activity: NookActivityID) {
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

    private func closed(_ id: UInt32, _ reason: CloseReason) {
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

    // MARK: D-Bus

    static let errorFailed = "org.freedesktop.DBus.Error.Failed"
    static let errorInvalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    static let errorAccessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    /// Too many: a sender over its limits, the bridge's line of waiting notifications full, or
    /// nookd's queue full. The notification spec names no errors; this is the standard D-Bus
    /// one, which GLib senders match as G_DBUS_ERROR_LIMITS_EXCEEDED.
    static let errorLimitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"

    /// 1: answered (or to be answered once nookd has); 0: not ours, sd-bus answers (unknown
    /// method); negative: a failure sd-bus turns into an error reply.
    private func handle(_ message: BusMessage) -> Int32 {
        guard message.isMethodCall, let member = message.member else { return 0 }
        trim.activity(at: MonotonicClock.seconds)
        let interface = message.interface
        do throws(SystemCallError) {
            if interface == "org.freedesktop.DBus.Introspectable" && member == "Introspect" {
                try message.reply { writer throws(SystemCallError) in try writer.string(Self.introspection) }
                return 1
            }
            guard interface == nil || interface == Self.interface else { return 0 }
            let expected: String
            switch member {
            case "Notify": expected = "susssasa{sv}i"
            case "CloseNotification": expected = "u"
            case "GetCapabilities", "GetServerInformation": expected = ""
            default: return 0
            }
            guard message.signature == expected else {
                try message.replyError(Self.errorInvalidArgs, "\(member) takes (\(expected)), got (\(message.signature))")
                return 1
            }
            switch member {
            case "Notify": try notify(message)
            case "CloseNotification": try close(message)
            case "GetCapabilities":
                try message.reply { writer throws(SystemCallError) in try writer.strings(Self.capabilities) }
            default:
                let info = Self.serverInformation
                try message.reply { writer throws(SystemCallError) in
                    for value in [info.name, info.vendor, info.version, info.specVersion] { try writer.string(value) }
                }
            }
            return 1
        } catch {
            logger.error("\(member) from \(message.sender ?? "?"): \(error)")
            return -error.errno.rawValue
        }
    }

    private func senderUID(_ sender: String) throws(SystemCallError) -> UInt32 {
        if let uid = uids[sender] { return uid }
        let uid = try bus.uid(of: sender)
        // Unique names are never reused on a bus, so a cached uid stays right; the cache is
        // only bounded.
        if uids.count >= 1024 { uids.removeAll(keepingCapacity: true) }
        uids[sender] = uid
        return uid
    }

    private func notify(_ message: BusMessage) throws(SystemCallError) {
        let sender = message.sender ?? ""
        var notes: [String] = []
        func text(_ what: String, limit: Int) throws(SystemCallError) -> String {
            let (text, bytes) = try message.string(limit: limit)
            if bytes > limit { notes.append("\(what) of \(bytes) bytes cut to \(limit)") }
            return text
        }
        var call = NotifyCall(summary: "")
        call.appName = try text("app_name", limit: NotifyLimits.shortStringBytes)
        call.replacesID = try message.uint32()
        call.appIcon = try text("app_icon", limit: NotifyLimits.shortStringBytes)
        call.summary = try text("summary", limit: NotifyLimits.summaryBytes)
        call.body = try text("body", limit: NotifyLimits.bodyBytes)
        let (actions, actionCount) = try message.strings(limit: NotifyLimits.actionStrings, bytes: NotifyLimits.shortStringBytes)
        if actionCount > actions.count { notes.append("\(actionCount) action strings; kept the first \(actions.count)") }
        call.actions = actions
        let (hints, hintCount) = try message.hints(limit: NotifyLimits.hints, bytes: NotifyLimits.shortStringBytes)
        if hintCount > NotifyLimits.hints { notes.append("\(hintCount) hints; read the first \(NotifyLimits.hints)") }
        call.hints = hints
        call.expireTimeout = try message.int32()

        let uid = try senderUID(sender)
        let now = MonotonicClock.seconds
        let replacing = registry.plan(call, uid: uid).replacing != nil
        // Its notifications still waiting for nookd count as live too.
        let live = replacing ? 0 : registry.liveCount(sender: sender) + waiting.reduce(0) { count, work in
            if case .notify(let notify) = work, notify.caller.sender == sender { count + 1 } else { count }
        }
        if let refusal = limits.admit(sender, now: now, live: live) {
            logger.warning("refused a notification from \(sender) (uid \(uid)): \(refusal)")
            try message.replyError(Self.errorLimitsExceeded, refusal)
            return
        }
        if let stalled = stalledFor(now: now) {
            let text = "nookd has not answered for \(Self.seconds(stalled.rounded())) (it is stopped or stalled); the notification was not sent"
            logger.warning("refused a notification from \(sender): \(text)")
            try message.replyError(Self.errorFailed, text)
            return
        }
        guard waiting.count < Self.waitingLimit else {
            let text = "\(waiting.count) notifications are already waiting for nookd"
            logger.warning("refused a notification from \(sender): \(text)")
            try message.replyError(Self.errorLimitsExceeded, text)
            return
        }
        let caller = Caller(message, sender: sender, deadline: now + options.timeout)
        waiting.append(.notify(NotifyWork(caller: caller, call: call.compacted(), uid: uid, notes: notes)))
        pump()
    }

    /// Answered at once: the cancel follows in line, behind any Notify still waiting for nookd.
    private func close(_ message: BusMessage) throws(SystemCallError) {
        let sender = message.sender ?? ""
        let id = try message.uint32()
        let uid = try senderUID(sender)
        if let record = registry.record(id), record.uid != uid, uid != 0 {
            logger.warning("\(sender) (uid \(uid)) tried to close notification \(id) of uid \(record.uid)")
            try message.replyError(Self.errorAccessDenied, "notification \(id) was sent by another user")
            return
        }
        // An id that is gone: the spec's answer is nothing to do, not an error clients see. One
        // already closing, or whose close is waiting, needs nothing more (a client repeating
        // the call while nookd is stopped adds nothing to the line).
        let queued = waiting.contains { if case .close(let waitingID, _) = $0 { waitingID == id } else { false } }
        if let record = registry.record(id), record.closing == nil, !queued {
            waiting.append(.close(id: id, uid: uid))
            pump()
        }
        try message.reply { _ throws(SystemCallError) in }
    }

    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
         <interface name="org.freedesktop.DBus.Introspectable">
          <method name="Introspect"><arg name="xml" type="s" direction="out"/></method>
         </interface>
         <interface name="org.freedesktop.DBus.Peer">
          <method name="Ping"/>
          <method name="GetMachineId"><arg name="machine_uuid" type="s" direction="out"/></method>
         </interface>
         <interface name="org.freedesktop.Notifications">
          <method name="GetCapabilities"><arg name="capabilities" type="as" direction="out"/></method>
          <method name="Notify">
           <arg name="app_name" type="s" direction="in"/>
           <arg name="replaces_id" type="u" direction="in"/>
           <arg name="app_icon" type="s" direction="in"/>
           <arg name="summary" type="s" direction="in"/>
           <arg name="body" type="s" direction="in"/>
           <arg name="actions" type="as" direction="in"/>
           <arg name="hints" type="a{sv}" direction="in"/>
           <arg name="expire_timeout" type="i" direction="in"/>
           <arg name="id" type="u" direction="out"/>
          </method>
          <method name="CloseNotification"><arg name="id" type="u" direction="in"/></method>
          <method name="GetServerInformation">
           <arg name="name" type="s" direction="out"/>
           <arg name="vendor" type="s" direction="out"/>
           <arg name="version" type="s" direction="out"/>
           <arg name="spec_version" type="s" direction="out"/>
          </method>
          <signal name="NotificationClosed"><arg name="id" type="u"/><arg name="reason" type="u"/></signal>
          <signal name="ActionInvoked"><arg name="id" type="u"/><arg name="action_key" type="s"/></signal>
         </interface>
        </node>
        """
}
