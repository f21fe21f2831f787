import NookActivities
import NookProtocol
import NookSystem

/// U5's recall gesture: a long press of the open button on an idle display pages through the
/// newest history entries on the glass, newest first, each for a short dwell, then the display
/// is idle again by itself.
///
/// The recall cards go through a queue of their own, bound to the arbiter under
/// ``module`` and followed by the screen like a module's queue, but followed by neither the
/// journal nor the history nor `watch`: a recall writes no history entry, is not brought back
/// after a crash, runs no action, and nothing a client watches changes. It has no engagement
/// source, so the person holding the button (or standing at a proximity sensor) does not hold
/// back what they asked for. Its cards claim at `high`, so a background module's foreground
/// rule does not refuse them; they only start when nothing else is live.
///
/// Real cards come first: an enqueue to any module while a recall runs ends the recall (the
/// card on the glass slides out at once through the normal end path, Q5, and the rest are
/// dropped), so a real card waits no longer than one slide-out.
final class HistoryRecall: Sendable {
    struct Settings: Hashable, Sendable {
        /// How long the open button is held for a long press; nil: no recall gesture.
        var hold: Duration? = .milliseconds(Service.Recall.hold.defaultValue)
        /// The most entries one recall shows.
        var entries = Service.Recall.entries.defaultValue
        /// How long each recall card stays.
        var dwell: Duration = .milliseconds(Service.Recall.dwell.defaultValue)
        /// `daemon.icon_directories`: an entry's icon file is checked again before it is drawn,
        /// as a replayed or restored activity's is (R3); one refused now shows without it.
        var iconDirectories = IconPolicy.defaultDirectories

        /// The shortest hold that is a long press: well past a tap and any debounce.
        static let shortestHold = 200
    }

    /// The module id the recall cards claim the glass under: not registered with the arbiter,
    /// so `focus` cannot switch to it; a configured module of the same name would only share
    /// the tag on claims.
    static let module = NookModuleID("nookd:recall")
    /// How long "Nothing recent" stays: an answer to the press, not something to read.
    static let nothingRecentDwell: Duration = .milliseconds(1500)

    private struct State {
        var settings: Settings
        /// Activities live in the modules' queues (enqueued, not yet ended): the display is
        /// idle only when there are none.
        var live: Set<NookActivityID> = []
        /// Bumped by each start and end, so a recall that ended before its cards were queued
        /// drops them.
        var generation: UInt64 = 0
        var active = false
        /// The recall cards not yet ended, in the order they show.
        var cards: [NookActivityID] = []
    }

    let queue: NookActivityQueue
    private let history: ActivityHistory
    private let wallClock: @Sendable () -> Double
    private let log: @Sendable (String) -> Void
    /// The card as the screen needs it (an LED matrix keeps a scrolling title one full pass).
    private let fit: @Sendable (NookActivity) -> NookActivity
    private let state: Locked<State>
    /// Its own queue's ends, followed for as long as it lives.
    private let ownEnds = Locked<NookObservation?>(nil)

    init(settings: Settings, clock: any NookClock, history: ActivityHistory, wallClock: @escaping @Sendable () -> Double = ActivityJournal.realtime,
         fit: @escaping @Sendable (NookActivity) -> NookActivity = { $0 }, log: @escaping @Sendable (String) -> Void) {
        // No engagement source: a recall is what the person at the device asked for.
        queue = NookActivityQueue(clock: clock, engagement: nil, configuration: .init(presenterTimeout: .seconds(2)))
        self.history = history
        self.wallClock = wallClock
        self.log = log
        self.fit = fit
        state = Locked(State(settings: settings))
        ownEnds.withLock { $0 = queue.observe { [weak self] in self?.observeRecall($0) } }
    }

    var settings: Settings {
        get { state.withLock { $0.settings } }
    }

    func setSettings(_ settings: Settings) {
        state.withLock { $0.settings = settings }
    }

    var isActive: Bool { state.withLock { $0.active } }

    /// Binds the recall queue to the glass; its events are drawn by whoever subscribes to them.
    func bind(to arbiter: NookSurfaceArbiter) async {
        await queue.bind(to: arbiter, moduleID: Self.module)
    }

    // MARK: Following the queues

    /// A module queue's events, as ``NookActivityQueue/observe(_:)`` delivers them (in the
    /// queue's step): keeps what is live, and ends a recall when a real card arrives.
    func observeModule(_ events: [NookActivityEvent]) {
        let arrived = state.withLock { state in
            var arrived = false
            for event in events {
                if event.kind == .enqueued {
                    state.live.insert(event.id)
                    arrived = true
                } else if event.isFinal {
                    state.live.remove(event.id)
                }
            }
            return arrived
        }
        if arrived { end(because: "a new card arrived") }
    }

    /// The recall queue's own events: a recall is over when its last card has ended.
    func observeRecall(_ events: [NookActivityEvent]) {
        let done = state.withLock { state in
            var done = false
            for event in events where event.isFinal {
                // An earlier recall's card ending late is none of this one's business.
                guard state.cards.contains(event.id) else { continue }
                state.cards.removeAll { $0 == event.id }
                if state.active, state.cards.isEmpty {
                    state.active = false
                    done = true
                }
            }
            return done
        }
        if done { log("recall: done, the display is idle again") }
    }

    // MARK: The gesture

    /// A long press of open: starts a recall when the display is idle (nothing on the glass,
    /// nothing pending, no recall running). False when it did not: the press stays a short one.
    func start() -> Bool {
        let (settings, busy, running) = state.withLock { ($0.settings, $0.live.count, $0.active) }
        guard settings.hold != nil, !running else { return false }
        guard busy == 0 else {
            log("recall: long press not taken: \(busy) card(s) on the glass, pending or held back; it stays a press of open")
            return false
        }
        // Built before the lock is taken again, so that checking idle and taking the recall is
        // one step: no card can arrive, and no end of an earlier recall's card can land, between
        // the recall being active and its cards being known.
        // The newest first; the history hands them oldest first.
        let entries = Array(history.query(HistoryQuery(limit: settings.entries)).entries.reversed())
        let now = wallClock()
        let cards = (entries.isEmpty ? [Self.nothingRecent()] : entries.map { Self.card(for: $0, now: now, dwell: settings.dwell) }).map(fit)
        let generation: UInt64? = state.withLock { state in
            guard state.live.isEmpty, !state.active else { return nil }
            state.active = true
            state.generation += 1
            state.cards = cards.map(\.id)
            return state.generation
        }
        guard let generation else { return false }
        log(entries.isEmpty ? "recall: long press on an idle display; the history is empty (\"Nothing recent\")"
                            : "recall: long press on an idle display; showing the \(entries.count) newest history entries")
        let icons = IconPolicy(directories: settings.iconDirectories)
        Task { [queue, state] in
            // File checks off the input's thread; the ids stay as recorded above.
            let checked = cards.map { Self.checkingIcon($0, with: icons) }
            // Only the cards still the recall's: a press may have moved past some, or ended it.
            let wanted = state.withLock { state in state.generation == generation ? Set(state.cards) : [] }
            _ = await queue.enqueue(contentsOf: checked.filter { wanted.contains($0.id) })
            // Ended while they were being queued: nothing of it may show.
            if state.withLock({ $0.generation != generation }) {
                for card in checked.reversed() { _ = await queue.cancel(card.id) }
            }
        }
        return true
    }

    /// The card with its icon file checked as at enqueue (R3): a file no longer in the icon
    /// directories, or no longer a drawable PNG, is left out rather than read.
    static func checkingIcon(_ card: NookActivity, with policy: IconPolicy) -> NookActivity {
        if let checked = try? policy.checked(card) { return checked }
        var withoutIcon = card
        withoutIcon.systemImage = nil
        return withoutIcon
    }

    /// A short press of open: during a recall it moves on to the next entry (the card on the
    /// glass slides out, the next follows). False when no recall runs.
    /// Each press moves on by one, however fast they come: the card is no longer counted as
    /// the recall's once it is told to go, and after the last one the recall is over.
    func advance() -> Bool {
        let (active, current, done): (Bool, NookActivityID?, Bool) = state.withLock { state in
            guard state.active else { return (false, nil, false) }
            guard !state.cards.isEmpty else { return (true, nil, false) }
            let current = state.cards.removeFirst()
            if state.cards.isEmpty { state.active = false }
            return (true, current, !state.active)
        }
        guard active else { return false }
        if let current {
            Task { [queue] in _ = await queue.cancel(current) }
        }
        if done { log("recall: done (moved past the last entry)") }
        return true
    }

    /// The dismiss button, or a real card arriving: ends a recall at once. False when none ran.
    @discardableResult
    func end(because reason: String) -> Bool {
        ending(because: reason) != nil
    }

    /// ``end(because:)``, returning the recall's cards not yet ended (the first is the one on
    /// the glass, or about to be); nil when no recall ran.
    func ending(because reason: String) -> [NookActivityID]? {
        let cards: [NookActivityID]? = state.withLock { state in
            guard state.active else { return nil }
            state.active = false
            state.generation += 1
            defer { state.cards = [] }
            return state.cards
        }
        guard let cards else { return nil }
        log("recall: ended (\(reason))")
        // The waiting ones first, so none of them takes the glass as the shown one leaves.
        Task { [queue] in
            for id in cards.reversed() { _ = await queue.cancel(id) }
        }
        return cards
    }

    // MARK: The cards

    /// An entry as a recall card: its title, icon and tint, marked as recalled with when it
    /// ended. Never an action (a recall never runs one) and never kept in the history.
    static func card(for entry: HistoryEntry, now: Double, dwell: Duration) -> NookActivity {
        let original = entry.activity
        let marker = "Recalled · " + ago(now - entry.endedAt)
        var card = NookActivity(priority: .high, title: original.title, subtitle: original.subtitle.map { marker + " · " + $0 } ?? marker,
                                systemImage: original.systemImage, tint: original.tint, dwell: dwell, isTransient: true)
        do { try card.validate() } catch { card.subtitle = marker }
        return card
    }

    static func nothingRecent() -> NookActivity {
        NookActivity(priority: .high, title: "Nothing recent", subtitle: "The history is empty", systemImage: "clock",
                     dwell: nothingRecentDwell, isTransient: true)
    }

    /// "just now", "12 min ago", "3 h ago", "2 d ago": how long ago, as a glance needs it.
    static func ago(_ seconds: Double) -> String { nookAgo(seconds) }
}
