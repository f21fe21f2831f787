import NookActivities
import NookProtocol
import NookSystem

/// The apps (A1) and their rotation on the idle display (A2): with no card on the glass, the
/// home content and the apps take turns, each for its duration, in position order.
///
/// Built as the recall is (``HistoryRecall``): each app's turn is a card on a queue of its own,
/// bound to the arbiter under ``module`` and drawn by the screen like a module's queue, so an
/// app comes and goes with the card transitions; followed by neither the history nor `watch`
/// (only its `invoked` events reach watchers, as a card's action does). An app's card stays on
/// the glass until the rotation moves on (a blocker): the turns are timed here, on the injected
/// clock, so that an engaged person (I1) holds the rotation still and a press moves it on.
///
/// Real cards come first: a card arriving in any module ends the app's card at once (it slides
/// out through the normal end path) and the rotation waits; once no card is live it shows the
/// turn it was on again. With no apps there is no card, no timer and no task awake: the display
/// and its wake-ups are as they were.
final class AppRotation: Sendable {
    struct Settings: Hashable, Sendable {
        /// A turn's length for apps that name none, and for the home content's turn.
        var duration: Duration = .milliseconds(Service.Apps.duration.defaultValue)
        /// `apps.per_sender`: apps one sender may keep at once; 0 leaves only the shelf's own bound.
        var perSender = Service.Apps.perSender.defaultValue
        /// `apps.shares.USER`: the apps one user's own programs may keep together, over
        /// `perSender` (M6: nook-mqtt's, for a house whose every MQTT publisher is that one user).
        var shares: [String: Int] = [:]
    }

    /// The module id the app cards claim the glass under (not registered: `focus` cannot pick it).
    static let module = NookModuleID("nookd:apps")
    let queue: NookActivityQueue
    private let clock: any NookClock
    private let wallClock: @Sendable () -> Double
    private let engaged: @Sendable () -> Bool
    private let log: @Sendable (String) -> Void
    /// The card as the screen needs it (an LED matrix keeps a scrolling title one full pass).
    private let fit: @Sendable (NookActivity) -> NookActivity
    /// How long one scroll of a card's text takes on the screen (L3), nil when it fits.
    private let scrollPass: @Sendable (NookActivity) -> Duration?
    private let state: Locked<State>
    /// Where the apps are kept across restarts; nil keeps them in memory only.
    private let journal = Locked<ActivityJournal?>(nil)
    /// The queue's changes, in order: a card's cancel before the next one's enqueue.
    private let commands: AsyncStream<Command>
    private let send: AsyncStream<Command>.Continuation
    private let ownEnds = Locked<NookObservation?>(nil)

    private enum Command: Sendable {
        case show(NookActivity)
        case end(NookActivityID)
        case redraw(NookActivityID, NookActivity)
        case invoke
    }

    private struct State {
        var settings: Settings
        /// ``Settings/shares`` by uid, as the user database said when they were set, with the
        /// name the file gave each (what a refusal names).
        var shareOfUID: [UInt32: (limit: Int, name: String)] = [:]
        var shelf = NookAppShelf()
        /// Activities live in the modules' queues: the rotation runs only when there are none.
        var live: Set<NookActivityID> = []
        /// The turn: nil is the home content's, else an app's name.
        var turn: String?
        /// The app card of the turn, queued or on the glass, and the app it shows.
        var card: (id: NookActivityID, name: String, stale: Bool)?
        /// The app card that has taken the glass (its slide in began) and not ended.
        var onGlass: NookActivityID?
        /// When the turn ends, while the rotation runs.
        var turnEnds: NookInstant?
        var timer: Task<Void, Never>?
        /// When `timer` wakes.
        var timerDeadline: NookInstant?
        /// Wall-clock seconds of the last look at the lifetimes.
        var lifetimesCheckedAt: Double = 0
        /// Turns moved on and cards shown, for tests and `status`.
        var switches = 0
        /// nookd is stopping: nothing more goes on the glass, no timer is set.
        var halted = false
        /// The mood light is on (M1): the rotation waits, as AWTRIX's app loop does, and starts
        /// again from the turn it was on when the light goes off.
        var lit = false
    }

    init(settings: Settings, clock: any NookClock, wallClock: @escaping @Sendable () -> Double = ActivityJournal.realtime,
         engaged: @escaping @Sendable () -> Bool = { false }, fit: @escaping @Sendable (NookActivity) -> NookActivity = { $0 },
         scrollPass: @escaping @Sendable (NookActivity) -> Duration? = { _ in nil }, log: @escaping @Sendable (String) -> Void) {
        // No engagement source: the rotation holds still itself, on the card that is up.
        queue = NookActivityQueue(clock: clock, engagement: nil, configuration: .init(presenterTimeout: .seconds(2)))
        (self.clock, self.wallClock, self.engaged, self.fit, self.log) = (clock, wallClock, engaged, fit, log)
        self.scrollPass = scrollPass
        state = Locked(State(settings: settings, shareOfUID: (try? Service.Apps.shareUIDs(settings.shares)) ?? [:], lifetimesCheckedAt: wallClock()))
        (commands, send) = AsyncStream.makeStream(of: Command.self)
        ownEnds.withLock { $0 = queue.observe { [weak self] in self?.observeOwn($0) } }
    }

    deinit {
        send.finish()
        state.withLock { $0.timer?.cancel() }
    }

    var settings: Settings { state.withLock { $0.settings } }

    /// A reload (N1): a turn of the default length under way ends by the new length, so a
    /// long duration shortened takes effect now, not after the long turn it was in.
    func setSettings(_ settings: Settings) {
        // Looked up before the lock: the user database may be slow. A name that is gone was
        // refused before (a start, a reload and `--check` look each one up).
        let shareOfUID = (try? Service.Apps.shareUIDs(settings.shares)) ?? [:]
        state.withLock { state in
            state.settings = settings
            state.shareOfUID = shareOfUID
            guard !state.halted, let ends = state.turnEnds, state.turn.flatMap({ state.shelf[$0]?.app.duration }) == nil else { return }
            let sooner = clock.now + settings.duration
            guard sooner < ends else { return }
            state.turnEnds = sooner
            schedule(&state)
        }
    }

    /// Keeps the apps in `journal` from now on (A1: kept across restarts).
    func keep(in journal: ActivityJournal?) {
        self.journal.withLock { $0 = journal }
    }

    /// Binds the app cards to the glass.
    func bind(to arbiter: NookSurfaceArbiter) async {
        await queue.bind(to: arbiter, moduleID: Self.module)
    }

    /// Applies the queue's changes in order until the task is cancelled.
    func runCommands() async {
        for await command in commands {
            switch command {
            case .show(let card): _ = await queue.enqueue(card)
            case .end(let id): _ = await queue.cancel(id)
            case .redraw(let id, let card): _ = try? await queue.update(id) { _ in card }
            case .invoke: queue.requestInvokeCurrent()
            }
        }
    }

    // MARK: The apps

    /// Why a set or a removal was not made.
    enum Refusal: Error {
        /// The app itself is refused (a field, or the shelf is full).
        case app(NookAppShelf.Refusal)
        /// The caller may not change the app of that name (U3).
        case forbidden(ProtocolError)
        /// A new app beyond the sender's share: it keeps `held` already; `key`, the setting
        /// that sets the share (`apps.per_sender`, or `apps.shares.USER`).
        case share(held: Int, limit: Int, key: String)
    }

    /// Sets `app` (A1); returns the one it replaced. `admits` decides, in the same step as the
    /// set, whether the caller may replace the app of that name (U3): nil lets it. An update
    /// keeps the app's owner, as a card's update does. `sameShare` says which kept apps count
    /// in the caller's share (`apps.per_sender`) when the app is a new one; nil: the caller has
    /// no share (an admin), only the shelf's own bound holds. `user`: the uid whose own share
    /// (`apps.shares`) the caller's is, where it is a user's and not a relayed sender's.
    @discardableResult
    func set(_ app: NookApp, sameShare: ((NookSender?) -> Bool)? = nil, user: UInt32? = nil,
             admits: (NookAppShelf.Entry) -> ProtocolError? = { _ in nil }) throws(Refusal) -> NookAppShelf.Entry? {
        switch setAll([app], sameShare: sameShare, user: user, admits: admits) {
        case .success(let replaced): return replaced[0]
        case .failure(let refused): throw refused.refusal
        }
    }

    /// The first app of a ``setAll(_:sameShare:admits:)`` that could not be set, by its index.
    struct IndexedRefusal: Error {
        let index: Int
        let refusal: Refusal
        /// The apps kept before the array, and how many of its names are new: what an array's
        /// refusal says of the room it needed.
        var kept = 0, added = 0
    }

    /// The share a caller's apps count against and the setting that sets it: `user`'s own
    /// (`apps.shares.USER`) where one is set, else `apps.per_sender`.
    private static func share(of user: UInt32?, in state: State) -> (limit: Int, key: String)? {
        if let user, let own = state.shareOfUID[user] { return (own.limit, Service.Apps.share.named(own.name).key) }
        return (state.settings.perSender, Service.Apps.perSender.key)
    }

    /// Sets every app of `apps` (names unique) in one step, as ``set(_:sameShare:admits:)`` sets
    /// one, or none of them: the first refusal, and nothing changed. Returns the entries each
    /// replaced, in order. New apps of the array count in the share as they are added.
    func setAll(_ apps: [NookApp], sameShare: ((NookSender?) -> Bool)? = nil, user: UInt32? = nil,
                admits: (NookAppShelf.Entry) -> ProtocolError? = { _ in nil }) -> Result<[NookAppShelf.Entry?], IndexedRefusal> {
        let now = wallClock()
        // A result rather than a closure that throws a typed error, which Swift 6.0 is not trusted with.
        return state.withLock { state in
            // Set on a copy first (at most 64 apps): the shelf changes only if every one is set.
            var shelf = state.shelf
            var replaced: [NookAppShelf.Entry?] = []
            for (index, requested) in apps.enumerated() {
                var app = requested
                if let existing = shelf[app.name] {
                    if let refusal = admits(existing) { return .failure(IndexedRefusal(index: index, refusal: .forbidden(refusal))) }
                    app.sender = existing.app.sender
                } else if let sameShare, let share = Self.share(of: user, in: state), share.limit > 0 {
                    // Checked in the same step as the set: two senders' sets cannot both take the last slot of a share.
                    let held = shelf.entries.values.count(where: { sameShare($0.app.sender) })
                    if held >= share.limit {
                        return .failure(IndexedRefusal(index: index, refusal: .share(held: held, limit: share.limit, key: share.key)))
                    }
                }
                do throws(NookAppShelf.Refusal) {
                    replaced.append(try shelf.set(app, at: now))
                } catch {
                    return .failure(IndexedRefusal(index: index, refusal: .app(error), kept: state.shelf.count,
                                                   added: apps.count(where: { state.shelf[$0.name] == nil })))
                }
            }
            if state.shelf.isEmpty {
                // The first apps: the home content's turn starts now, the apps' follow.
                state.turn = nil
                state.turnEnds = clock.now + state.settings.duration
            }
            state.shelf = shelf
            // Recorded in the same step, in one record: two sets of one name are journalled in
            // the order they were made, and the answer's mark covers the record.
            journal.withLock { $0 }?.appsSet(apps.compactMap { state.shelf[$0.name] })
            refresh(&state)
            return .success(replaced)
        }
    }

    /// Puts back the apps the last run kept: those whose lifetime removed them while nookd was
    /// down are dropped (and their end recorded), the others come back as they were set.
    func restore(_ entries: [NookAppShelf.Entry]) {
        guard !entries.isEmpty else { return }
        let now = wallClock()
        let removed: [NookAppShelf.Entry] = state.withLock { state in
            for entry in entries { state.shelf.restore(entry) }
            let (removed, _) = state.shelf.runOut(at: now, since: now)
            for entry in removed { journal.withLock { $0 }?.appRemoved(entry.app.name) }
            state.lifetimesCheckedAt = now
            if !state.shelf.isEmpty {
                state.turn = nil
                state.turnEnds = clock.now + state.settings.duration
            }
            refresh(&state)
            return removed
        }
        for entry in removed { log("apps: \(entry.app.name) ran out while nookd was down; removed") }
        log("apps: restored \(entries.count - removed.count) app(s)")
    }

    /// Removes the app `name`; returns it, or nil if there was none. `admits` decides, in the
    /// same step, whether the caller may (U3): nil lets it.
    @discardableResult
    func remove(_ name: String, admits: (NookAppShelf.Entry) -> ProtocolError? = { _ in nil }) throws(Refusal) -> NookAppShelf.Entry? {
        let outcome: Result<NookAppShelf.Entry?, Refusal> = state.withLock { state in
            guard let existing = state.shelf[name] else { return .success(nil) }
            if let refusal = admits(existing) { return .failure(.forbidden(refusal)) }
            let wasTurn = state.turn == name
            if wasTurn { state.turn = turn(after: name, by: 1, in: state) }
            let removed = state.shelf.remove(name)
            journal.withLock { $0 }?.appRemoved(name)
            if wasTurn { state.turnEnds = clock.now + turnLength(state.turn, state) }
            refresh(&state)
            return .success(removed)
        }
        return try outcome.get()
    }

    /// Who sent the app `name` (U3), and whether there is one.
    func entry(_ name: String) -> NookAppShelf.Entry? { state.withLock { $0.shelf[name] } }

    /// Every app in the rotation's order, with its staleness and whether it is on the glass.
    func list() -> [AppState] {
        let now = wallClock()
        return state.withLock { state in
            let shown = state.card.flatMap { $0.id == state.onGlass ? $0.name : nil }
            return state.shelf.ordered.map { AppState(app: $0.app, setAt: $0.setAt, stale: $0.isStale(at: now), showing: shown == $0.app.name) }
        }
    }

    var count: Int { state.withLock { $0.shelf.count } }

    /// `status`'s apps member: how many, the one on the glass, and what holds the rotation.
    func status() -> StatusAnswer.Apps {
        // Read before the lock: the engagement has locks of its own.
        let engaged = engaged()
        return state.withLock { state in
            let showing = state.card.flatMap { $0.id == state.onGlass ? $0.name : nil }
            let rotation: StatusAnswer.Apps.Rotation = state.shelf.isEmpty ? .noApps : !state.live.isEmpty ? .card : state.lit ? .moodLight
                : engaged ? .engaged : .turning
            return StatusAnswer.Apps(count: state.shelf.count, showing: showing, rotation: rotation)
        }
    }
    /// The turn: nil for the home content (or no apps).
    var turn: String? { state.withLock { $0.turn } }
    /// The app whose card is queued or on the glass.
    var cardShown: String? { state.withLock { $0.card?.name } }
    /// Marks the turn's card as on the glass, as its slide in does on a bound queue (tests).
    func cardTookTheGlass() {
        state.withLock { $0.onGlass = $0.card?.id }
    }
    var switches: Int { state.withLock { $0.switches } }
    /// A timer is set (a turn or a lifetime to wait for): false on a display without apps.
    var waiting: Bool { state.withLock { $0.timer != nil } }
    /// The timer's task, to tell one timer from another (tests).
    var timerTask: Task<Void, Never>? { state.withLock { $0.timer } }

    // MARK: Moving on

    /// The turn after (`by` 1) or before (-1) the current one, home included; answers the turn
    /// it moved to, and whether a card holds the glass (the turn then shows after it).
    func move(by step: Int) -> (turn: String?, afterCard: Bool) {
        state.withLock { state in
            state.turn = turn(after: state.turn, by: step, in: state)
            return begin(&state)
        }
    }

    /// The mood light on or off (M1): while on, no app shows and no turn moves on (lifetimes
    /// still run out); off, the turn it waited on shows for its whole length.
    func setLit(_ lit: Bool) {
        state.withLock { state in
            guard state.lit != lit else { return }
            state.lit = lit
            if !lit { state.turnEnds = clock.now + turnLength(state.turn, state) }
            refresh(&state)
        }
    }

    /// Whether the mood light holds the rotation.
    var isLit: Bool { state.withLock { $0.lit } }

    /// Moves to the app `name`; nil if there is none.
    func switchTo(_ name: String) -> (turn: String?, afterCard: Bool)? {
        state.withLock { state in
            guard state.shelf[name] != nil else { return nil }
            state.turn = name
            return begin(&state)
        }
    }

    /// The dismiss press or a sideways swipe on an idle display with apps (A4): the next turn.
    /// False when it is not the rotation's: a card is live, or there are no apps.
    func pressedNext() -> Bool {
        let moved: Bool = state.withLock { state in
            guard !state.shelf.isEmpty, state.live.isEmpty, !state.lit else { return false }
            state.turn = turn(after: state.turn, by: 1, in: state)
            _ = begin(&state)
            return true
        }
        if moved { log("apps: moved on to \(turn ?? "the home content") (a press)") }
        return moved
    }

    /// The open press (A4): the app on the glass runs its action (its sender hears `invoked`,
    /// as for a card's). False when no app with an action is on the glass.
    func pressedOpen() -> Bool {
        let acts: Bool = state.withLock { state in
            guard state.live.isEmpty, let card = state.card, card.id == state.onGlass, state.shelf[card.name]?.app.hasAction == true else { return false }
            return true
        }
        if acts { send.yield(.invoke) }
        return acts
    }

    private func begin(_ state: inout State) -> (turn: String?, afterCard: Bool) {
        state.turnEnds = clock.now + turnLength(state.turn, state)
        state.switches += 1
        refresh(&state)
        return (state.turn, !state.live.isEmpty)
    }

    private func turn(after name: String?, by step: Int, in state: State) -> String? {
        let turns: [String?] = [nil] + state.shelf.ordered.map(\.app.name)
        guard turns.count > 1 else { return nil }
        let index = turns.firstIndex(of: name) ?? 0
        return turns[((index + step) % turns.count + turns.count) % turns.count]
    }

    /// An app's own duration; else the default, lengthened to one whole scroll of its text on an
    /// LED matrix (L3), as AWTRIX lengthens a custom app's turn so that its text is read to the end.
    private func turnLength(_ turn: String?, _ state: State) -> Duration {
        guard let entry = turn.flatMap({ state.shelf[$0] }) else { return state.settings.duration }
        if let own = entry.app.duration { return own }
        let pass = scrollPass(Self.card(for: entry, now: wallClock())) ?? .zero
        return max(state.settings.duration, pass)
    }

    // MARK: The glass

    /// nookd is stopping: the rotation sets no more timers and queues no more cards (the apps
    /// stay as they are, and are kept).
    func halt() {
        state.withLock { state in
            state.halted = true
            cancelTimer(&state)
        }
    }

    /// Makes the card on the glass match the turn, and sets the timer for what comes next.
    private func refresh(_ state: inout State) {
        guard !state.halted else { return }
        let now = wallClock()
        let wanted: NookAppShelf.Entry? = state.live.isEmpty && !state.lit ? state.turn.flatMap { state.shelf[$0] } : nil
        let stale = wanted?.isStale(at: now) ?? false
        if let card = state.card, card.name != wanted?.app.name {
            send.yield(.end(card.id))
            state.card = nil
        }
        if let wanted {
            let card = Self.card(for: wanted, now: now)
            if let shown = state.card {
                send.yield(.redraw(shown.id, fit(card)))
                state.card = (shown.id, wanted.app.name, stale)
            } else {
                let fitted = fit(card)
                send.yield(.show(fitted))
                state.card = (fitted.id, wanted.app.name, stale)
            }
        }
        schedule(&state)
    }

    /// The next wake: the turn's end while the rotation runs, or the next lifetime to run out.
    private func schedule(_ state: inout State) {
        if state.shelf.isEmpty {
            cancelTimer(&state)
            state.turn = nil
            state.turnEnds = nil
            return
        }
        var deadline: NookInstant? = state.live.isEmpty && !state.lit ? state.turnEnds : nil
        if let runOut = state.shelf.nextRunOut(after: state.lifetimesCheckedAt) {
            let at = clock.now + (Duration.nookSeconds(max(0, runOut - wallClock())) ?? .zero)
            deadline = deadline.map { min($0, at) } ?? at
        }
        // The timer set for that moment stays: an update of the app on the glass moves no turn,
        // and a new timer's task and the old one's cancellation each woke a thread while the
        // update was being drawn.
        if let deadline, state.timer != nil, state.timerDeadline == deadline { return }
        cancelTimer(&state)
        guard let deadline else { return }
        state.timerDeadline = deadline
        state.timer = Task { [weak self, clock] in
            do { try await clock.sleep(until: deadline) } catch { return }
            self?.tick()
        }
    }

    private func cancelTimer(_ state: inout State) {
        state.timer?.cancel()
        state.timer = nil
        state.timerDeadline = nil
    }

    /// A timer's wake: lifetimes that ran out, then the turn if it is over (held while someone
    /// is engaged, I1).
    func tick() {
        let now = wallClock()
        let engaged = engaged()
        let (removed, moved): ([NookAppShelf.Entry], Bool) = state.withLock { state in
            // The timer that woke is spent (or, called early, replaced): the next one is set below.
            cancelTimer(&state)
            let since = state.lifetimesCheckedAt
            state.lifetimesCheckedAt = now
            // The order before the removals: the turn of a removed app is found in it.
            let order: [String?] = [nil] + state.shelf.ordered.map(\.app.name)
            var (removed, _) = state.shelf.runOut(at: now, since: since)
            for entry in removed { journal.withLock { $0 }?.appRemoved(entry.app.name) }
            if let turn = state.turn, removed.contains(where: { $0.app.name == turn }) {
                // Its turn goes to the next app after it that is still there (or home).
                let start = order.firstIndex(of: turn) ?? 0
                let after = (1..<order.count).lazy.map { order[(start + $0) % order.count] }
                let next = after.first { $0 == nil || state.shelf[$0!] != nil } ?? nil
                state.turn = next
                state.turnEnds = clock.now + turnLength(next, state)
            }
            removed.sort { $0.arrival < $1.arrival }
            var moved = false
            if state.live.isEmpty, !state.lit, let ends = state.turnEnds, clock.now >= ends {
                if engaged {
                    state.turnEnds = clock.now + turnLength(state.turn, state)
                } else {
                    state.turn = turn(after: state.turn, by: 1, in: state)
                    state.turnEnds = clock.now + turnLength(state.turn, state)
                    state.switches += 1
                    moved = true
                }
            }
            refresh(&state)
            return (removed, moved)
        }
        for entry in removed { log("apps: \(entry.app.name) ran out (its lifetime); removed") }
        if moved { log("apps: turn of \(turn ?? "the home content")") }
    }

    // MARK: Following the queues

    /// A module queue's events (in the queue's step): a card arriving ends the app's card at
    /// once; the rotation shows its turn again once no card is live.
    func observeModule(_ events: [NookActivityEvent]) {
        state.withLock { state in
            let wasIdle = state.live.isEmpty
            for event in events {
                if event.kind == .enqueued {
                    state.live.insert(event.id)
                } else if event.isFinal {
                    state.live.remove(event.id)
                }
            }
            guard wasIdle != state.live.isEmpty else { return }
            // Back to idle: the turn it was on shows again, for a whole turn.
            if state.live.isEmpty, state.turnEnds != nil { state.turnEnds = clock.now + turnLength(state.turn, state) }
            refresh(&state)
        }
    }

    /// The app queue's own events: a card that ended is no longer the turn's.
    private func observeOwn(_ events: [NookActivityEvent]) {
        state.withLock { state in
            for event in events {
                if event.kind == .animateIn { state.onGlass = event.id }
                guard event.isFinal else { continue }
                if state.onGlass == event.id { state.onGlass = nil }
                if state.card?.id == event.id { state.card = nil }
            }
        }
    }
}
