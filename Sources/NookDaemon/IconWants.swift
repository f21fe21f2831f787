import NookActivities
import NookProtocol

/// The LaMetric icon ids nookd looked for in its icon directories and found in none (M3),
/// told to the `icons-wanted` streams: nook-http's icon fetcher fetches each into a directory
/// nookd looks in, for the cards and apps sent after it. An id is told at most once in
/// ``quietFor`` (a sender that sends one every second asks once), and again to a stream that
/// subscribes when none listens (a fetcher started again).
final class IconWants: Sendable {
    /// Long enough that a fetch that failed is not asked again at once, short enough that a
    /// file removed from the cache is fetched again within the hour.
    static let quietFor = Duration.seconds(600)
    /// Ids remembered at most: a sender of endless distinct ids is bounded by this, and by
    /// the fetcher's own bounds.
    static let remembered = 1024

    private let streams = Broadcast<IconWantedMessage>(backlog: 256)
    private let told = Locked<[String: NookInstant]>([:])
    private let clock: any NookClock

    init(clock: any NookClock) { self.clock = clock }

    /// Whether a fetcher listens: the answer says the icon was asked for only then.
    var isHeard: Bool { streams.isHeard }

    /// A first stream hears again what was told before it (a fetcher started again); another
    /// beside it changes nothing of what was told, so a client subscribing over and over does
    /// not lift the ten minutes or the bound.
    func subscribe() -> AsyncStream<IconWantedMessage> {
        if !streams.isHeard { told.withLock { $0.removeAll() } }
        return streams.subscribe()
    }

    /// Tells the streams that `icon` was found nowhere, if it is a LaMetric id not told lately.
    func want(_ icon: String) {
        guard let id = IconWantedMessage.lametricID(icon), streams.isHeard else { return }
        let now = clock.now
        let isNew = told.withLock { told -> Bool in
            if let at = told[id], now - at < Self.quietFor { return false }
            if told.count >= Self.remembered { told = told.filter { now - $0.value < Self.quietFor } }
            guard told.count < Self.remembered else { return false }
            told[id] = now
            return true
        }
        guard isNew else { return }
        // A fetcher that does not keep up loses the oldest ids: they are asked again when next wanted.
        let dropped = streams.publish(IconWantedMessage(icon: icon, id: id))
        if !dropped.isEmpty { told.withLock { told in for message in dropped { told[message.id] = nil } } }
    }

    /// What the sender of `icon` is told of the fetcher (M3): that it was asked for the id (now
    /// or in the last ten minutes), or that it was not as too many were. Nil otherwise (no
    /// fetcher listens, `icon` is no id, or the fetcher subscribed after the id was looked up).
    func remark(for icon: String) -> String? {
        guard let id = IconWantedMessage.lametricID(icon), streams.isHeard else { return nil }
        let now = clock.now
        let (asked, full) = told.withLock { told in (told[id].map { now - $0 < Self.quietFor } ?? false, told.count >= Self.remembered) }
        if asked { return "the icon fetcher was asked for \(id) (nook-http's log says if it cannot be fetched)" }
        return full ? "the icon fetcher was not asked for \(id): \(Self.remembered) ids were asked in the last ten minutes" : nil
    }
}
