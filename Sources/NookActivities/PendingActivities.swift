/// The activities waiting for the glass, in presentation order (Q2), with O(1) or O(log n)
/// enqueue, coalesce, cancel, expiry and dequeue.
///
/// One FIFO per priority class holds slots; removal from the middle (cancel, coalesce, expiry)
/// only forgets the entry and leaves a tombstone that `popFirst` skips. Tombstones are swept
/// once they outnumber the live entries, so memory stays proportional to what is pending (Q16).
struct PendingActivities {
    struct Entry {
        var activity: NookActivity
        var enqueuedAt: NookInstant
        var expiresAt: NookInstant?
        /// Distinguishes this entry from an earlier one with the same id, whose tombstones
        /// may still sit in a FIFO or the expiry heap.
        var serial: UInt64
        /// Its place in enqueue order, kept when an update moves it to another class (U1).
        var order: UInt64 = 0
        /// The share of the capacity it counts against (Q16), named when it arrived.
        var share: String?
        /// Where it stands in its class (a listing's cursor, C1); kept once it is on screen.
        var place = NookListingPlace(rank: 0, place: 0)
    }

    private struct Slot {
        var id: NookActivityID
        var serial: UInt64
        /// Rises from the class's front to its back, tombstones included: a listing resumes
        /// after a place even when the card that had it has ended.
        var place: Int64
    }

    private struct ClassFIFO {
        var slots: [Slot] = []
        var head = 0
        var live = 0
        var tombstones: Int { slots.count - head - live }
        /// The lowest and highest places given: a card put at the front goes below the one, an
        /// arrival above the other.
        var firstPlace: Int64 = 0
        var lastPlace: Int64 = 0
    }

    /// The room left between two places, so a card moved into the middle (U1) finds one: 24
    /// moves into one gap before the class is renumbered (which can shift a listing under way
    /// by cursor), and 2^39 arrivals before the places run out.
    private static let placeGap: Int64 = 1 << 24

    private var entries: [NookActivityID: Entry] = [:]
    private var fifos = [ClassFIFO](repeating: ClassFIFO(), count: NookActivityPriority.allCases.count)
    /// Pending ids by coalescing key, oldest first: one per sender at most when senders are
    /// told apart (a key coalesces only what its sender may end, U3), else one.
    private var idsByKey: [String: [NookActivityID]] = [:]
    private var expiries = MinHeap<ExpirySlot>()
    private var nextSerial: UInt64 = 0
    /// Names each arrival's share (the queue's ``NookActivityQueue/Configuration/shareOf``).
    private let shareOf: (@Sendable (NookActivity) -> String)?
    /// Pending ids by share: a share's count at once, and its eviction among its own only.
    private var idsByShare: [String: Set<NookActivityID>] = [:]

    init(shareOf: (@Sendable (NookActivity) -> String)? = nil) {
        self.shareOf = shareOf
    }

    private struct ExpirySlot: Comparable {
        var at: NookInstant
        var serial: UInt64
        var id: NookActivityID
        static func < (lhs: Self, rhs: Self) -> Bool { (lhs.at, lhs.serial) < (rhs.at, rhs.serial) }
        static func == (lhs: Self, rhs: Self) -> Bool { lhs.serial == rhs.serial }
    }

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    func contains(_ id: NookActivityID) -> Bool { entries[id] != nil }

    func entry(_ id: NookActivityID) -> Entry? { entries[id] }

    /// The pending activities with this coalescing key, oldest first.
    func ids(forKey key: String) -> [NookActivityID] { idsByKey[key] ?? [] }

    /// Adds at the back of its priority class (or the front, for an activity put back after an
    /// interrupted presentation).
    mutating func insert(_ activity: NookActivity, enqueuedAt: NookInstant, atFront: Bool = false) {
        insert(activity, enqueuedAt: enqueuedAt, expiresAt: activity.expiresAfter.map { enqueuedAt + $0 }, atFront: atFront)
    }

    /// Adds with an expiry already fixed (an activity put back keeps its original deadline).
    mutating func insert(_ activity: NookActivity, enqueuedAt: NookInstant, expiresAt: NookInstant?, atFront: Bool, order: UInt64? = nil) {
        precondition(entries[activity.id] == nil, "activity \(activity.id) is already pending")
        nextSerial += 1
        let share = shareOf?(activity)
        entries[activity.id] = Entry(activity: activity, enqueuedAt: enqueuedAt, expiresAt: expiresAt, serial: nextSerial, order: order ?? nextSerial,
                                     share: share)
        if let key = activity.coalescingKey { idsByKey[key, default: []].append(activity.id) }
        if let share { idsByShare[share, default: []].insert(activity.id) }
        if let expiresAt { expiries.push(ExpirySlot(at: expiresAt, serial: nextSerial, id: activity.id)) }
        let index = activity.priority.rawValue
        let place: Int64
        if atFront {
            fifos[index].firstPlace -= Self.placeGap
            place = fifos[index].firstPlace
        } else {
            fifos[index].lastPlace += Self.placeGap
            place = fifos[index].lastPlace
        }
        entries[activity.id]!.place = NookListingPlace(rank: index, place: place)
        let slot = Slot(id: activity.id, serial: nextSerial, place: place)
        if atFront {
            if fifos[index].head > 0 {
                fifos[index].head -= 1
                fifos[index].slots[fifos[index].head] = slot
            } else {
                fifos[index].slots.insert(slot, at: 0)
            }
        } else {
            fifos[index].slots.append(slot)
        }
        fifos[index].live += 1
    }

    /// Changes a pending activity where it stands (U1). Its place in enqueue order is kept: in
    /// its class, or, for a new priority, among the new class's activities by when each was
    /// enqueued. A new `expiresAfter` counts from the original enqueue. False if not pending.
    mutating func replace(_ activity: NookActivity) -> Bool {
        guard let entry = entries[activity.id] else { return false }
        let old = entry.activity
        if old.priority == activity.priority, old.expiresAfter == activity.expiresAfter, old.coalescingKey == activity.coalescingKey,
           shareOf?(activity) == entry.share {
            entries[activity.id]!.activity = activity
            return true
        }
        remove(activity.id)
        let expiresAt = activity.expiresAfter.map { entry.enqueuedAt + $0 }
        insert(activity, enqueuedAt: entry.enqueuedAt, expiresAt: expiresAt, atFront: false, order: entry.order)
        // insert appended it; move its slot back among those enqueued after it.
        let index = activity.priority.rawValue
        var slots = fifos[index].slots
        let moved = slots.removeLast()
        var position = slots.count
        while position > fifos[index].head {
            let before = slots[position - 1]
            if let other = entries[before.id], other.serial == before.serial, other.order < entry.order { break }
            position -= 1
        }
        slots.insert(moved, at: position)
        fifos[index].slots = slots
        placeBetweenNeighbours(index, at: position)
        return true
    }

    /// Gives the slot at `position` a place between its neighbours' (after a move into the
    /// middle), renumbering the class when they leave no room.
    private mutating func placeBetweenNeighbours(_ index: Int, at position: Int) {
        let slots = fifos[index].slots
        let below = position > fifos[index].head ? slots[position - 1].place : nil
        let above = position + 1 < slots.count ? slots[position + 1].place : nil
        let lower = below ?? (above ?? 0) - 2 * Self.placeGap
        let upper = above ?? lower + 2 * Self.placeGap
        if upper - lower >= 2 {
            setPlace(lower + (upper - lower) / 2, index, position)
            fifos[index].firstPlace = min(fifos[index].firstPlace, slots[0].place, lower)
            fifos[index].lastPlace = max(fifos[index].lastPlace, upper)
            return
        }
        for position in fifos[index].slots.indices { setPlace(Int64(position + 1) * Self.placeGap, index, position) }
        fifos[index].firstPlace = Self.placeGap
        fifos[index].lastPlace = Int64(fifos[index].slots.count) * Self.placeGap
    }

    private mutating func setPlace(_ place: Int64, _ index: Int, _ position: Int) {
        let slot = fifos[index].slots[position]
        fifos[index].slots[position].place = place
        if entries[slot.id]?.serial == slot.serial { entries[slot.id]!.place = NookListingPlace(rank: index, place: place) }
    }

    /// Up to `limit` pending activities after `place` in presentation order (from the first
    /// when nil), and whether more follow: one page of a listing, never a copy of the whole.
    /// `except`: a card left out (one listed while it was on the glass, put back since).
    func listed(after place: NookListingPlace?, except: NookActivityID? = nil, limit: Int) -> (entries: [Entry], more: Bool) {
        var result: [Entry] = []
        for index in fifos.indices.reversed() {
            if let place, index > place.rank { continue }
            let slots = fifos[index].slots
            var start = fifos[index].head
            if let place, index == place.rank {
                // The first slot placed after the cursor: places rise along the FIFO.
                var end = slots.count
                while start < end {
                    let middle = (start + end) / 2
                    if slots[middle].place <= place.place { start = middle + 1 } else { end = middle }
                }
            }
            for slot in slots[start...] {
                guard let entry = entries[slot.id], entry.serial == slot.serial, slot.id != except else { continue }
                if result.count == limit { return (result, true) }
                result.append(entry)
            }
        }
        return (result, false)
    }

    /// Forgets a pending activity; its FIFO slot becomes a tombstone.
    @discardableResult
    mutating func remove(_ id: NookActivityID) -> Entry? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        // In place: a copy of the array taken out of the dictionary would be copied again.
        if let key = entry.activity.coalescingKey {
            idsByKey[key]?.removeAll { $0 == id }
            if idsByKey[key]?.isEmpty == true { idsByKey[key] = nil }
        }
        if let share = entry.share {
            idsByShare[share]?.remove(id)
            if idsByShare[share]?.isEmpty == true { idsByShare[share] = nil }
        }
        let index = entry.activity.priority.rawValue
        fifos[index].live -= 1
        sweepIfMostlyTombstones(index)
        if expiries.count > 2 * entries.count + 64 { rebuildExpiries() }
        return entry
    }

    /// The next activity to show: the oldest of the highest non-empty priority class.
    mutating func first() -> Entry? {
        for index in fifos.indices.reversed() where fifos[index].live > 0 {
            return entries[skipTombstones(index).id]
        }
        return nil
    }

    mutating func popFirst() -> Entry? {
        guard let entry = first() else { return nil }
        return remove(entry.activity.id)
    }

    /// The oldest activity of the lowest non-empty priority class: who leaves when full (Q16).
    mutating func evictionCandidate() -> Entry? {
        for index in fifos.indices where fifos[index].live > 0 {
            return entries[skipTombstones(index).id]
        }
        return nil
    }

    /// How many pending activities count against `share`.
    func count(inShare share: String) -> Int { idsByShare[share]?.count ?? 0 }

    /// Who leaves a full share (Q16): its oldest of the lowest priority, other than `sparing`.
    func evictionCandidate(inShare share: String, sparing: [NookActivityID]) -> Entry? {
        (idsByShare[share] ?? []).lazy.filter { !sparing.contains($0) }.compactMap { entries[$0] }
            .min { ($0.activity.priority, $0.order) < ($1.activity.priority, $1.order) }
    }

    /// Removes and returns every activity whose expiry is at or before `now`, oldest first (Q17).
    mutating func removeExpired(asOf now: NookInstant) -> [Entry] {
        var expired: [Entry] = []
        while let earliest = expiries.peek, earliest.at <= now {
            expiries.pop()
            if let entry = entries[earliest.id], entry.serial == earliest.serial, let removed = remove(earliest.id) {
                expired.append(removed)
            }
        }
        return expired
    }

    /// The earliest expiry of a pending activity, if any has one. Drops the tombstones of
    /// removed activities from the top of the heap on the way.
    mutating func nextExpiry() -> NookInstant? {
        while let earliest = expiries.peek {
            if entries[earliest.id]?.serial == earliest.serial { return earliest.at }
            expiries.pop()
        }
        return nil
    }

    /// Every pending activity in presentation order. O(n): for observers, not the hot path.
    var ordered: [Entry] {
        var result: [Entry] = []
        result.reserveCapacity(entries.count)
        for index in fifos.indices.reversed() {
            for slot in fifos[index].slots[fifos[index].head...] {
                if let entry = entries[slot.id], entry.serial == slot.serial { result.append(entry) }
            }
        }
        return result
    }

    /// Slots held, live or tombstone: what the memory bound of Q16 is about.
    var storageSlots: Int { fifos.reduce(0) { $0 + $1.slots.count } + expiries.count }

    private func isLive(_ slot: Slot) -> Bool { entries[slot.id]?.serial == slot.serial }

    /// Advances the class's head past tombstones and returns its first live slot.
    private mutating func skipTombstones(_ index: Int) -> Slot {
        while !isLive(fifos[index].slots[fifos[index].head]) {
            fifos[index].head += 1
        }
        if fifos[index].head > 64, fifos[index].head * 2 > fifos[index].slots.count {
            fifos[index].slots.removeFirst(fifos[index].head)
            fifos[index].head = 0
        }
        return fifos[index].slots[fifos[index].head]
    }

    private mutating func sweepIfMostlyTombstones(_ index: Int) {
        guard fifos[index].tombstones > 2 * fifos[index].live + 64 else { return }
        let live = fifos[index].slots[fifos[index].head...].filter(isLive)
        fifos[index].slots = Array(live)
        fifos[index].head = 0
    }

    private mutating func rebuildExpiries() {
        var rebuilt = MinHeap<ExpirySlot>()
        for slot in expiries.elements where entries[slot.id]?.serial == slot.serial {
            rebuilt.push(slot)
        }
        expiries = rebuilt
    }
}

/// A binary min-heap; the standard library has none.
struct MinHeap<Element: Comparable> {
    private(set) var elements: [Element] = []

    var count: Int { elements.count }
    var peek: Element? { elements.first }

    mutating func push(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child] < elements[parent] else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func pop() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let top = elements.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < elements.count, elements[left] < elements[smallest] { smallest = left }
            if right < elements.count, elements[right] < elements[smallest] { smallest = right }
            guard smallest != parent else { break }
            elements.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
