import NookActivities
import NookDisplay

/// Turns the queue's lifecycle (Q13) into frames on a display: home content when idle (R4), a
/// card rendered once per activity, slide transitions paced by the display's presents (R5),
/// and rotation to the panel (R6). One screen per display; any number of queues may feed it.
public actor NookScreen {
    public struct Settings: Hashable, Sendable {
        public var theme: Theme
        /// Clockwise turn from the drawn frame to the panel (configured rotation combined with
        /// the connector's panel orientation).
        public var rotation: Rotation
        public var home: HomeContent
        /// Blank the panel (backlight off) after this long with no card on it; nil never blanks.
        public var blankAfter: Duration?

        public init(theme: Theme = .dark, rotation: Rotation = .none, home: HomeContent = .clock, blankAfter: Duration? = nil) {
            self.theme = theme
            self.rotation = rotation
            self.home = home
            self.blankAfter = blankAfter
        }
    }

    private let display: any DisplayBackend
    private let clock: any NookClock
    private let localTime: @Sendable () -> LocalTime
    private let onWarning: @Sendable (String) -> Void
    /// Told of every frame presented, upright as drawn (the live view, V1).
    private let observer: (any PresentedFrames)?
    private var settings: Settings
    private var logicalSize: PixelSize
    private var homeFrame: Frame
    private var homeTime: LocalTime
    /// The card drawn last, with its icon image (kept so a reload can redraw it without reading
    /// the file again).
    private var card: (id: NookActivityID, activity: NookActivity, frame: Frame, icon: CardRenderer.IconLoad?, layout: CardLayout)?
    /// The icon file as it was when `card.icon` was read: the picture is kept only while the
    /// file at its path is still that file, unchanged (R3).
    private var cardIconStamp: IconFile.Stamp?
    /// The activity whose card is (at least partly) on the glass.
    private var showing: NookActivityID?
    /// The frame being presented. It has storage of its own (filled by copying, never by
    /// sharing another frame's), so composing a slide frame into it allocates nothing.
    private var composed: Frame
    /// The card `composed` holds as it is, at rest and not moved: an update in place copies
    /// only the places it drew again. Nil once anything else was composed.
    private var composedCard: NookActivityID?
    /// The last card's frame, kept to draw the next card into.
    private var spareCardFrame: Frame?
    /// The turned frame, allocated only for a rotated panel.
    private var rotated: Frame?
    public private(set) var lastError: DisplayError?
    public private(set) var presentedFrames = 0
    /// Cards drawn (each activity once per look: an update in place draws it again, U2).
    public private(set) var cardsRendered = 0
    /// Events received by ``run(_:reportingTo:)`` and not drawn or skipped yet.
    public var undrawnEvents: Int { backlogs.values.reduce(0) { $0 + $1.count } }
    private var blanked = false
    /// Z3: nobody is in the room; the panel stays dark whatever is drawn (see ``holdDark(_:)``).
    private var heldDark = false
    private var blankTimer: Task<Void, Never>?
    /// The last call turning the panel off or on (see ``changePower(to:)``).
    private var powerChange: Task<Bool, Never>?
    /// Each running ``run(_:)``'s events not yet drawn.
    private var backlogs: [Int: EventBacklog] = [:]
    private var nextRun = 0
    /// Animation events not drawn because their card had already ended (the screen was behind).
    public private(set) var skippedLateEvents = 0
    /// Time between consecutive frames of recent slides, newest last (at most 64).
    private var slideFrameIntervals: [Duration] = []
    /// Slides between two of their frames (a reload then leaves the drawing to them).
    private var slidesRunning = 0
    /// How long the glass shows home before the spare frames are let go (nil, the default,
    /// keeps them; nookd lets them go after 10 s).
    public private(set) var releaseFramesAfter: Duration?
    private var releaseTimer: Task<Void, Never>?
    /// True once the spare frames were let go: `composed` shares home's storage until the next
    /// card, whose first slide frame allocates it again (`first_frame_after_idle_ms_p99`).
    private var framesReleased = false
    /// How many times the spare frames were let go after an idle spell.
    public private(set) var frameReleases = 0
    /// T2: how far a finger has moved the card on the glass sideways, in logical pixels, and
    /// where the newest drag wants it (drags faster than the display presents are drawn as one).
    public private(set) var cardShift = 0
    private var shiftTarget = 0
    private var shiftDrawing = false
    /// Bumped by each drag, so a spring back under way gives way to a finger touching again.
    private var shiftGeneration = 0
    /// A card swiped away (T2) and which way: its slide out goes sideways off the glass. Set from
    /// the touch input's thread before it asks the queue to dismiss the card, so the slide out
    /// that follows always finds it.
    private nonisolated let swipes = Locked<(id: NookActivityID, dx: Double)?>(nil)

    /// The median time between consecutive slide frames lately: the display's refresh period
    /// when presents are paced by vblank (R5), near zero if they were not.
    public var medianSlideFrameInterval: Duration? {
        guard !slideFrameIntervals.isEmpty else { return nil }
        return slideFrameIntervals.sorted()[slideFrameIntervals.count / 2]
    }

    public init(display: any DisplayBackend, clock: any NookClock, settings: Settings = Settings(),
                localTime: @escaping @Sendable () -> LocalTime = LocalTime.now,
                onWarning: @escaping @Sendable (String) -> Void = { _ in }, observer: (any PresentedFrames)? = nil) {
        self.display = display
        self.clock = clock
        self.localTime = localTime
        self.onWarning = onWarning
        self.observer = observer
        self.settings = settings
        logicalSize = display.mode.size.rotated(settings.rotation.inverse)
        homeTime = localTime()
        homeFrame = HomeRenderer(theme: settings.theme).render(settings.home, size: logicalSize, time: homeTime)
        composed = Frame(width: logicalSize.width, height: logicalSize.height)
    }

    public var currentSettings: Settings { settings }

    /// Shows the home content (the first frame after start-up).
    public func showHome() async {
        showing = nil
        composeHome()
        await presentComposed()
        scheduleBlanking()
        scheduleRelease()
    }

    /// Lets go of the spare frames after `delay` of home content (nil: never). An idle display
    /// then holds home only (and the turned frame on a rotated panel).
    public func releaseFrames(after delay: Duration?) {
        releaseFramesAfter = delay
        scheduleRelease()
    }

    // MARK: Memory when idle

    /// `composed` showing home: a copy into its own storage while cards come and go (so the
    /// next slide frame allocates nothing), the home frame's own storage once released.
    private func composeHome() {
        composedCard = nil
        if framesReleased {
            composed = homeFrame
        } else {
            composed.overwrite(with: homeFrame)
        }
    }

    private func scheduleRelease() {
        releaseTimer?.cancel()
        guard let delay = releaseFramesAfter, showing == nil, !framesReleased else { return }
        let deadline = clock.now + delay
        releaseTimer = Task { [clock] in
            do { try await clock.sleep(until: deadline) } catch { return }
            self.releaseIfIdle()
        }
    }

    /// The last card's frame and the composed frame (each a full frame, 1.6–3.7 MiB on a bar
    /// panel) go back to the system; `malloc_trim` returns what the burst left in malloc's
    /// free lists too (see ``FrameMemory``).
    private func releaseIfIdle() {
        guard showing == nil, slidesRunning == 0, !framesReleased else { return }
        framesReleased = true
        spareCardFrame = nil
        card = nil
        composed = homeFrame
        composedCard = nil
        frameReleases += 1
        FrameMemory.trim()
    }

    /// Presents again what the screen shows now, card or home (a panel plugged back in lost
    /// it), without changing what it shows: a slide under way redraws it with its next frame.
    /// (Showing home here once reset the screen under a running slide: the slide finished
    /// drawing its card and the card's end no longer drew home, or a card re-shown at once
    /// stayed invisible for its whole dwell.)
    public func redisplay() async {
        guard slidesRunning == 0 else { return }
        if let card, showing == card.id {
            composeCard(card.frame)
        } else {
            composeHome()
        }
        await presentComposed()
    }

    /// The panel is back after it was gone (Q15): a panel plugged back in comes on lit (DRM sets
    /// its mode again, which powers it; a new device starts powered), so one the screen keeps
    /// dark (idle, or nobody there, Z3) is turned off again before anything is presented to
    /// it; then the screen presents what it shows, as ``redisplay()``.
    public func displayReturned() async {
        if blanked { await changePower(to: true) }
        await redisplay()
    }

    /// Whether the panel is blanked for idleness now.
    public var isBlanked: Bool { blanked }

    // MARK: Idle blanking

    /// After `blankAfter` with home content only, turns the panel off (DPMS, FBIOBLANK).
    private func scheduleBlanking() {
        blankTimer?.cancel()
        guard let blankAfter = settings.blankAfter, !settings.home.isLamp else { return }
        let deadline = clock.now + blankAfter
        blankTimer = Task { [clock] in
            do { try await clock.sleep(until: deadline) } catch { return }
            await self.blankIfIdle()
        }
    }

    /// `blanked` is what the screen wants (set before any await, so a card arriving meanwhile
    /// sees it and turns the panel back on); ``changePower(to:)`` makes the display calls in
    /// the order they were decided. Checking, awaiting the display, then setting the flag once
    /// let a card be drawn and then blanked under it.
    private func blankIfIdle() async {
        guard showing == nil, !blanked, !heldDark, !settings.home.isLamp else { return }
        blanked = true
        if await !changePower(to: true), blanked, showing == nil {
            blanked = false
        }
    }

    /// Z3: with `dark`, turns the panel off and keeps it off, cards included (they are still
    /// drawn, so the glass is right the moment it comes back on): nobody is there to see them.
    /// Without, turns it back on showing what the screen shows now, card or home.
    public func holdDark(_ dark: Bool) async {
        guard dark != heldDark else { return }
        heldDark = dark
        if dark {
            blankTimer?.cancel()
            guard !blanked else { return }
            blanked = true
            await changePower(to: true)
        } else {
            guard blanked else { return }
            blanked = false
            await changePower(to: false)
            if showing == nil { scheduleBlanking() }
        }
    }

    /// Whether the panel is held dark for nobody being there (Z3).
    public var isHeldDark: Bool { heldDark }

    /// Turns the panel back on before a card's first frame.
    private func unblank() async {
        blankTimer?.cancel()
        guard blanked, !heldDark else { return }
        blanked = false
        await changePower(to: false)
    }

    /// Calls the display's `setBlanked` after every earlier call has returned, so a blank still
    /// under way cannot land after the unblank that followed it. Returns once this call is done.
    @discardableResult
    private func changePower(to target: Bool) async -> Bool {
        let previous = powerChange
        let change = Task { [display, onWarning] () -> Bool in
            _ = await previous?.value
            do {
                try await display.setBlanked(target)
                return true
            } catch {
                onWarning("could not \(target ? "blank" : "unblank") the display: \(error)")
                return false
            }
        }
        powerChange = change
        return await change.value
    }

    /// The events that change what is on the glass; feed ``run(_:)`` only these
    /// (`queue.events(where: NookScreen.draws)`): a burst of enqueues then costs the screen nothing.
    @Sendable public static func draws(_ event: NookActivityEvent) -> Bool {
        switch event.kind {
        case .animateIn, .presented, .animateOut, .hidden, .requeued, .updated: true
        case .enqueued, .rejected, .invoked: false
        }
    }

    /// Consumes lifecycle events until the stream ends.
    /// Events are read as they come into a backlog of this run's own; a card whose end is
    /// already in the backlog is not drawn (see ``EventBacklog``). With `queue` (the queue the
    /// events come from, configured with a `presenterTimeout`), each card's slide-in that has
    /// finished on the display is reported to it, so its dwell counts from then (Q13).
    /// With `heartbeat`, the loop beats each time it comes back for an event, and is woken to
    /// beat at the heartbeat's interval while idle (W1): a present that never returns stops it.
    public func run(_ events: AsyncStream<NookActivityEvent>, reportingTo queue: NookActivityQueue? = nil,
                    heartbeat: NookLoopHeartbeat? = nil) async {
        nextRun += 1
        let run = nextRun
        backlogs[run] = EventBacklog()
        let beating = heartbeat.map { ($0, $0.register()) }
        defer {
            backlogs[run] = nil
            if let (heartbeat, loop) = beating { heartbeat.unregister(loop) }
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events { await self.receive(event, for: run) }
                await self.finishReceiving(for: run)
            }
            if let (heartbeat, _) = beating {
                group.addTask { [clock] in
                    while true {
                        do { try await clock.sleep(until: clock.now + heartbeat.wakeInterval) } catch { return }
                        await self.wake(run)
                    }
                }
            }
            while let event = await nextEvent(for: run, beating: beating) {
                switch event.kind {
                case .animateIn, .presented, .animateOut:
                    if backlogs[run]!.endsLater(event.id) {
                        skippedLateEvents += 1
                        continue
                    }
                case .updated:
                    // Updates that piled up while a frame was on its way are drawn as one (U2).
                    if backlogs[run]!.endsLater(event.id) || backlogs[run]!.updatedLater(event.id) {
                        skippedLateEvents += 1
                        continue
                    }
                default:
                    break
                }
                await handle(event)
                if event.kind == .animateIn { await queue?.animateInFinished(event) }
            }
            group.cancelAll()
        }
    }

    private func receive(_ event: NookActivityEvent, for run: Int) {
        backlogs[run]?.append(event)
        wake(run)
    }

    private func finishReceiving(for run: Int) {
        backlogs[run]?.isFinished = true
        wake(run)
    }

    private func wake(_ run: Int) {
        if let waiter = backlogs[run]?.waiter {
            backlogs[run]?.waiter = nil
            waiter.resume()
        }
    }

    private func nextEvent(for run: Int, beating: (NookLoopHeartbeat, Int)?) async -> NookActivityEvent? {
        while true {
            if let (heartbeat, loop) = beating { heartbeat.beat(loop) }
            if let event = backlogs[run]?.next() { return event }
            if backlogs[run]?.isFinished ?? true { return nil }
            await withCheckedContinuation { backlogs[run]?.waiter = $0 }
        }
    }

    public func handle(_ event: NookActivityEvent) async {
        switch event.kind {
        case .animateIn:
            // The icon file is read off this actor's executor: status and reloads are answered
            // meanwhile, and a slow file holds up nothing but this card.
            let kept = card?.id == event.id && card?.activity == event.activity ? card?.icon : nil
            let (icon, stamp, changed) = await iconFile(for: event.activity, keeping: kept)
            if changed, card?.id == event.id { card = nil }
            _ = cardFrame(for: event.activity, icon: icon, stamp: stamp)
            showing = event.id
            (cardShift, shiftTarget) = (0, 0)
            releaseTimer?.cancel()
            framesReleased = false
            await unblank()
            await slide(event.id, from: 0, to: 1, over: event.activity.transition)
        case .presented:
            if showing == event.id, let card, card.id == event.id {
                composeCard(card.frame)
                await presentComposed()
            }
        case .animateOut:
            guard showing == event.id, let card, card.id == event.id else { return }
            let swiped = swipes.withLock { swipe in
                defer { swipe = nil }
                return swipe?.id == event.id ? swipe?.dx : nil
            }
            // A card a finger moved or swiped leaves the way it was going: sideways (T2).
            if let direction = swiped ?? (cardShift != 0 ? Double(cardShift) : nil) {
                await shift(event.id, to: direction < 0 ? -logicalSize.width : logicalSize.width, over: event.activity.transition)
            } else {
                await slide(event.id, from: 1, to: 0, over: event.activity.transition)
            }
        case .hidden, .requeued:
            guard showing == event.id else { return }
            showing = nil
            (cardShift, shiftTarget) = (0, 0)
            spareCardFrame = card?.frame
            card = nil
            composeHome()
            await presentComposed()
            scheduleBlanking()
            scheduleRelease()
        case .updated:
            await redrawInPlace(event.activity)
        case .enqueued, .rejected, .invoked:
            break  // See draws(_:).
        }
    }

    /// Draws the changed card where it stands (U1): no slide out and in. A slide under way
    /// picks the new card up with its next frame; a card at rest is presented once. The icon is
    /// kept when it is the one drawn and its file is unchanged: updates drawn as one (U2) may
    /// have changed it in between, and the same path may name a new picture.
    private func redrawInPlace(_ activity: NookActivity) async {
        guard let current = card, current.id == activity.id else { return }
        let kept = activity.systemImage == current.activity.systemImage ? current.icon : nil
        let (icon, stamp, changed) = await iconFile(for: activity, keeping: kept)
        // The icon load suspended: a newer card or an end may have come meanwhile.
        guard card?.id == activity.id else { return }
        // Drawn into the old card's frame: a hundred updates a second allocate nothing. A new
        // picture at the same path is not a change the partial redraw knows of: drawn whole.
        let drawn = changed ? nil : card.map { (activity: $0.activity, layout: $0.layout) }
        spareCardFrame = card?.frame
        card = nil
        let rendered = cardFrame(for: activity, icon: icon, stamp: stamp, over: drawn)
        guard showing == activity.id, slidesRunning == 0 else { return }
        composeRedrawn(rendered.frame, places: rendered.redrawn)
        await presentComposed()
    }

    /// An update that changed nothing of card `id` named its icon file again (so no `updated`
    /// event comes, U1): the card is drawn again if the file at that path is no longer the one
    /// its picture was read from (R3).
    public func recheckIcon(of id: NookActivityID) async {
        guard let current = card, current.id == id, let name = current.activity.systemImage, IconCatalog.namesFile(name) else { return }
        let activity = current.activity
        let stamp = await Task.detached(priority: .userInitiated) { CardRenderer.iconStamp(for: activity) }.value
        guard card?.id == id, stamp != cardIconStamp, let now = card?.activity else { return }
        await redrawInPlace(now)
    }

    /// Changes the home content; shown at once if nothing else is on the glass. Returns the
    /// content it replaced.
    @discardableResult
    public func setHome(_ content: HomeContent) async -> HomeContent {
        let replaced = settings.home
        settings.home = content
        await refreshHome(force: true)
        await lampChanged(from: replaced)
        return replaced
    }

    /// A mood light came on (the panel wakes from idle blanking and stays lit) or went off (idle
    /// blanking counts again from now).
    private func lampChanged(from replaced: HomeContent) async {
        guard replaced.isLamp != settings.home.isLamp, showing == nil else { return }
        if settings.home.isLamp { await unblank() } else { scheduleBlanking() }
    }

    /// Changes theme and rotation (a config reload). The card on screen is redrawn too. Safe at
    /// any moment: everything this draws from is redrawn at the new size before it returns, with
    /// no suspension in between, so a slide resumes at a frame boundary with frames of one size.
    public func apply(_ newSettings: Settings) async {
        let oldRotation = settings.rotation
        let oldHome = settings.home
        settings = newSettings
        if newSettings.rotation != oldRotation {
            logicalSize = display.mode.size.rotated(newSettings.rotation.inverse)
            composed = Frame(width: logicalSize.width, height: logicalSize.height)
            composedCard = nil
            spareCardFrame = nil
        }
        if let current = card {
            spareCardFrame = current.frame
            card = nil
            let frame = cardFrame(for: current.activity, icon: current.icon, stamp: cardIconStamp).frame
            if showing == current.id {
                cardShift = max(-logicalSize.width, min(logicalSize.width, cardShift))
                composeCard(frame)
            }
        }
        homeTime = localTime()
        homeFrame = HomeRenderer(theme: settings.theme).render(settings.home, size: logicalSize, time: homeTime)
        // A slide under way draws its next frame from the frames just redrawn; presenting the
        // whole card here would make it jump.
        if slidesRunning == 0 {
            if showing == nil { composeHome() }
            await presentComposed()
        }
        await lampChanged(from: oldHome)
    }

    /// Redraws the clock if the minute changed (or always, with `force`); returns how long to
    /// wait before the next minute starts, so an idle daemon wakes once a minute, not once a frame.
    @discardableResult
    public func refreshHome(force: Bool = false) async -> Duration {
        let now = localTime()
        if force || (settings.home == .clock && (now.minute != homeTime.minute || now.hour != homeTime.hour)) {
            homeTime = now
            homeFrame = HomeRenderer(theme: settings.theme).render(settings.home, size: logicalSize, time: now)
            if showing == nil {
                composeHome()
                await presentComposed()
            }
        }
        return now.untilNextMinute
    }

    /// Keeps the home clock current until the task is cancelled.
    public func runClock() async {
        while !Task.isCancelled {
            let wait = await refreshHome()
            do { try await clock.sleep(until: clock.now + wait) } catch { return }
        }
    }

    /// The frame on the glass, as the panel scans it out (for snapshots).
    public var lastPresentedFrame: Frame? {
        guard presentedFrames > 0 else { return nil }
        return settings.rotation == .none ? composed : rotated
    }

    /// Hands the frame on the glass, upright as drawn, to the observer again (a live view that
    /// starts watching has none yet).
    public func offerCurrentFrame() {
        guard presentedFrames > 0 else { return }
        observer?.showing(composed)
    }

    // MARK: Frames

    /// The PNG icon `activity` names: `kept` (the one drawn) while its file has the stamp it
    /// was read with, else read again off this actor's executor (a slow file holds up nothing
    /// but this card). `changed`: a kept picture's file changed at its path.
    private func iconFile(for activity: NookActivity, keeping kept: CardRenderer.IconLoad?) async
        -> (icon: CardRenderer.IconLoad?, stamp: IconFile.Stamp?, changed: Bool) {
        guard let name = activity.systemImage, IconCatalog.namesFile(name) else { return (nil, nil, false) }
        let drawnStamp = cardIconStamp
        return await Task.detached(priority: .userInitiated) {
            // Stamped before it is read: a file changed in between is read again next time, never
            // kept as new with the old picture.
            let stamp = CardRenderer.iconStamp(for: activity)
            if let kept, stamp == drawnStamp { return (kept, stamp, false) }
            return (CardRenderer.loadIcon(for: activity), stamp, kept != nil)
        }.value
    }

    /// `over`: the card the spare frame holds, drawn at this size and theme with that layout
    /// (an update in place), so that only what changed is drawn again. `stamp`: the icon file's
    /// when `icon` was read (``iconFile(for:keeping:)``).
    private func cardFrame(for activity: NookActivity, icon: CardRenderer.IconLoad?, stamp: IconFile.Stamp?,
                           over previous: (activity: NookActivity, layout: CardLayout)? = nil) -> RenderedCard {
        if let card, card.id == activity.id, card.activity == activity {
            return RenderedCard(frame: card.frame, layout: card.layout, warnings: [], redrawn: [])
        }
        let renderer = CardRenderer(theme: settings.theme)
        let spare = spareCardFrame
        spareCardFrame = nil
        let rendered: RenderedCard
        if let spare, spare.size == logicalSize {
            // The only reference: drawn in place.
            if let previous {
                rendered = renderer.render(activity, into: consume spare, icon: icon, over: previous.activity, layout: previous.layout)
            } else {
                rendered = renderer.render(activity, into: consume spare, icon: icon)
            }
        } else {
            rendered = renderer.render(activity, size: logicalSize, icon: icon)
        }
        for warning in rendered.warnings { onWarning(warning) }
        cardsRendered += 1
        card = (activity.id, activity, rendered.frame, icon, rendered.layout)
        cardIconStamp = stamp
        return rendered
    }

    /// Presents slide frames from `start` to `end` progress, one per display refresh, reading
    /// progress off the clock so a slow frame is skipped over rather than stretching the move.
    /// Progress also advances by at least one refresh period per frame, so a display whose
    /// presents take no time (fbdev without vsync) still finishes in the expected frame count.
    /// The frames come from `card` (the card with `id`) and `homeFrame`, read again for every
    /// frame: a reload that turns the panel redraws both at the new size between two frames,
    /// and the slide goes on at that size (never composing frames of two sizes). It stops if
    /// the card is no longer the one showing.
    private func slide(_ id: NookActivityID, from start: Double, to end: Double, over duration: Duration) async {
        slidesRunning += 1
        defer { slidesRunning -= 1 }
        let began = clock.now
        let expectedFrames = max(1, (duration.nookSeconds * display.mode.refreshHz).rounded(.up))
        var frame = 0.0
        var previousFrameAt: NookInstant?
        while true {
            frame += 1
            let elapsed = (clock.now - began).nookSeconds
            let fraction = duration > .zero ? min(1, max(elapsed / duration.nookSeconds, frame / expectedFrames)) : 1
            guard showing == id, let card, card.id == id else { return }
            let progress = start + (end - start) * fraction
            composedCard = nil
            if cardShift == 0 {
                SlideTransition.compose(card: card.frame, under: homeFrame, progress: progress, into: &composed)
            } else {
                SidewaysSlide.compose(card: card.frame, under: homeFrame, dx: cardShift,
                                      rows: SlideTransition.offset(height: card.frame.height, progress: progress), into: &composed)
            }
            guard await presentComposed() else { return }
            let presentedAt = clock.now
            if let previousFrameAt {
                slideFrameIntervals.append(presentedAt - previousFrameAt)
                if slideFrameIntervals.count > 64 { slideFrameIntervals.removeFirst() }
            }
            previousFrameAt = presentedAt
            if fraction >= 1 { return }
        }
    }

    /// `composed` as the card at rest, moved sideways by the finger if one moved it.
    private func composeCard(_ frame: Frame) {
        if cardShift == 0 {
            composed.overwrite(with: frame)
            composedCard = card?.frame.size == frame.size ? card?.id : nil
        } else {
            SidewaysSlide.compose(card: frame, under: homeFrame, dx: cardShift, into: &composed)
            composedCard = nil
        }
    }

    /// The card redrawn in place at rest: only the places drawn again are copied when
    /// `composed` holds that card as it was.
    private func composeRedrawn(_ frame: Frame, places: [CardLayout.Box]?) {
        guard let places, cardShift == 0, let id = card?.id, composedCard == id, composed.size == frame.size else {
            composeCard(frame)
            return
        }
        for place in places { composed.overwrite(with: frame, x: place.x, y: place.y, width: place.width, height: place.height) }
    }

    // MARK: Touch (T2)

    /// The card on the glass follows a finger `dx` logical pixels sideways (right when positive).
    /// Drags that come faster than the display presents are drawn as one, the newest; a slide
    /// under way draws the shift with its next frame.
    public func dragCard(by dx: Double) async {
        guard let id = showing, card?.id == id else { return }
        shiftGeneration += 1
        shiftTarget = max(-logicalSize.width, min(logicalSize.width, Int(dx.rounded())))
        guard !shiftDrawing else { return }
        shiftDrawing = true
        defer { shiftDrawing = false }
        while cardShift != shiftTarget, showing == id, let card, card.id == id {
            cardShift = shiftTarget
            guard slidesRunning == 0 else { return }
            composeCard(card.frame)
            guard await presentComposed() else { return }
        }
    }

    /// The finger lifted without a swipe: a card it moved springs back into place.
    public func releaseCard() async {
        guard let id = showing, cardShift != 0, swipes.withLock({ $0?.id != id }) else { return }
        await shift(id, to: 0, over: .milliseconds(150))
    }

    /// A swipe is dismissing the card `id` (T2): its slide out goes sideways, towards `dx`'s
    /// side. Safe from any thread; call it before asking the queue to dismiss the card.
    public nonisolated func markSwiped(_ id: NookActivityID, dx: Double) {
        swipes.withLock { $0 = (id, dx) }
    }

    /// Moves the card sideways from where it is to `target` (0: in place, ±width: off the
    /// glass), paced by the display's presents as ``slide(_:from:to:over:)`` is. A finger
    /// touching again (a new drag) stops it where it is.
    private func shift(_ id: NookActivityID, to target: Int, over duration: Duration) async {
        slidesRunning += 1
        defer { slidesRunning -= 1 }
        let (from, generation, began) = (cardShift, shiftGeneration, clock.now)
        let expectedFrames = max(1, (duration.nookSeconds * display.mode.refreshHz).rounded(.up))
        var frame = 0.0
        while true {
            frame += 1
            let elapsed = (clock.now - began).nookSeconds
            let fraction = duration > .zero ? min(1, max(elapsed / duration.nookSeconds, frame / expectedFrames)) : 1
            guard showing == id, let card, card.id == id else { return }
            guard generation == shiftGeneration else {
                // A finger took the card again: it goes where the finger is.
                cardShift = shiftTarget
                composeCard(card.frame)
                await presentComposed()
                return
            }
            cardShift = from + Int((Double(target - from) * SlideTransition.eased(fraction)).rounded())
            shiftTarget = cardShift
            composedCard = nil
            SidewaysSlide.compose(card: card.frame, under: homeFrame, dx: cardShift, into: &composed)
            guard await presentComposed() else { return }
            if fraction >= 1 { return }
        }
    }

    @discardableResult
    private func presentComposed() async -> Bool {
        do {
            if settings.rotation == .none {
                try await display.present(composed)
            } else {
                var target = rotated ?? Frame(width: display.mode.size.width, height: display.mode.size.height)
                rotated = nil
                composed.rotate(settings.rotation, into: &target)
                // Kept before the await: a snapshot taken while the present waits for its vblank
                // once found no turned frame ("nothing has been presented yet").
                rotated = target
                try await display.present(target)
            }
            presentedFrames += 1
            observer?.presented(composed)
            lastError = nil
            return true
        } catch {
            if lastError != error { onWarning("display: \(error)") }
            lastError = error
            return false
        }
    }
}
