import NookLogging
import NookActivities

/// Z3: what the display does about nobody being in the room. The `presence` inputs (a PIR on
/// a GPIO line, a proximity sensor's farther threshold) and the engagement inputs say when
/// someone is there; `dimAfter` after the last of them went quiet the display dims, and
/// `blankAfter` after it goes dark, cards included. Timed cards that end while nobody is
/// there are marked unseen; when someone comes back the panel comes back with what it shows
/// and, if any were missed, a digest card ("3 while you were away", the most important first)
/// is shown once.
actor PresenceTracker {
    enum State: String, Sendable { case present, dimmed, away }

    struct Settings: Hashable, Sendable {
        var dimAfter: Duration = .seconds(Service.Presence.dimAfter.defaultValue)
        var blankAfter: Duration = .seconds(Service.Presence.blankAfter.defaultValue)
        /// How long the digest card stays.
        var digestDwell: Duration = .seconds(Service.Presence.digestDwell.defaultValue)
    }

    /// What the daemon does for each change; tests record them.
    struct Effects: Sendable {
        var dim: @Sendable (Bool) async -> Void
        var dark: @Sendable (Bool) async -> Void
        var digest: @Sendable (NookActivity) async -> Void
    }

    /// The most titles a digest lists; the rest are counted.
    static let digestTitles = 5

    private let settings: Settings
    private let clock: any NookClock
    private let effects: Effects
    private let logger: Logger
    private(set) var state: State = .present
    private var present = true
    /// The most important cards that ended unseen since someone was last there (at most
    /// ``digestTitles``: a week away must not grow without bound), in the order they ended.
    private(set) var unseen: [NookActivity] = []
    /// How many ended unseen.
    private(set) var unseenCount = 0
    /// How long the last return took, from hearing it to the panel lit and undimmed (the
    /// `presence_to_home_ms` figure, less the input's own edge-to-wake time).
    private(set) var lastReturn: Duration?
    private var timer: Task<Void, Never>?
    /// Digest cards shown: never themselves counted as missed.
    private var digests: Set<NookActivityID> = []

    init(settings: Settings, clock: any NookClock, logger: Logger, effects: Effects) {
        (self.settings, self.clock, self.logger, self.effects) = (settings, clock, logger, effects)
    }

    /// The events ``observe(_:)`` needs.
    @Sendable static func matters(_ event: NookActivityEvent) -> Bool {
        if case .hidden = event.kind { true } else { false }
    }

    /// Someone is there (`true`) or the last input went quiet (`false`).
    func set(present: Bool) async {
        guard present != self.present else { return }
        self.present = present
        timer?.cancel()
        if present {
            await cameBack()
        } else {
            startAbsence()
        }
    }

    /// A card ending: one that ends by itself while nobody is there was not seen.
    func observe(_ event: NookActivityEvent) {
        guard case .hidden(let reason) = event.kind, reason == .completed || reason == .timedOut, state != .present,
              !event.activity.isTransient, !digests.contains(event.id) else { return }
        unseen.append(event.activity)
        unseenCount += 1
        if unseen.count > Self.digestTitles {
            // The one the digest would list last: the lowest priority, the latest to end of those.
            let lowest = unseen.map(\.priority).min()!
            unseen.remove(at: unseen.lastIndex { $0.priority == lowest }!)
        }
        // Debug, not info: a long absence can see thousands; the digest says how many at info.
        logger.debug("presence: \(event.id) \"\(LogText.short(event.activity.title))\" ended unseen (nobody there)")
    }

    /// The absence clock counts from now: dim, then dark.
    private func startAbsence() {
        let began = clock.now
        timer = Task { [settings, clock] in
            do { try await clock.sleep(until: began + settings.dimAfter) } catch { return }
            await self.become(.dimmed)
            do { try await clock.sleep(until: began + settings.blankAfter) } catch { return }
            await self.become(.away)
        }
    }

    private func become(_ next: State) async {
        guard !present, next != state else { return }
        let previous = state
        state = next
        logger.info("presence: nobody there, \(next == .dimmed ? "dimming" : "turning the display off")")
        if previous == .present { await effects.dim(true) }
        if next == .away { await effects.dark(true) }
    }

    private func cameBack() async {
        let previous = state
        guard previous != .present else { return }
        let heard = clock.now
        state = .present
        logger.info("presence: someone is back\(unseenCount == 0 ? "" : ", \(unseenCount) missed")")
        if previous == .away { await effects.dark(false) }
        await effects.dim(false)
        lastReturn = clock.now - heard
        guard let digest = Self.digest(of: unseen, count: unseenCount, dwell: settings.digestDwell) else { return }
        unseen = []
        unseenCount = 0
        digests.insert(digest.id)
        await effects.digest(digest)
    }

    /// "N while you were away", the titles most important first (in the order they ended
    /// within a priority); at the highest priority missed, so quiet hours treat it as they
    /// would have treated the most important of them.
    /// - Parameter count: how many were missed in all (`missed` may hold only the most important).
    static func digest(of missed: [NookActivity], count: Int? = nil, dwell: Duration) -> NookActivity? {
        guard !missed.isEmpty else { return nil }
        let count = max(count ?? missed.count, missed.count)
        let ordered = missed.enumerated().sorted { a, b in
            a.element.priority != b.element.priority ? a.element.priority > b.element.priority : a.offset < b.offset
        }.map(\.element)
        var titles = ordered.prefix(digestTitles).map { Self.shortened($0.title) }
        if count > titles.count { titles.append("and \(count - titles.count) more") }
        return NookActivity(priority: ordered[0].priority, title: "\(count) while you were away",
                            subtitle: titles.joined(separator: " · "), systemImage: "bell", dwell: dwell, isTransient: true)
    }

    /// A title as the digest lists it: its first line, at most 120 characters.
    private static func shortened(_ title: String) -> String {
        let line = title.prefix { $0 != "\n" }
        return line.count > 120 ? String(line.prefix(119)) + "…" : String(line)
    }

    /// Waits for the absence timer (tests).
    func settle() async { await timer?.value }
}
