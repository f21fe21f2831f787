/// Invoking the card on the glass (E3), and the requests of callers that cannot await: posted
/// through the mailbox from any thread and applied in order.
extension NookActivityQueue {
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

    /// ``dismissing(_:permits:)`` for callers on any thread that cannot await (GPIO callbacks). Requests
    /// made from one thread apply in the order they were made.
    public nonisolated func requestDismiss(_ id: NookActivityID) {
        mailbox.post(.dismiss(id), to: self)
    }

    /// ``dismissingCurrent(permits:)`` for callers on any thread that cannot await.
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
            case .dismiss(let id): _ = dismissing(id)
            case .dismissCurrent: _ = dismissingCurrent()
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
}
