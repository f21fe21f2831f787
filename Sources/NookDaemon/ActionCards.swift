import NookActivities
import NookSystem

/// Whether a card with a default action is on the glass (E3), kept from the queues' events as
/// they happen: the open input's thread cannot await a queue, yet must know at the press
/// whether it acts on a card or opens the nook.
final class ActionCards: Sendable {
    /// The cards on the glass, and whether each has an action. Locked: read from the GPIO thread.
    private let onGlass = Locked<[NookActivityID: Bool]>([:])

    /// A queue's events, as ``NookActivityQueue/observe(_:)`` delivers them (in the queue's
    /// step, before any request that follows).
    func observe(_ events: [NookActivityEvent]) {
        onGlass.withLock { onGlass in
            for event in events {
                switch event.kind {
                case .animateIn: onGlass[event.id] = event.activity.hasAction
                case .updated where onGlass[event.id] != nil: onGlass[event.id] = event.activity.hasAction
                case .hidden, .requeued: onGlass[event.id] = nil
                default: break
                }
            }
        }
    }

    var anyOnGlass: Bool { onGlass.withLock { $0.values.contains(true) } }
}
