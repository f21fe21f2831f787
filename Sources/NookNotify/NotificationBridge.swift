import Logging
import NookActivities
import NookProtocol
import NookSystem
#if canImport(Glibc)
import Glibc
#endif

/// `nook-notify`: owns `org.freedesktop.Notifications` (spec 1.2) on a bus and forwards each
/// notification to nookd over its socket, so nookd stays the one owner of the display and
/// the queue (SPEC E1–E3). One thread: a `poll(2)` loop over the bus connection and nookd's
/// event stream; sd-bus is not thread-safe and needs nothing more.
public final class NotificationBridge {
    public struct Options: Sendable {
        public var socketPath: String
        public var systemBus: Bool
        /// Take the name from a notification server that allows it (dunst, mako do not).
        public var replace: Bool
        /// nookd's queue module the cards go to; nil: the foreground one.
        public var module: String?
        public var limits: SenderLimits

        public init(socketPath: String, systemBus: Bool = false, replace: Bool = false, module: String? = nil, limits: SenderLimits = SenderLimits()) {
            (self.socketPath, self.systemBus, self.replace, self.module, self.limits) = (socketPath, systemBus, replace, module, limits)
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
    /// Requests (enqueue, cancel): blocking round trips, answered in well under a millisecond
    /// without a journal and after one `fdatasync` with one.
    private var requests: NookClient?
    /// The `watch` stream: every activity's end, read as it comes.
    private var events: NookClient?
    private var nextEventsAttempt = 0.0
    /// Up to a second: notifications sent while the stream is down cannot be closed.
    private var eventsBackoff = ReconnectBackoff(limit: 1)
    private var uids: [String: UInt32] = [:]
    private let ownUID = getuid()
    /// When the pages start-up or a burst of notifications needed are dropped
    /// (`notify_bridge_idle_rss_mib`): once serving, then a second after a burst of calls and
    /// of their cards' events.
    private var trim = IdleTrim()

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
        } catch where error.errno == EEXIST {
            throw SystemCallError("sd_bus_request_name", errno: EEXIST, subject: "\(Self.busName): another notification server (dunst, mako, the desktop's own) owns it; stop it or pass --replace")
        }
        logger.info("serving \(Self.busName) on the \(options.systemBus ? "system" : "session") bus as \(bus.uniqueName), forwarding to nookd at \(options.socketPath)")
        connectEvents()
        // Start-up is over (the runtime, the bus handshake, the name): its code need not stay
        // resident.
        IdleTrim.dropPages()
        while true {
            try bus.processAll()
            if trim.takeDue(now: MonotonicClock.seconds) { IdleTrim.dropPages() }
            let (entry, busTimeout) = try bus.pollEntry()
            var timeout = busTimeout
            if let due = trim.due {
                let wait = Int32(max(0, ((due - MonotonicClock.seconds) * 1000).rounded(.up)))
                timeout = timeout < 0 ? wait : min(timeout, wait)
            }
            var descriptors = [entry]
            if let events {
                if events.hasBufferedLine { readEvents(); continue }
                descriptors.append(pollfd(fd: events.descriptor, events: Int16(POLLIN), revents: 0))
            } else {
                let wait = Int32(max(0, (nextEventsAttempt - MonotonicClock.seconds) * 1000))
                timeout = timeout < 0 ? wait : min(timeout, wait)
            }
            _ = try pollDescriptors(&descriptors, timeoutMilliseconds: timeout)
            if descriptors.count > 1, descriptors[1].revents != 0 { readEvents() }
            if events == nil, MonotonicClock.seconds >= nextEventsAttempt { connectEvents() }
        }
    }

    // MARK: nookd

    private func connectEvents() {
        do throws(ClientError) {
            events = try NookClient.watching(path: options.socketPath, readTimeout: .seconds(2))
            eventsBackoff.reset()
            logger.info("watching nookd's events at \(options.socketPath)")
            reconcile()
        } catch {
            if nextEventsAttempt == 0 || events != nil { logger.warning("nookd is not reachable (\(error)); trying again within a second") }
            events = nil
            nextEventsAttempt = MonotonicClock.seconds + eventsBackoff.next()
        }
    }

    /// After the stream was down, notifications whose activity nookd no longer has ended
    /// unseen: they are closed with reason 4 so clients waiting on them (`notify-send --wait`) return.
    private func reconcile() {
        guard registry.count > 0 else { return }
        guard let (list, _) = try? request(.list(module: nil), as: ListAnswer.self) else { return }
        var live = Set<NookActivityID>()
        for module in list.modules {
            if let current = module.current { live.insert(current.id) }
            for activity in module.pending { live.insert(activity.id) }
        }
        for activity in registry.activities where !live.contains(activity) {
            if let (id, reason) = registry.ended(activity, .rejected("unknown")) { closed(id, reason) }
        }
    }

    private func readEvents() {
        guard let events else { return }
        // The cards' events decode JSON long after their Notify: the pages are dropped once
        // these too have stopped, not while the code comes back for each event.
        trim.activity(at: MonotonicClock.seconds)
        repeat {
            let line: [UInt8]?
            do throws(ClientError) { line = try events.readLine() } catch {
                logger.warning("lost nookd's event stream: \(error)")
                line = nil
            }
            guard let line else {
                self.events = nil
                nextEventsAttempt = MonotonicClock.seconds + eventsBackoff.next()
                return
            }
            guard case .event(_, let json)? = try? ResponseLine.decode(line), let event = try? EventMessage(json: json) else { continue }
            if event.event == "invoked" { invoked(event.id); continue }
            guard let ending = event.ending else { continue }
            if let (id, reason) = registry.ended(event.id, ending) { closed(id, reason) }
        } while events.hasBufferedLine
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
        do throws(ClientError) {
            _ = try request(.dismiss(dismiss), as: DismissAnswer.self)
        } catch {
            // notFound: it ended meanwhile, and its end event closes it with its own reason.
            logger.info("notification \(id): could not dismiss it after its action: \(error)")
        }
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

    /// nookd's refusal of an id it already holds (see `enqueueUnique` in NookDaemon).
    static func isOwnEarlierAttempt(_ error: ClientError) -> Bool {
        guard case .daemon(let refusal) = error else { return false }
        return refusal.code == .invalid && refusal.field == "activity.id" && refusal.message.contains("already")
    }

    /// One request to nookd, reconnecting once if the connection was lost meanwhile.
    private func request<Answer: NookAnswer>(_ operation: NookOperation, as type: Answer.Type) throws(ClientError) -> (Answer, JSONValue) {
        for attempt in 0..<2 {
            do throws(ClientError) {
                let client: NookClient
                if let requests { client = requests } else {
                    client = try NookClient(path: options.socketPath)
                    client.readTimeout = .seconds(10)
                    requests = client
                }
                return try client.request(Request(id: .number(1), operation: operation), as: type)
            } catch {
                guard case .unreachable = error, attempt == 0 else {
                    if case .unreachable = error { requests = nil }
                    throw error
                }
                requests = nil
            }
        }
        throw .unreachable("unreachable")
    }

    // MARK: D-Bus

    static let errorFailed = "org.freedesktop.DBus.Error.Failed"
    static let errorInvalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    static let errorAccessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    static let errorLimitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"

    /// 1: answered; 0: not ours, sd-bus answers (unknown method); negative: a failure sd-bus
    /// turns into an error reply.
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
            return -error.errno
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
        let placement = registry.plan(call, uid: uid)
        if let note = placement.note { notes.append(note) }
        let live = placement.replacing == nil ? registry.liveCount(sender: sender) : 0
        if let refusal = limits.admit(sender, now: MonotonicClock.seconds, live: live) {
            logger.warning("refused a notification from \(sender) (uid \(uid)): \(refusal)")
            try message.replyError(Self.errorLimitsExceeded, refusal)
            return
        }
        let activityID = NookActivityID()
        let mapped = NotificationMapping.activity(for: call, id: activityID, key: placement.coalescingKey, allowPaths: uid == ownUID)
        notes += mapped.notes
        for note in notes { logger.notice("notification from \(sender) (\(call.appName.isEmpty ? "no app name" : call.appName)): \(note)") }
        do throws(ClientError) {
            _ = try request(.enqueue(mapped.activity, module: options.module, wait: false), as: EnqueueAnswer.self)
        } catch where Self.isOwnEarlierAttempt(error) {
            // The id is new for this call: nookd holding it already means the first attempt
            // got through before its answer was lost (a timeout, a dropped connection), and
            // the retry was refused as a duplicate. It is queued; treat it as accepted.
            logger.info("nookd already had activity \(activityID) from an attempt whose answer was lost")
        } catch {
            logger.warning("nookd did not take a notification from \(sender): \(error)")
            switch error {
            case .unreachable, .connectionLost: try message.replyError(Self.errorFailed, "nookd is not reachable at \(options.socketPath): \(error)")
            case .daemon: try message.replyError(Self.errorInvalidArgs, "nookd refused the notification: \(error)")
            }
            return
        }
        registry.commit(placement, activity: activityID, uid: uid, sender: sender, hasDefaultAction: call.hasDefaultAction,
                        isResident: call.isResident)
        if let old = placement.replacing {
            // A pending predecessor was coalesced by the enqueue; one on the glass ends now so
            // its replacement follows at once instead of after its dwell.
            _ = try? request(.cancel(old), as: CancelAnswer.self)
        }
        logger.debug("notification \(placement.id) from \(sender) is activity \(activityID)")
        try message.reply { writer throws(SystemCallError) in try writer.uint32(placement.id) }
    }

    private func close(_ message: BusMessage) throws(SystemCallError) {
        let sender = message.sender ?? ""
        let id = try message.uint32()
        let uid = try senderUID(sender)
        switch registry.requestClose(id, uid: uid) {
        case .unknown, .alreadyClosing:
            // The spec's answer for an id that is gone: nothing to do, not an error clients see.
            // One whose action was invoked is already being dismissed (reason 2).
            break
        case .forbidden(let owner):
            logger.warning("\(sender) (uid \(uid)) tried to close notification \(id) of uid \(owner)")
            try message.replyError(Self.errorAccessDenied, "notification \(id) was sent by another user")
            return
        case .cancel(let activity):
            do throws(ClientError) {
                _ = try request(.cancel(activity), as: CancelAnswer.self)
            } catch {
                // notFound: it ended meanwhile; its end event is on its way and reports reason 3.
                if case .unreachable = error {
                    try message.replyError(Self.errorFailed, "nookd is not reachable at \(options.socketPath): \(error)")
                    return
                }
            }
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
