/// Orders transient activities and presents each by briefly taking the display surface (Q2–Q17).
///
/// All state is isolated to this actor. Bind it to a ``NookSurfaceArbiter`` (Q11), enqueue
/// from anywhere, and subscribe to ``events(bufferingPolicy:)`` for the lifecycle (Q13). A
/// drain task runs while there is something pending and the queue may drain; it yields to the
/// user (Q6), claims the surface (Q9), and walks each activity through animate-in, dwell and
/// animate-out on the injected clock (Q18).
public actor NookActivityQueue {
    public struct Configuration: Sendable {
        /// How often a parked drain re-checks engagement and denied claims (Q6).
        public var pollInterval: Duration
        /// Most pending activities held at once (Q16).
        public var capacity: Int

        /// When set, the queue has a presenter that reports, through
        /// ``NookActivityQueue/animateInFinished(_:)``, when each card is fully on the glass;
        /// `presented` waits for that report (at most this long past the animate-in's planned
        /// end, so a stuck display cannot hold the queue), and the dwell counts from it (Q13).
        /// A slow display then shortens no card. Nil: the dwell counts from the planned end.
        public var presenterTimeout: Duration?
        /// Names the share of the capacity each activity counts against (nookd: its sender), so
        /// that an enqueue given a share limit can bound it (Q16); nil: no shares.
        public var shareOf: (@Sendable (NookActivity) -> String)?

        public init(pollInterval: Duration = .milliseconds(200), capacity: Int = 256, presenterTimeout: Duration? = nil,
                    shareOf: (@Sendable (NookActivity) -> String)? = nil) {
            precondition(pollInterval > .zero, "pollInterval must be positive")
            precondition(capacity > 0, "capacity must be positive")
            precondition(presenterTimeout.map { $0 >= .zero } ?? true, "presenterTimeout must not be negative")
            self.pollInterval = pollInterval
            self.capacity = capacity
            self.presenterTimeout = presenterTimeout
            self.shareOf = shareOf
        }
    }

    enum WaitPurpose {
        case parked, presentation, animateOut, endDelay
    }

    struct Waiter {
        var purpose: WaitPurpose
        var continuation: CheckedContinuation<Void, Never>
        var timer: Task<Void, Never>?
        var serial: UInt64
    }

    enum EndRequest {
        /// End for good, with this reason.
        case end(NookEndReason)
        /// Take it off the glass and put it back at the head of its class (quiesce, display gone).
        case interrupt
    }

    struct OnScreen {
        var entry: PendingActivities.Entry
        var grant: NookSurfaceArbiter.Grant
        var surface: NookSurfaceArbiter
        var phase: NookPresentationPhase
        var since: NookInstant
        var endRequest: EndRequest?
        /// Ending for good (its dwell ran out, cancelled, dismissed), not to come back.
        var isEnding: Bool { if case .end? = endRequest { true } else { false } }
        /// The `at` of this presentation's `animateIn` event, which the presenter's report names.
        var animateInAt: NookInstant
        /// When the presenter reported the card fully on the glass.
        var onGlassAt: NookInstant?
        /// Where the dwell (or a blocker's timeout) counts from once presented; an update that
        /// restarts the dwell, or turns a blocker into a timed card, moves it to its own time (U1).
        var dwellStart: NookInstant?
    }

    public nonisolated let configuration: Configuration
    let clock: any NookClock
    let engagement: (any NookEngagementSource)?
    let hub = NookEventHub()
    let mailbox = NookQueueMailbox()

    var pendingActivities: PendingActivities
    var onScreen: OnScreen?
    var surface: NookSurfaceArbiter?
    var boundModule: NookModuleID?
    var engagementObservation: NookObservation?
    var userSuspended = false
    /// ``yieldSurface()`` calls under way: the drain stays off the surface until they return.
    var yieldHolds = 0
    var displayAvailable = true
    var parkReason: NookParkReason?
    var drainTask: Task<Void, Never>?
    var waiter: Waiter?
    var waitSerial: UInt64 = 0
    /// The one timer that drops pending activities at their expiry (Q17), armed for the
    /// earliest deadline whatever the drain is doing (suspended, parked, showing a blocker).
    var expiryTimer: (deadline: NookInstant, task: Task<Void, Never>)?
    /// Events of the change under way, delivered together when it is done (see ``observe(_:)``).
    var gathering: [NookActivityEvent]?
    /// Slots of the capacity kept for cards set aside to come back (a snooze): counted as
    /// pending by Q16, so the card finds its place when it returns.
    var setAside = 0

    public init(
        clock: any NookClock = NookSystemClock(),
        engagement: (any NookEngagementSource)? = nil,
        configuration: Configuration = Configuration()
    ) {
        self.clock = clock
        self.engagement = engagement
        self.configuration = configuration
        pendingActivities = PendingActivities(shareOf: configuration.shareOf)
    }

    deinit {
        expiryTimer?.task.cancel()
        hub.finishAll()
    }

    // MARK: Binding (Q11)

    /// Binds the queue to the surface it will claim. Without `moduleID` it takes the module
    /// that is foreground now (or `default` if there is none). Until bound, activities wait.
    public func bind(to surface: NookSurfaceArbiter, moduleID: NookModuleID? = nil) {
        self.surface = surface
        boundModule = moduleID ?? surface.foregroundModule ?? NookModuleID("default")
        if engagementObservation == nil, let engagement {
            engagementObservation = engagement.observe { [weak self] _ in
                guard let self else { return }
                self.mailbox.post(.engagementChanged, to: self)
            }
        }
        startDrainIfNeeded()
    }

    /// The module id stamped on this queue's claims.
    public var moduleID: NookModuleID? { boundModule }

    // MARK: Observing (Q12, Q13)

    /// A stream of the lifecycle events from now on for which `wants` is true (every one, by
    /// default), in order. Any number may be open. Filtering here rather than in the consumer
    /// spares the consumer a wake-up for each event it would skip.
    public nonisolated func events(
        bufferingPolicy: AsyncStream<NookActivityEvent>.Continuation.BufferingPolicy = .unbounded,
        where wants: @escaping @Sendable (NookActivityEvent) -> Bool = { _ in true }
    ) -> AsyncStream<NookActivityEvent> {
        hub.subscribe(bufferingPolicy: bufferingPolicy, where: wants)
    }

    /// Calls `callback` with every event from now on, synchronously, on the queue's executor,
    /// before any ``events(bufferingPolicy:where:)`` stream receives it and before the call that
    /// caused it returns. The events of one change arrive together, in order: an `enqueue` that
    /// evicts or coalesces delivers those ends with its `enqueued`, so a consumer can record them
    /// as one (nookd's journal, which must never keep an end without the arrival that caused
    /// it). The callback must be quick and must not wait: it runs inside the queue. Observing
    /// stops when the returned observation is cancelled or released.
    public nonisolated func observe(_ callback: @escaping @Sendable ([NookActivityEvent]) -> Void) -> NookObservation {
        hub.observe(callback)
    }

    /// The activity on screen, if any.
    public var current: NookActivity? { onScreen?.entry.activity }

    /// Pending activities in the order they will be shown.
    public var pending: [NookActivity] {
        expireDue()
        return pendingActivities.ordered.map(\.activity)
    }

    public var pendingCount: Int {
        expireDue()
        return pendingActivities.count
    }

    public var isSuspended: Bool { userSuspended }

    /// Whether an activity with this id is pending or on screen (it has not ended).
    public func holds(_ id: NookActivityID) -> Bool {
        pendingActivities.contains(id) || onScreen?.entry.activity.id == id
    }

    /// The ids among `ids` that are pending or on screen here: one call for a batch.
    public func held(among ids: [NookActivityID]) -> [NookActivityID] {
        ids.filter { holds($0) }
    }

    /// ``enqueue(_:coalescing:)`` of each activity in turn, in one call: a client pipelining
    /// requests then costs one hop to the queue's executor per batch instead of one per
    /// activity. The results and events are those of the same enqueues made one by one.
    public func enqueue(contentsOf activities: [NookActivity],
                        coalescing permits: @Sendable (NookActivity) -> Bool = { _ in true }) -> [NookEnqueueResult] {
        activities.map { enqueue($0, coalescing: permits, shareLimit: nil, fromSetAside: false) }
    }

    /// ``enqueue(contentsOf:coalescing:)`` with each arrival's share of the capacity bounded
    /// by `shareLimit` (``Configuration/shareOf``; Q16): for each arrival refused because its
    /// share was full, `shareHeld` says how many pending cards counted against the share then.
    public func enqueue(contentsOf activities: [NookActivity], coalescing permits: @Sendable (NookActivity) -> Bool = { _ in true },
                        shareLimit: Int) -> [(result: NookEnqueueResult, shareHeld: Int?)] {
        activities.map { enqueueCountingShare($0, coalescing: permits, shareLimit: shareLimit, fromSetAside: false) }
    }

    /// How many pending activities count against `share` (``Configuration/shareOf``).
    public func pendingCount(inShare share: String) -> Int {
        pendingActivities.count(inShare: share)
    }

    /// The activity with this id if it is pending or on screen.
    public func activity(_ id: NookActivityID) -> NookActivity? {
        if let shown = onScreen?.entry.activity, shown.id == id { return shown }
        return pendingActivities.entry(id)?.activity
    }

    public func snapshot() -> NookQueueSnapshot {
        expireDue()
        return NookQueueSnapshot(
            module: boundModule,
            current: onScreen?.entry.activity,
            currentPhase: onScreen?.phase,
            currentSince: onScreen?.since,
            pending: pendingActivities.ordered.map(\.activity),
            isSuspended: userSuspended,
            isDisplayAvailable: displayAvailable,
            parkReason: parkReason,
            capacity: configuration.capacity)
    }

    /// The entry on the glass and up to `limit` pending entries after `place` (``listing(after:limit:)``).
    func listedPart(after place: NookListingPlace?, except: NookActivityID?, limit: Int) -> (shown: PendingActivities.Entry?, pending: [PendingActivities.Entry], more: Bool) {
        expireDue()
        let (pending, more) = pendingActivities.listed(after: place, except: except, limit: limit)
        return (onScreen?.entry, pending, more)
    }

    /// Slots held by the pending structure, live or awaiting sweep (for memory-bound tests).
    var storageSlots: Int { pendingActivities.storageSlots }
}
