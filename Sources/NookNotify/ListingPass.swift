import NookActivities
import NookProtocol

/// One reading of nookd's `list`, page by page, after the event stream was down: which cards
/// are live. A notification whose card the reading missed ended unseen, and is closed (reason
/// 4); over several pages only once a second reading misses it too (a card can be on no page
/// when one ahead of it ends between two pages).
struct ListingPass {
    /// Where the next page starts.
    var offset = 0
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
