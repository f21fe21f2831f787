import NookActivities
import NookProtocol

/// One reading of nookd's `list`, page by page, after the event stream was down: which cards
/// are live. A notification whose card the reading missed ended unseen, and is closed (reason
/// 4); over several pages only once a second reading misses it too. Pages follow nookd's
/// cursor, so a card ending between two pages hides no other; a card that moved ahead of the
/// cursor meanwhile (its priority raised) is on no page of the first reading.
struct ListingPass {
    /// Where the next page starts: the cursor of the page before (nil: the first page).
    var cursor: ListCursor?
    var pages = 0
    /// Every card the pages so far held.
    var live: Set<NookActivityID> = []
    /// On a second pass: the cards the first one missed. Only those this one misses too are
    /// taken for ended.
    var suspects: Set<NookActivityID>?

    init(suspects: Set<NookActivityID>? = nil) { self.suspects = suspects }

    mutating func take(_ page: ListAnswer) {
        pages += 1
        for module in page.modules {
            if let current = module.current { live.insert(current.id) }
            for activity in module.pending { live.insert(activity.id) }
        }
    }
}
