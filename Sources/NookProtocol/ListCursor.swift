import NookActivities

/// Where a `list` page ended (C1): the answer's `cursor`, passed back as the next request's
/// `after`. It names the module and a place in its listing rather than a count of cards, so
/// cards that end between two pages move nothing from one page to another: a card held the
/// whole time is listed once. The text is nookd's own (`1:RANK:PLACE:SHOWN:MODULE`), valid while
/// that nookd runs; a client passes it back as it came.
public struct ListCursor: Hashable, Sendable {
    public var module: String
    public var position: NookListingPosition

    public init(module: String, position: NookListingPosition) { (self.module, self.position) = (module, position) }

    public var text: String {
        let place = position.pending.map { "\($0.rank):\($0.place)" } ?? "-:-"
        return "1:\(place):\(position.shown?.description ?? "-"):\(module)"
    }

    /// Nil for any text nookd did not make.
    public init?(text: String) {
        let parts = text.split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "1", !parts[4].isEmpty else { return nil }
        var shown: NookActivityID?
        if parts[3] != "-" {
            guard let id = NookActivityID(String(parts[3])) else { return nil }
            shown = id
        }
        var pending: NookListingPlace?
        if parts[1] != "-" || parts[2] != "-" {
            guard let rank = Int(parts[1]), (0...16).contains(rank), let place = Int64(parts[2]) else { return nil }
            pending = NookListingPlace(rank: rank, place: place)
        }
        self.init(module: String(parts[4]), position: NookListingPosition(shown: shown, pending: pending))
    }
}
