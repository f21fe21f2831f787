import NookActivities

/// Which module card is on the glass now, and from which queue, kept from the queues' events as
/// they happen (as ``ActionCards`` is): a touch acts on the card the finger is on, from the
/// input's thread, without awaiting a queue.
final class CardsOnGlass: Sendable {
    struct Card: Sendable {
        var activity: NookActivity
        var queue: Int
        /// Its slide out has begun: there is nothing left to act on.
        var ending: Bool
    }

    private let cards = Locked<[NookActivityID: Card]>([:])
    private let leaving = Locked<KeptClosure<@Sendable (NookActivityID) -> Void>?>(nil)

    /// Told, outside the lock, each time a card starts to leave the glass.
    func whenACardLeaves(_ handler: @escaping @Sendable (NookActivityID) -> Void) {
        leaving.withLock { $0 = KeptClosure(handler) }
    }

    /// Events of the queue at `index`, as ``NookActivityQueue/observe(_:)`` delivers them.
    func observe(_ events: [NookActivityEvent], queue index: Int) {
        let left = cards.withLock { cards -> [NookActivityID] in
            var left: [NookActivityID] = []
            for event in events {
                switch event.kind {
                case .animateIn: cards[event.id] = Card(activity: event.activity, queue: index, ending: false)
                case .updated where cards[event.id] != nil: cards[event.id]?.activity = event.activity
                case .animateOut:
                    cards[event.id]?.ending = true
                    left.append(event.id)
                case .hidden, .requeued:
                    if cards.removeValue(forKey: event.id) != nil { left.append(event.id) }
                default: break
                }
            }
            return left
        }
        guard !left.isEmpty, let handler = leaving.withLock({ $0 }) else { return }
        for id in left { handler.call(id) }
    }

    /// The card on the glass that is not already on its way out.
    var current: Card? { cards.withLock { $0.values.first { !$0.ending } } }
}
