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

    private enum WaitPurpose {
        case parked, presentation, animateOut, endDelay
    }

    private struct Waiter {
        var purpose: WaitPurpose
        var continuation: CheckedContinuation<Void, Never>
        var timer: Task<Void, Never>?
        var serial: UInt64
    }

    private enum EndRequest {
        /// End for good, with this reason.
        case end(NookEndReason)
        /// Take it off the glass and put it back at the head of its class (quiesce, display gone).
        case interrupt
    }

    private struct OnScreen {
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
    private let clock: any NookClock
    private let engagement: (any NookEngagementSource)?
    private let hub = NookEventHub()
    private let mailbox = NookQueueMailbox()

    private var pendingActivities: PendingActivities
    private var onScreen: OnScreen?
    private var surface: NookSurfaceArbiter?
    private var boundModule: NookModuleID?
    private var engagementObservation: NookObservation?
    private var userSuspended = false
    /// ``yieldSurface()`` calls under way: the drain stays off the surface until they return.
    private var yieldHolds = 0
    private var displayAvailable = true
    private var parkReason: NookParkReason?
    private var drainTask: Task<Void, Never>?
    private var waiter: Waiter?
    private var waitSerial: UInt64 = 0
    /// The one timer that drops pending activities at their expiry (Q17), armed for the
    /// earliest deadline whatever the drain is doing (suspended, parked, showing a blocker).
    private var expiryTimer: (deadline: NookInstant, task: Task<Void, Never>)?
    /// Events of the change under way, delivered together when it is done (see ``observe(_:)``).
    private var gathering: [NookActivityEvent]?
    /// Slots of the capacity kept for cards set aside to come back (a snooze): counted as
    /// pending by Q16, so the card finds its place when it returns.
    private var setAside = 0

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

    // MARK: Enqueue, cancel, dismiss (Q4, Q5, Q14, Q16, Q17)

    /// Validates and queues an activity. A non-nil coalescing key first removes the pending
    /// activities with the same key that `permits` accepts (Q4; nookd lets a key reach only
    /// what its sender may end, U3); a full queue evicts its oldest lowest-priority activity
    /// for a higher-priority arrival, or rejects the arrival as `queueFull` (Q16).
    ///
    /// An activity whose id is already pending or on screen is refused with no event at all:
    /// events are keyed by id, so a `rejected` for it would read as the live activity's end.
    @discardableResult
    public func enqueue(_ activity: NookActivity, coalescing permits: @Sendable (NookActivity) -> Bool = { _ in true },
                        shareLimit: Int? = nil) -> NookEnqueueResult {
        enqueue(activity, coalescing: permits, shareLimit: shareLimit, fromSetAside: false)
    }

    /// Keeps one slot of the capacity (Q16) for a card set aside to come back later (a
    /// snooze): until ``releaseSetAside()`` or its return through
    /// ``enqueueSetAside(_:coalescing:)``, new arrivals find the queue that much fuller. A queue
    /// already full stays so: nothing pending is evicted for it.
    public func keepSetAside() { setAside += 1 }

    /// Gives back a slot ``keepSetAside()`` kept (the card will not come back).
    public func releaseSetAside() { setAside = max(0, setAside - 1) }

    /// Cards set aside with a slot kept for them.
    public var setAsideCount: Int { setAside }

    /// The return of a card set aside (``keepSetAside()``): its kept slot is given back and the
    /// card enqueued, in one step, so no other arrival takes the slot in between.
    @discardableResult
    public func enqueueSetAside(_ activity: NookActivity, coalescing permits: @Sendable (NookActivity) -> Bool = { _ in true }) -> NookEnqueueResult {
        enqueue(activity, coalescing: permits, shareLimit: nil, fromSetAside: true)
    }

    private func enqueue(_ activity: NookActivity, coalescing permits: @Sendable (NookActivity) -> Bool, shareLimit: Int?,
                         fromSetAside: Bool) -> NookEnqueueResult {
        enqueueCountingShare(activity, coalescing: permits, shareLimit: shareLimit, fromSetAside: fromSetAside).result
    }

    /// The enqueue, and for an arrival refused because its share is full, how many pending
    /// cards count against that share (it may hold more than the limit: a lowered limit, a
    /// card put back by `quiesce`).
    private func enqueueCountingShare(_ activity: NookActivity, coalescing permits: @Sendable (NookActivity) -> Bool, shareLimit: Int?,
                                      fromSetAside: Bool) -> (result: NookEnqueueResult, shareHeld: Int?) {
        if fromSetAside { releaseSetAside() }
        if holds(activity.id) {
            return (.rejected(activity.id, .invalid(NookActivityValidationError(
                field: "id", problem: "activity \(activity.id) is already queued or on screen; an id names one activity until it ends"))), nil)
        }
        gathering = []
        defer {
            if let events = gathering, !events.isEmpty { hub.emit(events) }
            gathering = nil
        }
        do {
            try activity.validate()
        } catch {
            return (reject(activity, .invalid(error)), nil)
        }
        expireDue()
        let peers = coalesced(by: activity.coalescingKey, except: activity.id, permits: permits)
        // One arrival ends at most one card to make its room, and only once it is sure to be
        // queued: its share's lowest when its share is full, else the queue's lowest when the
        // queue is (Q16). A card its share gives up leaves the count as it was.
        var victim: PendingActivities.Entry?
        if let shareLimit, let share = configuration.shareOf?(activity) {
            // The cards this arrival replaces (Q4) leave the share as it comes.
            let leaving = peers.filter { pendingActivities.entry($0)?.share == share }.count
            let held = pendingActivities.count(inShare: share) - leaving
            if held >= shareLimit {
                guard let candidate = pendingActivities.evictionCandidate(inShare: share, sparing: peers),
                      activity.priority > candidate.activity.priority
                else { return (reject(activity, .queueFull), held) }
                victim = candidate
            }
        }
        if victim == nil, peers.isEmpty, pendingActivities.count + setAside >= configuration.capacity {
            guard let candidate = pendingActivities.evictionCandidate(),
                  activity.priority > candidate.activity.priority
            else { return (reject(activity, .queueFull), nil) }
            victim = candidate
        }
        if let victim {
            pendingActivities.remove(victim.activity.id)
            emit(victim.activity, .rejected(.queueFull))
        }
        for peer in peers {
            if let removed = pendingActivities.remove(peer) { emit(removed.activity, .rejected(.coalesced)) }
        }
        pendingActivities.insert(activity, enqueuedAt: clock.now)
        emit(activity, .enqueued)
        armExpiryTimer()
        startDrainIfNeeded()
        return (.accepted(activity.id), nil)
    }

    /// Removes a pending activity, or ends the one on screen early through the normal path
    /// (animate out, release the claim) (Q5). False if no such activity is pending or shown.
    @discardableResult
    public func cancel(_ id: NookActivityID) -> Bool {
        cancelling(id) != .notFound
    }

    /// ``cancel(_:)``, saying what happens: a card already sliding out on its own ends as it
    /// was going to (its dwell ran out, or an earlier request ended it).
    public func cancelling(_ id: NookActivityID) -> NookEndRequestOutcome {
        if let removed = pendingActivities.remove(id) {
            emit(removed.activity, .rejected(.cancelled))
            return .ends
        }
        return requestEnd(of: id, .end(.cancelled))
    }

    /// Removes every pending activity with this coalescing key that `permits` accepts,
    /// queueing no replacement (Q4). Returns how many were removed.
    @discardableResult
    public func cancelAll(coalescingKey key: String, permits: @Sendable (NookActivity) -> Bool = { _ in true }) -> Int {
        var removed = 0
        for id in coalesced(by: key, permits: permits) {
            guard let entry = pendingActivities.remove(id) else { continue }
            emit(entry.activity, .rejected(.cancelled))
            removed += 1
        }
        return removed
    }

    /// The pending activities a key reaches: those with the key that `permits` accepts.
    private func coalesced(by key: String?, except id: NookActivityID? = nil, permits: (NookActivity) -> Bool) -> [NookActivityID] {
        guard let key else { return [] }
        let ids = pendingActivities.ids(forKey: key)
        guard !ids.isEmpty else { return [] }
        return ids.filter { other in
            guard other != id, let entry = pendingActivities.entry(other) else { return false }
            return permits(entry.activity)
        }
    }

    /// Ends every pending activity `matching` says to as `suppressed` (Z1: quiet hours with a
    /// priority configured to end rather than wait); the one on screen is not touched.
    /// Returns the ids ended.
    @discardableResult
    public func suppressPending(where matching: (NookActivity) -> Bool) -> [NookActivityID] {
        let ids = pendingActivities.ordered.map(\.activity).filter(matching).map(\.id)
        for id in ids {
            if let removed = pendingActivities.remove(id) { emit(removed.activity, .rejected(.suppressed)) }
        }
        return ids
    }

    /// Dismisses an activity (Q14): the one on screen ends now; a pending one is skipped.
    @discardableResult
    public func dismiss(_ id: NookActivityID) -> Bool {
        dismissing(id) != .notFound
    }

    /// ``dismiss(_:)``, saying what happens (see ``cancelling(_:)``).
    public func dismissing(_ id: NookActivityID) -> NookEndRequestOutcome {
        if let removed = pendingActivities.remove(id) {
            emit(removed.activity, .rejected(.dismissed))
            return .ends
        }
        return requestEnd(of: id, .end(.dismissed))
    }

    /// Dismisses whatever is on screen (the dismiss input, I1); returns its id.
    @discardableResult
    public func dismissCurrent() -> NookActivityID? {
        dismissingCurrent()?.id
    }

    /// ``cancelling(_:)`` if `permits` accepts the activity, checked inside the queue so that
    /// nothing comes between the check and the end (an owner check, U3).
    public func cancelling(_ id: NookActivityID, permits: @Sendable (NookActivity) -> Bool) -> NookEndRequestOutcome {
        if let found = activity(id), !permits(found) { return .refused(found) }
        return cancelling(id)
    }

    /// ``dismissing(_:)`` if `permits` accepts the activity (see ``cancelling(_:permits:)``).
    public func dismissing(_ id: NookActivityID, permits: @Sendable (NookActivity) -> Bool) -> NookEndRequestOutcome {
        if let found = activity(id), !permits(found) { return .refused(found) }
        return dismissing(id)
    }

    /// ``dismissingCurrent()`` if `permits` accepts the card on screen, in one step.
    public func dismissingCurrent(permits: @Sendable (NookActivity) -> Bool) -> (id: NookActivityID, outcome: NookEndRequestOutcome)? {
        guard let current = onScreen?.entry.activity else { return nil }
        if !permits(current) { return (current.id, .refused(current)) }
        return dismissingCurrent()
    }

    /// ``dismissCurrent()``, saying what happens.
    public func dismissingCurrent() -> (id: NookActivityID, outcome: NookEndRequestOutcome)? {
        guard let id = onScreen?.entry.activity.id else { return nil }
        let outcome = dismissing(id)
        return outcome == .notFound ? nil : (id, outcome)
    }

    /// The ids of every activity with this coalescing key that has not ended: the one on
    /// screen, if it has the key, then the pending ones (U1's update by key).
    public func live(withKey key: String) -> [NookActivityID] {
        var ids: [NookActivityID] = []
        // One sliding out to end is left out: it cannot be updated (``update(_:restartDwell:_:)``).
        if let shown = onScreen, shown.entry.activity.coalescingKey == key, !shown.isEnding { ids.append(shown.entry.activity.id) }
        ids += pendingActivities.ids(forKey: key)
        return ids
    }

    /// Changes an activity that has not ended, in place (U1). `change` gets the activity as it
    /// is now and returns it changed (its id cannot change; an error it throws is rethrown
    /// and changes nothing). A pending activity keeps its place in the queue (a new priority
    /// moves it to that class, among the others by enqueue order); a new coalescing key held by
    /// other pending activities that `permits` accepts coalesces those away, as an enqueue
    /// would (Q4). The activity
    /// on screen is redrawn in place by the presenter, with no animate-out or in; its dwell
    /// keeps running (a changed dwell or timeout counts from when it was presented) unless
    /// `restartDwell`, and a blocker that becomes timed counts its dwell from now, so it ends
    /// on its own. An `updated` event carries the activity before and after; an update that
    /// changes nothing emits none.
    @discardableResult
    public func update(
        _ id: NookActivityID, restartDwell: Bool = false,
        coalescing permits: @Sendable (NookActivity) -> Bool = { _ in true },
        _ change: @Sendable (NookActivity) throws -> NookActivity
    ) throws -> NookUpdate {
        guard let result = try update([id], restartDwell: restartDwell, coalescing: permits, change).first else {
            throw NookUpdateError.notFound(id)
        }
        return result
    }

    /// ``update(_:restartDwell:coalescing:_:)`` of several activities, all or nothing: the
    /// change is made and checked for every one before any is changed, so a change one of them
    /// refuses (a timeout for a timed card) leaves all of them as they were. An id that has
    /// ended since the caller looked it up is left out (nothing is left of it to change), not
    /// an error that would fail the others: returns the updates made, in `ids`' order. A new
    /// key coalesces only pending activities that `permits` accepts and that are not among `ids`.
    public func update(
        _ ids: [NookActivityID], restartDwell: Bool = false,
        coalescing permits: @Sendable (NookActivity) -> Bool = { _ in true },
        _ change: @Sendable (NookActivity) throws -> NookActivity
    ) throws -> [NookUpdate] {
        expireDue()
        var planned: [NookUpdate] = []
        for id in ids {
            let onScreenNow = onScreen.flatMap { $0.entry.activity.id == id ? $0 : nil }
            // One ending for good (its dwell ran out, cancelled, dismissed) is as good as ended: a
            // change to it would slide out with it unseen, and its client would think it shown.
            if onScreenNow?.isEnding == true { continue }
            guard let previous = onScreenNow?.entry.activity ?? pendingActivities.entry(id)?.activity else { continue }
            var updated = try change(previous)
            updated.id = id
            updated.sender = previous.sender
            do {
                try updated.validate()
            } catch {
                throw NookUpdateError.invalid(error)
            }
            planned.append(NookUpdate(previous: previous, activity: updated, wasOnScreen: onScreenNow != nil))
        }
        gathering = []
        defer {
            if let events = gathering, !events.isEmpty { hub.emit(events) }
            gathering = nil
        }
        let targets = Set(ids)
        for result in planned {
            let (previous, updated) = (result.previous, result.activity)
            if result.wasOnScreen, var shown = onScreen, shown.entry.activity.id == updated.id {
                guard result.changed || restartDwell else { continue }
                shown.entry.activity = updated
                if shown.phase == .presented, restartDwell || (previous.isBlocker && !updated.isBlocker) {
                    shown.dwellStart = clock.now
                }
                onScreen = shown
                if result.changed { emit(updated, .updated(previous: previous)) }
                wake(.presentation)
            } else if result.changed {
                if let key = updated.coalescingKey, key != previous.coalescingKey {
                    for peer in coalesced(by: key, except: updated.id, permits: permits) where !targets.contains(peer) {
                        if let removed = pendingActivities.remove(peer) { emit(removed.activity, .rejected(.coalesced)) }
                    }
                }
                _ = pendingActivities.replace(updated)
                emit(updated, .updated(previous: previous))
                expireDue()
            }
        }
        return planned
    }

    // MARK: Invoke (E3)

    /// Invokes the default action of the card on the glass (E3): of `id`'s card if given, else
    /// of whatever is on the glass. Only a card the person can see is invoked, never a pending
    /// one. The card stays on the glass: what follows (a notification closing) is the sender's
    /// call, through the usual requests.
    public func invoking(_ id: NookActivityID? = nil, permits: @Sendable (NookActivity) -> Bool = { _ in true }) -> NookInvokeOutcome {
        guard let shown = onScreen?.entry.activity, id == nil || shown.id == id else { return .notOnGlass }
        guard shown.hasAction else { return .noAction(shown) }
        guard permits(shown) else { return .refused(shown) }
        emit(shown, .invoked)
        return .invoked(shown)
    }

    /// ``invoking(_:permits:)`` of the card on the glass, for callers on any thread that
    /// cannot await (the open input).
    public nonisolated func requestInvokeCurrent() {
        mailbox.post(.invokeCurrent, to: self)
    }

    /// ``dismiss(_:)`` for callers on any thread that cannot await (GPIO callbacks). Requests
    /// made from one thread apply in the order they were made.
    public nonisolated func requestDismiss(_ id: NookActivityID) {
        mailbox.post(.dismiss(id), to: self)
    }

    /// ``dismissCurrent()`` for callers on any thread that cannot await.
    public nonisolated func requestDismissCurrent() {
        mailbox.post(.dismissCurrent, to: self)
    }

    /// ``cancel(_:)`` for callers on any thread that cannot await.
    public nonisolated func requestCancel(_ id: NookActivityID) {
        mailbox.post(.cancel(id), to: self)
    }

    /// Applies requests posted from other threads, oldest first.
    func apply(_ requests: [NookQueueMailbox.Request]) {
        for request in requests {
            switch request {
            case .dismiss(let id): dismiss(id)
            case .dismissCurrent: dismissCurrent()
            case .invokeCurrent: _ = invoking()
            case .cancel(let id): cancel(id)
            case .engagementChanged: engagementDidChange()
            case .surfaceFreed: wake(.parked)
            }
        }
    }

    /// The presenter's report that the card announced by `animateIn` (the event itself) has
    /// finished animating in on the display; see ``Configuration/presenterTimeout``. A report
    /// for a presentation that has moved on (or an earlier showing of the same activity) is
    /// ignored.
    public func animateInFinished(_ animateIn: NookActivityEvent) {
        guard var shown = onScreen, shown.entry.activity.id == animateIn.id, shown.animateInAt == animateIn.at,
              shown.phase == .animateIn, shown.onGlassAt == nil
        else { return }
        shown.onGlassAt = clock.now
        onScreen = shown
        wake(.presentation)
    }

    // MARK: Suspend, resume, quiesce, display (Q7, Q8, Q15)

    /// Stops new takeovers (Q7). The activity on screen finishes its dwell and releases its
    /// claim normally; a parked drain stops at once. Pending activities are kept.
    public func suspend() {
        userSuspended = true
        wake(.parked, .endDelay)
    }

    /// Drains again after ``suspend()`` or ``quiesce()``.
    public func resume() {
        userSuspended = false
        startDrainIfNeeded()
    }

    /// Suspends, ends the presentation on screen early through the normal path (the activity
    /// goes back to the head of the queue), and returns once the drain has fully unwound and
    /// its claim is released (Q8). Idempotent; concurrent calls all return after the unwind.
    public func quiesce() async {
        userSuspended = true
        interruptPresentation()
        if let drainTask { await drainTask.value }
    }

    /// Takes the queue off the surface the way ``quiesce()`` does, then lets it drain again,
    /// leaving ``isSuspended`` as it was: what a module does when it stops being foreground
    /// (Q10). A queue the user suspended stays suspended.
    public func yieldSurface() async {
        yieldHolds += 1
        interruptPresentation()
        if let drainTask { await drainTask.value }
        yieldHolds -= 1
        startDrainIfNeeded()
    }

    /// Tells the queue whether anyone can see the display (Q15). While it cannot, the activity
    /// on screen goes back to the head of the queue and nothing is shown; when it can again,
    /// the queue drains (unless suspended).
    public func setDisplayAvailable(_ available: Bool) {
        guard available != displayAvailable else { return }
        displayAvailable = available
        if available {
            startDrainIfNeeded()
        } else {
            interruptPresentation()
        }
    }

    public var isDisplayAvailable: Bool { displayAvailable }

    // MARK: The drain

    private var mayDrain: Bool { surface != nil && !userSuspended && yieldHolds == 0 && displayAvailable }

    private func startDrainIfNeeded() {
        guard drainTask == nil, mayDrain, !pendingActivities.isEmpty else { return }
        drainTask = Task { await self.drain() }
    }

    private func drain() async {
        while true {
            expireDue()
            guard mayDrain, let surface, let module = boundModule,
                  let next = pendingActivities.first()
            else { break }
            if engagement?.isEngaged == true {
                surface.withdraw(module: module)
                await park(.engaged)
                continue
            }
            let claim = surface.claim(module: module, priority: next.activity.priority,
                                      whenFree: { [weak self] in self?.surfaceBecameFree() })
            switch claim {
            case .denied(let denial):
                await park(.denied(denial))
            case .granted(let grant):
                parkReason = nil
                pendingActivities.remove(next.activity.id)
                await present(next, grant: grant, on: surface)
            }
        }
        if let boundModule { surface?.withdraw(module: boundModule) }
        parkReason = nil
        drainTask = nil
    }

    /// Called by the arbiter (on the releasing thread) when a claim this queue was denied
    /// may now succeed: try again now rather than on the next poll (Q9).
    private nonisolated func surfaceBecameFree() {
        mailbox.post(.surfaceFreed, to: self)
    }

    /// Waits one poll interval, or less if engagement changes or the queue is suspended.
    private func park(_ reason: NookParkReason) async {
        parkReason = reason
        await wait(until: clock.now + configuration.pollInterval, purpose: .parked)
    }

    private func present(_ entry: PendingActivities.Entry, grant: NookSurfaceArbiter.Grant, on surface: NookSurfaceArbiter) async {
        let activity = entry.activity
        // Deadlines come from the planned timeline, not from when this task happens to wake,
        // so a late wake-up does not stretch the presentation.
        let start = clock.now
        onScreen = OnScreen(entry: entry, grant: grant, surface: surface, phase: .animateIn, since: start, animateInAt: start)
        emit(activity, .animateIn, at: start)
        let plannedIn = start + activity.transition
        while onScreen?.endRequest == nil, clock.now < plannedIn {
            await wait(until: plannedIn, purpose: .presentation)
        }
        // Q13 order: the dwell runs from when the card is really on the glass, which a busy
        // display reaches later than planned.
        var presentedAt = plannedIn
        if let timeout = configuration.presenterTimeout {
            let giveUpAt = plannedIn + timeout
            while onScreen?.endRequest == nil, onScreen?.onGlassAt == nil, clock.now < giveUpAt {
                await wait(until: giveUpAt, purpose: .presentation)
            }
            presentedAt = max(plannedIn, onScreen?.onGlassAt ?? min(clock.now, giveUpAt))
        }

        // Where the timeline ends: the planned dwell end if it ran out, or now if ended early.
        var endAt = clock.now
        if onScreen?.endRequest == nil {
            onScreen?.phase = .presented
            onScreen?.since = clock.now
            onScreen?.dwellStart = presentedAt
            emit(onScreen?.entry.activity ?? activity, .presented)
            var dwellEnd: NookInstant?
            while let shown = onScreen, shown.endRequest == nil {
                // Read again after every wake: an update may change the dwell, the
                // presentation or where the dwell counts from (U1).
                let start = shown.dwellStart ?? presentedAt
                switch shown.entry.activity.presentation {
                case .timed: dwellEnd = start + shown.entry.activity.dwell
                case .blocker(let timeout): dwellEnd = timeout.map { start + $0 }
                }
                if let dwellEnd, clock.now >= dwellEnd {
                    onScreen?.endRequest = .end(shown.entry.activity.isBlocker ? .timedOut : .completed)
                    break
                }
                await wait(until: dwellEnd, purpose: .presentation)
            }
            endAt = min(clock.now, dwellEnd ?? clock.now)
        }

        onScreen?.phase = .animateOut
        onScreen?.since = clock.now
        let leaving = onScreen?.entry.activity ?? activity
        emit(leaving, .animateOut)
        let hiddenAt = endAt + leaving.transition
        while clock.now < hiddenAt {
            await wait(until: hiddenAt, purpose: .animateOut)
        }
        surface.release(grant)
        let ending = onScreen?.endRequest ?? .end(.completed)
        let last = onScreen?.entry ?? entry
        onScreen = nil

        switch ending {
        case .end(let reason):
            emit(last.activity, .hidden(reason))
        case .interrupt:
            putBack(last)
        }
        let nextAllowedAt = hiddenAt + last.activity.endDelay
        while mayDrain, clock.now < nextAllowedAt {
            await wait(until: nextAllowedAt, purpose: .endDelay)
        }
    }

    /// Returns an interrupted activity to the head of its class, unless a newer activity with
    /// its coalescing key arrived meanwhile, which then supersedes it.
    private func putBack(_ entry: PendingActivities.Entry) {
        // By one of the same sender's: another sender's key never reaches it (U3).
        if let key = entry.activity.coalescingKey,
           pendingActivities.ids(forKey: key).contains(where: { pendingActivities.entry($0)?.activity.sender?.uid == entry.activity.sender?.uid }) {
            emit(entry.activity, .rejected(.coalesced))
            return
        }
        pendingActivities.insert(entry.activity, enqueuedAt: entry.enqueuedAt, expiresAt: entry.expiresAt, atFront: true, order: entry.order)
        emit(entry.activity, .requeued)
        armExpiryTimer()
    }

    private func requestEnd(of id: NookActivityID, _ request: EndRequest) -> NookEndRequestOutcome {
        guard var shown = onScreen, shown.entry.activity.id == id else { return .notFound }
        switch (shown.endRequest, request) {
        case (nil, _) where shown.phase != .animateOut:
            shown.endRequest = request
            onScreen = shown
            wake(.presentation)
        case (.interrupt?, .end):
            // Sliding out to be shown again later (quiesce, display gone, another module's
            // turn): a cancel or dismiss now means it is not shown again, as its answer says.
            shown.endRequest = request
            onScreen = shown
        case (.end(let reason)?, _):
            return .alreadyEnding(reason)
        default:
            break
        }
        return .ends
    }

    private func interruptPresentation() {
        if let id = onScreen?.entry.activity.id { _ = requestEnd(of: id, .interrupt) }
        wake(.parked, .endDelay)
    }

    private func engagementDidChange() {
        wake(.parked)
    }

    // MARK: Waiting on the injected clock

    /// Suspends the drain until `deadline` (if any) passes or ``wake(_:)`` names `purpose`.
    private func wait(until deadline: NookInstant?, purpose: WaitPurpose) async {
        if let deadline, clock.now >= deadline { return }
        waitSerial += 1
        let serial = waitSerial
        let clock = self.clock
        await withCheckedContinuation { continuation in
            var timer: Task<Void, Never>?
            if let deadline {
                timer = Task {
                    do { try await clock.sleep(until: deadline) } catch { return }
                    self.timerFired(serial)
                }
            }
            waiter = Waiter(purpose: purpose, continuation: continuation, timer: timer, serial: serial)
        }
    }

    private func timerFired(_ serial: UInt64) {
        guard let current = waiter, current.serial == serial else { return }
        waiter = nil
        current.continuation.resume()
    }

    private func wake(_ purposes: WaitPurpose...) {
        guard let current = waiter, purposes.contains(current.purpose) else { return }
        waiter = nil
        current.timer?.cancel()
        current.continuation.resume()
    }

    // MARK: Events and expiry

    private func emit(_ activity: NookActivity, _ kind: NookActivityEvent.Kind, at instant: NookInstant? = nil) {
        let event = NookActivityEvent(activity: activity, kind: kind, at: instant ?? clock.now, module: boundModule)
        if gathering != nil { gathering!.append(event) } else { hub.emit([event]) }
    }

    private func reject(_ activity: NookActivity, _ reason: NookRejectionReason) -> NookEnqueueResult {
        emit(activity, .rejected(reason))
        return .rejected(activity.id, reason)
    }

    private func expireDue() {
        for entry in pendingActivities.removeExpired(asOf: clock.now) {
            emit(entry.activity, .rejected(.expired))
        }
        armExpiryTimer()
    }

    /// Keeps one sleeper on the clock for the earliest pending expiry, so an activity is
    /// dropped at its deadline even when nothing else in the queue runs (Q17). A deadline that
    /// has gone (its activity shown or cancelled) lets the timer fire on nothing and re-arm.
    private func armExpiryTimer() {
        let next = pendingActivities.nextExpiry()
        if let current = expiryTimer {
            if let next, current.deadline <= next { return }
            current.task.cancel()
            expiryTimer = nil
        }
        guard let next else { return }
        let clock = self.clock
        let task = Task { [weak self] in
            do { try await clock.sleep(until: next) } catch { return }
            await self?.expiryTimerFired(next)
        }
        expiryTimer = (next, task)
    }

    private func expiryTimerFired(_ deadline: NookInstant) {
        guard expiryTimer?.deadline == deadline else { return }
        expiryTimer = nil
        expireDue()
    }
}
