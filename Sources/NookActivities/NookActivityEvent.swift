/// One step of an activity's lifecycle (Q13), delivered in order to every subscriber.
public struct NookActivityEvent: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        case enqueued
        case animateIn
        case presented
        case animateOut
        /// Off the glass; `reason` says how its time on screen ended.
        case hidden(NookEndReason)
        /// Ended without being shown (or before showing again).
        case rejected(NookRejectionReason)
        /// Taken off the glass before its end (quiesce, display gone) and put back at the head
        /// of its priority class, to be shown again later.
        case requeued
        /// Changed in place (U1): pending where it stands, or redrawn on the glass. `previous`
        /// is the activity before the change; ``NookActivityEvent/activity`` is after it.
        case updated(previous: NookActivity)
        /// Its default action was invoked while it was on the glass (E3): the open input, or
        /// `nookctl invoke`. It stays on the glass; the sender decides what follows.
        case invoked
    }

    public let id: NookActivityID
    public let kind: Kind
    public let at: NookInstant
    /// The module whose queue emitted the event.
    public let module: NookModuleID?
    /// The activity itself, so a renderer or a `watch` client needs no lookup.
    public let activity: NookActivity

    public init(activity: NookActivity, kind: Kind, at: NookInstant, module: NookModuleID?) {
        self.id = activity.id
        self.kind = kind
        self.at = at
        self.module = module
        self.activity = activity
    }

    /// True for the last event an activity will ever get.
    public var isFinal: Bool {
        switch kind {
        case .hidden, .rejected: true
        default: false
        }
    }

    public var description: String { "\(id) \(kind.name) at \(at)" }
}

extension NookActivityEvent {
    /// The kinds of event by their wire and CLI names.
    public enum Name: String, CaseIterable, Hashable, Sendable {
        case enqueued, animateIn, presented, animateOut, hidden, rejected, requeued, updated, invoked
    }
}

extension NookActivityEvent.Kind {
    /// The kind without its details, by its wire name.
    public var eventName: NookActivityEvent.Name {
        switch self {
        case .enqueued: .enqueued
        case .animateIn: .animateIn
        case .presented: .presented
        case .animateOut: .animateOut
        case .hidden: .hidden
        case .rejected: .rejected
        case .requeued: .requeued
        case .updated: .updated
        case .invoked: .invoked
        }
    }

    /// The wire and CLI name of the event: `enqueued`, `animateIn`, `presented`, `animateOut`,
    /// `hidden`, `rejected`, `requeued`, `updated`, `invoked`.
    public var name: String { eventName.rawValue }
}

/// Why an activity ended without being shown (Q13).
public enum NookRejectionReason: Hashable, Sendable, CustomStringConvertible {
    case cancelled
    /// A newer activity with the same coalescing key replaced it (Q4).
    case coalesced
    /// It was still pending past its `expiresAfter` (Q17).
    case expired
    /// The pending queue was full, or it was evicted by a higher-priority arrival (Q16).
    case queueFull
    /// A field was out of range; the error names it.
    case invalid(NookActivityValidationError)
    /// A pending activity (typically a blocker that turned out not to be needed) was dismissed
    /// and skipped (Q14).
    case dismissed
    /// Quiet hours were on and its priority was configured to end rather than wait (Z1).
    case suppressed

    public var description: String {
        switch self {
        case .suppressed: "suppressed"
        case .cancelled: "cancelled"
        case .coalesced: "coalesced"
        case .expired: "expired"
        case .queueFull: "queueFull"
        case .invalid: "invalid"
        case .dismissed: "dismissed"
        }
    }
}

/// What ``NookActivityQueue/invoking(_:permits:)`` found.
public enum NookInvokeOutcome: Hashable, Sendable {
    /// Its action was invoked: subscribers got `invoked`.
    case invoked(NookActivity)
    /// Nothing (or not that activity) is on the glass: only a card the person can see is invoked.
    case notOnGlass
    /// The card on the glass has no action; nothing happened.
    case noAction(NookActivity)
    /// The request may not invoke it (its `permits` check said no, U3); nothing happened.
    case refused(NookActivity)
}

/// What a request to end an activity (cancel, dismiss) does.
public enum NookEndRequestOutcome: Hashable, Sendable {
    /// It ends because of this request: pending ones at once, the one on screen after its
    /// slide out.
    case ends
    /// It was already ending for this reason (sliding out after its dwell, or ended by an
    /// earlier request); it ends as that said.
    case alreadyEnding(NookEndReason)
    /// No pending or shown activity has that id.
    case notFound
    /// The request may not end it (its `permits` check said no, U3); nothing changed.
    case refused(NookActivity)
}

/// How an activity's time on screen ended.
public enum NookEndReason: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// A timed activity's dwell elapsed.
    case completed
    /// Dismissed by `dismiss`, IPC or the dismiss input (Q14).
    case dismissed
    /// Cancelled while on screen (Q5).
    case cancelled
    /// A blocker's timeout elapsed (Q14).
    case timedOut

    public var description: String { rawValue }
}
