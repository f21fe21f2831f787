import NookActivities
import NookProtocol

/// Why a notification closed, as `NotificationClosed` reports it (spec 1.2, SPEC E3).
public enum CloseReason: UInt32, Sendable, Equatable {
    case expired = 1
    case dismissed = 2
    case closedByCall = 3
    case other = 4
}

/// The live notifications: their uint32 ids (never 0) and the nookd activity showing each,
/// who sent them, and what closing them means. Pure state, driven by the bridge: a
/// ``Placement`` is planned, the activity is enqueued, and only then committed.
public struct NotificationRegistry: Sendable {
    public struct Record: Sendable, Equatable {
        public var id: UInt32
        public var activity: NookActivityID
        /// The uid that sent it: only that uid (or root) may replace or close it (SPEC U3).
        public var uid: UInt32
        /// The unique bus name of the connection that last sent it (per-sender limits).
        public var sender: String
        /// `uid:app:tag` of its stack tag, if it had one.
        public var tagKey: String?
        public var hasDefaultAction: Bool
        /// Stays when its action is invoked (the `resident` hint).
        public var isResident = false
        /// The reason its end reports, settled by the first of CloseNotification (3) and its
        /// default action invoked (2), whatever nookd's end event says later: clients such as
        /// notify-send call CloseNotification themselves right after ActionInvoked.
        public var closing: CloseReason?
        /// The card as last sent to nookd: what a replacement that its sender was told failed
        /// puts back.
        public var card: NookActivity?
    }

    /// Where a Notify goes: a fresh id, or the id it replaces and the activity to take off.
    public struct Placement: Sendable, Equatable {
        public var id: UInt32
        public var replacing: NookActivityID?
        /// Every notification id keeps its own key, so its replacement coalesces a pending
        /// predecessor inside nookd in one step (Q4).
        public var coalescingKey: String
        public var tagKey: String?
        /// Why a replaces_id was not honoured, for the log.
        public var note: String?
    }

    public enum CloseDecision: Sendable, Equatable {
        case unknown
        /// Already closing for another reason (its action was invoked): nothing more to do.
        case alreadyClosing
        case forbidden(owner: UInt32)
        case cancel(NookActivityID)
    }

    private var records: [UInt32: Record] = [:]
    private var byActivity: [NookActivityID: UInt32] = [:]
    private var byTag: [String: UInt32] = [:]
    private var lastID: UInt32

    /// - Parameter lastID: the id before the first one handed out (tests start near the wrap).
    public init(lastID: UInt32 = 0) { self.lastID = lastID }

    public var count: Int { records.count }
    public func record(_ id: UInt32) -> Record? { records[id] }
    public func record(activity: NookActivityID) -> Record? { byActivity[activity].flatMap { records[$0] } }
    public func liveCount(sender: String) -> Int { records.values.reduce(0) { $0 + ($1.sender == sender ? 1 : 0) } }
    public var activities: [NookActivityID] { Array(byActivity.keys) }

    /// Plans a Notify from `uid`: replaces `replaces_id` if that notification is live and
    /// `uid`'s (or `uid` is root), else the live one with the same stack tag, else a new id.
    /// One already closing (closed by a call, or dismissed after its action) is not live: its
    /// card is on its way out, and an update of it would go out with it.
    public func plan(_ call: NotifyCall, uid: UInt32) -> Placement {
        let tagKey = call.stackTag.map { "\(uid):\(call.appName):\($0)" }
        var note: String?
        if call.replacesID != 0 {
            if let old = records[call.replacesID], old.closing == nil {
                if old.uid == uid || uid == 0 {
                    return Placement(id: old.id, replacing: old.activity, coalescingKey: key(old.id), tagKey: tagKey)
                }
                note = "replaces_id \(call.replacesID) belongs to uid \(old.uid), not \(uid): shown as a new notification"
            } else {
                note = "replaces_id \(call.replacesID) is not a live notification: shown as a new one"
            }
        }
        if let tagKey, let id = byTag[tagKey], let old = records[id], old.closing == nil {
            return Placement(id: id, replacing: old.activity, coalescingKey: key(id), tagKey: tagKey, note: note)
        }
        let id = nextID()
        return Placement(id: id, replacing: nil, coalescingKey: key(id), tagKey: tagKey, note: note)
    }

    /// Records a placement once nookd accepted its activity.
    public mutating func commit(_ placement: Placement, activity: NookActivityID, uid: UInt32, sender: String, hasDefaultAction: Bool,
                                isResident: Bool = false, card: NookActivity? = nil) {
        if let old = records[placement.id] {
            byActivity[old.activity] = nil
            if let tag = old.tagKey, byTag[tag] == old.id { byTag[tag] = nil }
        }
        records[placement.id] = Record(id: placement.id, activity: activity, uid: uid, sender: sender,
                                       tagKey: placement.tagKey, hasDefaultAction: hasDefaultAction, isResident: isResident, card: card)
        byActivity[activity] = placement.id
        if let tag = placement.tagKey { byTag[tag] = placement.id }
        if placement.replacing == nil { lastID = placement.id }
    }

    /// The open input (or `nookctl invoke`) invoked `activity`'s action: the notification whose
    /// "default" action that is, and the activity to dismiss unless it is resident (spec 1.2:
    /// an invoked notification closes, reason 2, dismissed by the user). Nil for an activity
    /// that is not a live notification's, one without a default action, or one already closing
    /// (a second press while it slides out, or after its client closed it): one ActionInvoked.
    public mutating func invoked(_ activity: NookActivityID) -> (id: UInt32, dismiss: NookActivityID?)? {
        guard let record = record(activity: activity), record.hasDefaultAction, record.closing == nil else { return nil }
        if record.isResident { return (record.id, nil) }
        records[record.id]?.closing = .dismissed
        return (record.id, activity)
    }

    /// CloseNotification(id) from `uid`.
    public mutating func requestClose(_ id: UInt32, uid: UInt32) -> CloseDecision {
        guard let record = records[id] else { return .unknown }
        guard record.uid == uid || uid == 0 else { return .forbidden(owner: record.uid) }
        if record.closing != nil { return .alreadyClosing }
        records[id]?.closing = .closedByCall
        return .cancel(record.activity)
    }

    /// An activity's last event: the notification it showed and why it closed, or nil for an
    /// activity that is not (or no longer) a notification's, such as a replaced one.
    public mutating func ended(_ activity: NookActivityID, _ ending: EventMessage.Ending) -> (id: UInt32, reason: CloseReason)? {
        guard let id = byActivity.removeValue(forKey: activity), let record = records.removeValue(forKey: id) else { return nil }
        if let tag = record.tagKey, byTag[tag] == id { byTag[tag] = nil }
        if let closing = record.closing { return (id, closing) }
        return (id, Self.reason(ending))
    }

    /// nookd's ending as a close reason: the dwell or the blocker's timeout ran out, or it
    /// expired while waiting → expired; dismissed (the dismiss input, `nookctl dismiss`) →
    /// dismissed by the user; anything else (cancelled by another client, the queue full) → other.
    public static func reason(_ ending: EventMessage.Ending) -> CloseReason {
        switch ending {
        case .hidden(.completed), .hidden(.timedOut), .rejected("expired"): .expired
        case .hidden(.dismissed), .rejected("dismissed"): .dismissed
        default: .other
        }
    }

    private func key(_ id: UInt32) -> String { "notify:\(id)" }

    /// The next id after the last one, never 0 and never a live one (ids wrap after 2³²−1).
    private func nextID() -> UInt32 {
        var candidate = lastID
        repeat {
            candidate = candidate == UInt32.max ? 1 : candidate + 1
        } while records[candidate] != nil
        return candidate
    }
}
