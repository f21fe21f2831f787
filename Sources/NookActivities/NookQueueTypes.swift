/// What ``NookActivityQueue/enqueue(_:)`` did with an activity.
public enum NookEnqueueResult: Hashable, Sendable {
    case accepted(NookActivityID)
    case rejected(NookActivityID, NookRejectionReason)

    public var id: NookActivityID {
        switch self {
        case .accepted(let id), .rejected(let id, _): id
        }
    }

    public var isAccepted: Bool {
        if case .accepted = self { return true }
        return false
    }
}

/// Where the activity on screen is in its presentation.
public enum NookPresentationPhase: String, CaseIterable, Hashable, Sendable {
    case animateIn, presented, animateOut
}

/// Why the drain is parked instead of presenting the next pending activity.
public enum NookParkReason: Hashable, Sendable, CustomStringConvertible {
    /// The user is hovering or has the nook open (Q6).
    case engaged
    /// The arbiter denied the claim (Q9).
    case denied(NookSurfaceArbiter.Denial)

    public var description: String {
        switch self {
        case .engaged: "yielding to the user (hover or open)"
        case .denied(let denial): "claim denied: \(denial)"
        }
    }
}

/// A consistent view of one queue at one instant (Q12), for library users and `nookctl status`.
public struct NookQueueSnapshot: Sendable {
    public var module: NookModuleID?
    public var current: NookActivity?
    public var currentPhase: NookPresentationPhase?
    public var currentSince: NookInstant?
    /// In presentation order.
    public var pending: [NookActivity]
    /// Suspended by `suspend()` or `quiesce()`.
    public var isSuspended: Bool
    /// False while the display is off or gone (Q15); the queue holds everything meanwhile.
    public var isDisplayAvailable: Bool
    public var parkReason: NookParkReason?
    public var capacity: Int

    /// The blocker holding the glass until someone dismisses it (Q14), if any.
    public var blockingActivity: NookActivity? {
        guard let current, current.isBlocker, currentPhase == .presented else { return nil }
        return current
    }
}

/// Why ``NookActivityQueue/update(_:restartDwell:_:)`` changed nothing (U1).
public enum NookUpdateError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No activity with this id is pending or on screen: it never was, or it has ended (or is
    /// ending: sliding out, not to come back).
    case notFound(NookActivityID)
    /// The changed activity is not valid; the error names the field.
    case invalid(NookActivityValidationError)

    public var description: String {
        switch self {
        case .notFound(let id): "no pending or shown activity has id \(id); it has ended (or is sliding out to end) or never was"
        case .invalid(let error): "\(error)"
        }
    }
}

/// What ``NookActivityQueue/update(_:restartDwell:_:)`` did.
public struct NookUpdate: Hashable, Sendable {
    public var previous: NookActivity
    public var activity: NookActivity
    /// On the glass (redrawn in place), rather than pending.
    public var wasOnScreen: Bool
    /// False when the change left the activity as it was: no event, no redraw.
    public var changed: Bool { previous != activity }
}
