/// Where a pending activity stands in its module's listing (C1's `list`): its priority class
/// (higher first) and its place in the class (lower first). Places only rise from a class's front
/// to its back, so a listing resumed after one skips and repeats nothing when cards end between
/// two pages, even the card the last page ended with.
public struct NookListingPlace: Hashable, Sendable {
    public var rank: Int
    public var place: Int64

    public init(rank: Int, place: Int64) { (self.rank, self.place) = (rank, place) }

    /// Whether `other` comes after this in presentation order.
    public func precedes(_ other: NookListingPlace) -> Bool {
        rank != other.rank ? rank > other.rank : place < other.place
    }
}

/// Where a page of a module's listing ended: the card on the glass when it was read (listed, or
/// listed earlier), and the place of the last pending card listed (nil: none yet, only the glass).
public struct NookListingPosition: Hashable, Sendable {
    public var shown: NookActivityID?
    public var pending: NookListingPlace?

    public init(shown: NookActivityID?, pending: NookListingPlace?) { (self.shown, self.pending) = (shown, pending) }
}

/// A part of a module's listing: the card on the glass if it is not listed yet, then pending
/// cards in presentation order, each with its place.
public struct NookListingChunk: Sendable {
    public var current: NookActivity?
    /// The card on the glass now, listed here or before (the next position's `shown`).
    public var shown: NookActivityID?
    public var pending: [(activity: NookActivity, place: NookListingPlace)]
    /// More pending cards follow the last one here.
    public var more: Bool
}

extension NookActivityQueue {
    /// Up to `limit` pending activities after `position` (from the start when nil), and the card on
    /// the glass unless it was listed before: it is when it was on the glass then, or pending
    /// before the position (it moved from the queue to the glass since). The card that was on
    /// the glass at the position is left out of the pending ones too (put back since, Q8).
    public func listing(after position: NookListingPosition?, limit: Int) -> NookListingChunk {
        let (shownEntry, pending, more) = listedPart(after: position?.pending, except: position?.shown, limit: limit)
        var current = shownEntry?.activity
        if let position, let shown = shownEntry {
            let listedBefore = shown.activity.id == position.shown || position.pending.map { !$0.precedes(shown.place) } ?? false
            if listedBefore { current = nil }
        }
        return NookListingChunk(current: current, shown: shownEntry?.activity.id,
                                pending: pending.map { ($0.activity, $0.place) }, more: more)
    }
}
