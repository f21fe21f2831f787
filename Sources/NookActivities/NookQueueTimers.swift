/// Waiting on the injected clock, emitting events, and the one expiry timer (Q13, Q17).
extension NookActivityQueue {
    /// Suspends the drain until `deadline` (if any) passes or ``wake(_:)`` names `purpose`.
    func wait(until deadline: NookInstant?, purpose: WaitPurpose) async {
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

    func timerFired(_ serial: UInt64) {
        guard let current = waiter, current.serial == serial else { return }
        waiter = nil
        current.continuation.resume()
    }

    func wake(_ purposes: WaitPurpose...) {
        guard let current = waiter, purposes.contains(current.purpose) else { return }
        waiter = nil
        current.timer?.cancel()
        current.continuation.resume()
    }

    // MARK: Events and expiry

    func emit(_ activity: NookActivity, _ kind: NookActivityEvent.Kind, at instant: NookInstant? = nil) {
        let event = NookActivityEvent(activity: activity, kind: kind, at: instant ?? clock.now, module: boundModule)
        if gathering != nil { gathering!.append(event) } else { hub.emit([event]) }
    }

    func reject(_ activity: NookActivity, _ reason: NookRejectionReason) -> NookEnqueueResult {
        emit(activity, .rejected(reason))
        return .rejected(activity.id, reason)
    }

    func expireDue() {
        for entry in pendingActivities.removeExpired(asOf: clock.now) {
            emit(entry.activity, .rejected(.expired))
        }
        armExpiryTimer()
    }

    /// Keeps one sleeper on the clock for the earliest pending expiry, so an activity is
    /// dropped at its deadline even when nothing else in the queue runs (Q17). A deadline that
    /// has gone (its activity shown or cancelled) lets the timer fire on nothing and re-arm.
    func armExpiryTimer() {
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

    func expiryTimerFired(_ deadline: NookInstant) {
        guard expiryTimer?.deadline == deadline else { return }
        expiryTimer = nil
        expireDue()
    }
}
