import NookActivities
import NookProtocol

extension Daemon {
    /// The cards asked for at once from a queue while a page is made: a page costs its own
    /// size and this much, never a copy of a queue of 100,000 (Q16).
    static let listChunk = 256

    /// One page of `list` after `cursor` (from the start when nil; C1): per module, the card on
    /// the glass and the pending ones in presentation order, as many as fit in one answer
    /// (``NookProtocol/answerPageBytes``) up to `limit`, at least one. When more follow, the
    /// answer's `cursor` is where the next page starts and, on the first page, `next` the count
    /// of activities listed (where a version-1 client's `offset` resumes). The first page names
    /// every module, even empty ones; later pages only those they hold activities of.
    func listPage(_ moduleName: String?, after cursor: ListCursor?, limit: Int) async throws(ProtocolError) -> ListAnswer {
        let targets = try targets(moduleName)
        var remaining = targets[...]
        var position: NookListingPosition?
        if let cursor {
            guard let index = targets.firstIndex(where: { $0.0.rawValue == cursor.module }) else {
                throw ProtocolError(.invalid, field: "after", "names module '\(cursor.module)', which this listing does not have (\(targets.map(\.0.rawValue).joined(separator: ", ")))")
            }
            remaining = targets[index...]
            position = cursor.position
        }
        var page: [ListAnswer.Module] = []
        var bytes = 0, count = 0
        var last: ListCursor?
        var more = false
        modules: while let (module, queue) = remaining.popFirst() {
            var slice = ListAnswer.Module(name: module.rawValue, current: nil, pending: [])
            defer { if cursor == nil || slice.current != nil || !slice.pending.isEmpty { page.append(slice) } }
            // Whether this card still fits; the first of a page always does.
            func fits(_ activity: NookActivity) -> Bool {
                let size = ActivityPayload.encode(activity).serializedBytes.count + 1
                guard count == 0 || (count < limit && bytes + size <= NookProtocol.answerPageBytes) else { return false }
                bytes += size
                count += 1
                return true
            }
            var first = true
            while true {
                let chunk = await queue.listing(after: position, limit: Self.listChunk)
                if first, let current = chunk.current {
                    guard fits(current) else { more = true; break modules }
                    slice.current = current
                    position = NookListingPosition(shown: current.id, pending: position?.pending)
                    last = ListCursor(module: module.rawValue, position: position!)
                }
                first = false
                // Later parts of this module resume after the glass as first read.
                position = NookListingPosition(shown: position?.shown ?? chunk.shown, pending: position?.pending)
                for (activity, place) in chunk.pending {
                    guard fits(activity) else { more = true; break modules }
                    slice.pending.append(activity)
                    position!.pending = place
                    last = ListCursor(module: module.rawValue, position: position!)
                }
                if !chunk.more { break }
            }
            position = nil
        }
        if cursor == nil { page += remaining.map { ListAnswer.Module(name: $0.0.rawValue, current: nil, pending: []) } }
        guard more, let last else { return ListAnswer(modules: page) }
        return ListAnswer(modules: page, next: cursor == nil ? count : nil, cursor: last.text)
    }
}
