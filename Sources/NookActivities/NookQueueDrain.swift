/// The drain (Q6, Q9, Q18): one task takes each pending card through claim, animate-in, dwell
/// and animate-out on the injected clock, and puts back what was interrupted.
extension NookActivityQueue {
    var mayDrain: Bool { surface != nil && !userSuspended && yieldHolds == 0 && displayAvailable }

    func startDrainIfNeeded() {
        guard drainTask == nil, mayDrain, !pendingActivities.isEmpty else { return }
        drainTask = Task { await self.drain() }
    }

    func drain() async {
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
    nonisolated func surfaceBecameFree() {
        mailbox.post(.surfaceFreed, to: self)
    }

    /// Waits one poll interval, or less if engagement changes or the queue is suspended.
    func park(_ reason: NookParkReason) async {
        parkReason = reason
        await wait(until: clock.now + configuration.pollInterval, purpose: .parked)
    }

    func present(_ entry: PendingActivities.Entry, grant: NookSurfaceArbiter.Grant, on surface: NookSurfaceArbiter) async {
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
    func putBack(_ entry: PendingActivities.Entry) {
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

    func interruptPresentation() {
        if let id = onScreen?.entry.activity.id { _ = requestEnd(of: id, .interrupt) }
        wake(.parked, .endDelay)
    }

    func engagementDidChange() {
        wake(.parked)
    }
}
