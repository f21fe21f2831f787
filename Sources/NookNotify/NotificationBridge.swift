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

    let options: Options
    let logger: Logger
    let bus: Bus
    var registry = NotificationRegistry()
    var limits: SenderLimits
    /// Requests (enqueue, update, cancel, ...) go over this connection one at a time, in the
    /// order they came, each planned against the registry only when it is sent (so it sees
    /// every notification placed before it), and answered in the poll loop.
    var requests: NookClient?
    var waiting: [Work] = []
    var outstanding: [Sent] = []
    var requestNumber = 0
    /// Notifications waiting for their turn: beyond this, Notify answers LimitsExceeded.
    static let waitingLimit = 128
    /// The `watch` stream: every activity's end, read as it comes. `watching` once nookd has
    /// answered the subscription.
    var events: NookClient?
    var watching = false
    var nextEventsAttempt = 0.0
    /// Up to a second: notifications sent while the stream is down cannot be closed.
    var eventsBackoff = ReconnectBackoff(limit: 1)
    var uids: [String: UInt32] = [:]
    let ownUID = getuid()
    /// When the pages start-up or a burst of notifications needed are dropped
    /// (`notify_bridge_idle_rss_mib`): once serving, then a second after a burst of calls and
    /// of their cards' events.
    var trim = IdleTrim()

    /// A D-Bus call waiting for nookd: answered once, by nookd's answer or at its deadline.
    final class Caller {
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

    struct NotifyWork {
        let caller: Caller
        let call: NotifyCall
        let uid: UInt32
        let notes: [String]
    }

    /// What waits for its turn on the request connection.
    enum Work {
        case notify(NotifyWork)
        /// CloseNotification(id): the activity is looked up when the cancel is sent.
        case close(id: UInt32, uid: UInt32)
        /// A notification's card after its default action was invoked.
        case dismiss(NookActivityID, id: UInt32)
        /// nookd's activities, after the event stream was down (``reconcile(ended:)``).
        case list
    }

    /// A request sent and not answered yet.
    struct Sent {
        let operation: NookOperation
        let purpose: Purpose
        let sentAt: Double
        var retried: Bool
    }

    enum Purpose {
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
}
