/// Suspend, resume, quiesce and the display going away (Q7, Q8, Q15).
extension NookActivityQueue {
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
}
