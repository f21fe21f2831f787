import NookActivities
import NookDisplay

/// Turns the queue's lifecycle (Q13) into frames on an LED display (L3, L4): the pixel
/// counterpart of NookRender's `NookScreen`, fed the same events. There are no slides (a
/// matrix has too few pixels for one to read as motion); a card appears at `animateIn` and
/// stays until `hidden`. While a card scrolls or pulses it is redrawn at up to 30 frames a
/// second on the injected clock, and sent only when it changed; a card whose only motion is
/// an animated icon is redrawn when its frame changes, no sooner; idle, the home clock is
/// redrawn once a minute.
public actor PixelScreen {
    private let display: any DisplayBackend
    private let clock: any NookClock
    public let renderer: PixelRenderer
    private let localTime: @Sendable () -> (hour: Int, minute: Int, second: Double)
    private let onWarning: @Sendable (String) -> Void
    public private(set) var home: PixelHome
    private var homeMinute: (hour: Int, minute: Int) = (-1, -1)
    /// The card on the glass, when it was presented (its pulse's time), when its marquee's
    /// pass began (moved by an update in place, so the text stays where it was), and while its
    /// text fits after scrolling, the time into the pass it had reached (it goes on from there).
    private var card: (activity: NookActivity, start: NookInstant, marqueeStart: NookInstant, held: Duration?)?
    private var frame: Frame
    /// Reads the icon file a card names (off this actor's executor): its picture, or why not.
    public typealias IconLoader = @Sendable (String) -> Result<PixelIconImage, IconLoadError>
    public struct IconLoadError: Error, Sendable { public var message: String; public init(_ message: String) { self.message = message } }
    private let iconLoader: IconLoader?
    /// The icon file of the card on the glass and its picture (nil: it could not be read).
    private var cardIcon: (path: String, image: PixelIconImage?)?
    /// Clockwise turn from the drawn frame to the LEDs (R6 on a matrix): the renderer draws
    /// at the turned size, and each frame is turned into `turned` before it is sent.
    public nonisolated let rotation: Rotation
    private var turned: Frame
    private var lastPresented: Frame?
    /// The frame of `lastPresented` as drawn, before the turn (the live view's, V1).
    private var lastDrawn: Frame?
    /// Told of every frame presented, upright as drawn.
    private let observer: (any PresentedFrames)?
    private var animator: Task<Void, Never>?
    private var generation = 0
    public private(set) var presentedFrames = 0
    private var lastError: DisplayError?
    /// Turn the LEDs off after this long with home content only; nil never does.
    private let blankAfter: Duration?
    private var blankTimer: Task<Void, Never>?
    public private(set) var isBlanked = false
    /// Z3: nobody is in the room; the LEDs stay dark whatever is drawn.
    private var heldDark = false

    /// - Parameter rotation: clockwise from `renderer`'s frames to the display, so the renderer
    ///   is the display's size turned back (a 17x7 matrix turned 90° draws 7x17 frames).
    public init(display: any DisplayBackend, clock: any NookClock, renderer: PixelRenderer, rotation: Rotation = .none,
                home: PixelHome = .clock, blankAfter: Duration? = nil,
                localTime: @escaping @Sendable () -> (hour: Int, minute: Int, second: Double),
                onWarning: @escaping @Sendable (String) -> Void = { _ in }, observer: (any PresentedFrames)? = nil,
                iconLoader: IconLoader? = nil) {
        self.observer = observer
        self.iconLoader = iconLoader
        precondition(renderer.size.rotated(rotation) == display.mode.size,
                     "a \(renderer.size) renderer turned \(rotation) on a \(display.mode.size) display")
        self.rotation = rotation
        turned = Frame(width: display.mode.size.width, height: display.mode.size.height)
        self.display = display
        self.clock = clock
        self.renderer = renderer
        self.home = home
        self.blankAfter = blankAfter
        self.localTime = localTime
        self.onWarning = onWarning
        frame = Frame(width: renderer.size.width, height: renderer.size.height)
    }

    /// Time between animation frames: 30 a second, or fewer if the bus carries fewer.
    var frameInterval: Duration { .nookSeconds(1 / min(30, display.mode.refreshHz)) ?? .milliseconds(33) }

    /// The frame on the LEDs now, as they are wired (turned): for snapshots.
    public var lastPresentedFrame: Frame? { lastPresented }

    /// Hands the frame on the LEDs, as drawn, to the observer again.
    public func offerCurrentFrame() {
        if let lastDrawn { observer?.showing(lastDrawn) }
    }

    /// The activity on the LEDs, if any.
    public var showing: NookActivityID? { card?.activity.id }

    public func showHome() async {
        stopAnimating()
        card = nil
        // The next card reads its icon file afresh: the file may have changed meanwhile.
        cardIcon = nil
        await drawHome()
        scheduleBlanking()
    }

    /// The LEDs are back after the display was gone (Q15), or what is drawn over the frame on its
    /// way to them changed (the indicator lights, the dimming): sends again what the screen
    /// shows, the card or home, without resetting it (a card the queue shows again arrives as
    /// events), even when the drawn frame is the one sent last.
    public func redisplay() async {
        if card != nil { await drawCard(force: true) } else { await drawHome() }
    }

    /// After `blankAfter` of home content the LEDs go dark (R4's idle blanking on LEDs).
    private func scheduleBlanking() {
        blankTimer?.cancel()
        guard let blankAfter, !home.isLamp else { return }
        let deadline = clock.now + blankAfter
        blankTimer = Task { [clock] in
            do { try await clock.sleep(until: deadline) } catch { return }
            await self.blankIfIdle()
        }
    }

    private func blankIfIdle() async {
        guard card == nil, !isBlanked, !heldDark, !home.isLamp else { return }
        do {
            try await display.setBlanked(true)
            isBlanked = true
        } catch {
            onWarning("could not blank the LEDs: \(error)")
        }
    }

    /// Z3: with `dark`, the LEDs go dark and stay dark, cards included, until someone is back
    /// (see `NookScreen.holdDark`).
    public func holdDark(_ dark: Bool) async {
        guard dark != heldDark else { return }
        heldDark = dark
        if dark {
            blankTimer?.cancel()
            guard !isBlanked else { return }
            isBlanked = true
            do { try await display.setBlanked(true) } catch { onWarning("could not blank the LEDs: \(error)") }
        } else {
            guard isBlanked else { return }
            isBlanked = false
            do { try await display.setBlanked(false) } catch { onWarning("could not unblank the LEDs: \(error)") }
            if card == nil { scheduleBlanking() }
        }
    }

    private func unblank() async {
        blankTimer?.cancel()
        guard isBlanked, !heldDark else { return }
        isBlanked = false
        do { try await display.setBlanked(false) } catch { onWarning("could not unblank the LEDs: \(error)") }
    }

    /// Consumes lifecycle events until the stream ends. With `queue` (the queue the events come
    /// from, configured with a `presenterTimeout`), each card drawn for its `animateIn` is
    /// reported to it, so its dwell counts from when the LEDs show it (Q13).
    /// With `heartbeat`, the loop beats between events and at the heartbeat's interval while
    /// idle (W1): a draw that never returns stops it.
    public func run(_ events: AsyncStream<NookActivityEvent>, reportingTo queue: NookActivityQueue? = nil,
                    heartbeat: NookLoopHeartbeat? = nil) async {
        guard let heartbeat else {
            for await event in events {
                await handle(event)
                if event.kind == .animateIn { await queue?.animateInFinished(event) }
            }
            return
        }
        let loop = heartbeat.register()
        defer { heartbeat.unregister(loop) }
        // The events and an idle tick, merged, so the loop below is the one that beats.
        let (steps, feed) = AsyncStream<NookActivityEvent?>.makeStream()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events { feed.yield(event) }
                feed.finish()
            }
            group.addTask { [clock] in
                while true {
                    do { try await clock.sleep(until: clock.now + heartbeat.wakeInterval) } catch { return }
                    feed.yield(nil)
                }
            }
            heartbeat.beat(loop)
            for await step in steps {
                if let event = step {
                    await handle(event)
                    if event.kind == .animateIn { await queue?.animateInFinished(event) }
                }
                heartbeat.beat(loop)
            }
            group.cancelAll()
        }
    }

    public func handle(_ event: NookActivityEvent) async {
        switch event.kind {
        case .animateIn:
            await loadIcon(for: event.activity)
            card = (event.activity, clock.now, clock.now, nil)
            await unblank()
            await drawCard()
            startAnimatingIfNeeded()
        case .presented:
            // The marquee starts again as the dwell starts, so the dwell holds one full pass.
            guard card?.activity.id == event.id else { return }
            await loadIcon(for: event.activity)
            card = (event.activity, clock.now, clock.now, nil)
            await drawCard()
            startAnimatingIfNeeded()
        case .hidden, .requeued:
            guard card?.activity.id == event.id else { return }
            await showHome()
        case .updated:
            // Redrawn in place (U1); the marquee keeps its place in the pass, across a spell
            // of a text that fits too.
            guard let shown = card, shown.activity.id == event.id else { return }
            await loadIcon(for: event.activity)
            let now = clock.now
            let place = renderer.marqueeAfterUpdate(of: shown.activity, to: event.activity, elapsed: now - shown.marqueeStart,
                                                    held: shown.held)
            card = (event.activity, shown.start, now - place.scrolled, place.held)
            await drawCard()
            startAnimatingIfNeeded()
        case .animateOut, .enqueued, .rejected, .invoked:
            break
        }
    }

    public func setHome(_ content: PixelHome) async {
        let wasLamp = home.isLamp
        home = content
        guard card == nil else { return }
        await drawHome()
        // A mood light came on (the LEDs wake from idle blanking and stay lit) or went off (idle
        // blanking counts again from now).
        if wasLamp != home.isLamp {
            if home.isLamp { await unblank() } else { scheduleBlanking() }
        }
    }

    /// Redraws the clock when the minute changed; returns how long until the next minute.
    @discardableResult
    public func refreshHome() async -> Duration {
        let now = localTime()
        if card == nil, home == .clock, (now.hour, now.minute) != homeMinute { await drawHome() }
        // A millisecond into the next minute, as nookd's other once-a-minute timers.
        return .seconds(60 - min(59.999, now.second)) + .milliseconds(1)
    }

    /// Keeps the home clock current until the task is cancelled.
    public func runClock() async {
        while !Task.isCancelled {
            let wait = await refreshHome()
            do { try await clock.sleep(until: clock.now + wait) } catch { return }
        }
    }

    private func drawHome() async {
        let now = localTime()
        homeMinute = (now.hour, now.minute)
        renderer.renderHome(home, hour: now.hour, minute: now.minute, into: &frame)
        await present(force: true)
    }

    private func drawCard(force: Bool = false) async {
        guard let card else { return }
        let now = clock.now
        let icon = card.activity.systemImage == cardIcon?.path ? cardIcon?.image : nil
        renderer.render(card.activity, elapsed: now - card.start, scrolled: now - card.marqueeStart, icon: icon, into: &frame)
        await present(force: force)
    }

    /// Reads the icon file `activity` names unless it is the one already read (M3); a file that
    /// cannot be read is said and drawn as the ringed dot.
    private func loadIcon(for activity: NookActivity) async {
        guard let iconLoader, let path = activity.systemImage, NookIconNames.namesFile(path), renderer.drawsIcon(activity) else { return }
        guard path != cardIcon?.path else { return }
        let loaded = await Task.detached(priority: .userInitiated) { iconLoader(path) }.value
        switch loaded {
        case .success(let image): cardIcon = (path, image)
        case .failure(let error):
            cardIcon = (path, nil)
            onWarning("icon \(error.message); drawing the ringed dot")
        }
    }

    private func startAnimatingIfNeeded() {
        stopAnimating()
        guard let first = nextFrameTime(after: nil) else { return }
        let current = generation
        animator = Task { [clock] in
            var next = first
            while !Task.isCancelled {
                do { try await clock.sleep(until: next) } catch { return }
                guard let following = await self.tick(current, after: next) else { return }
                next = following
            }
        }
    }

    /// When the card must be drawn next: a frame interval on while its text scrolls or it
    /// pulses; else when its animated icon's frame changes (always later than now, so a GIF of
    /// zero delays cannot spin); nil while nothing on it moves.
    private func nextFrameTime(after previous: NookInstant?) -> NookInstant? {
        guard let card else { return nil }
        let now = clock.now
        if renderer.isAnimated(card.activity) { return previous.map { max($0 + frameInterval, now) } ?? now + frameInterval }
        guard renderer.drawsIcon(card.activity), card.activity.systemImage == cardIcon?.path,
              let change = cardIcon?.image?.nextChange(after: now - card.start) else { return nil }
        return card.start + change
    }

    private func tick(_ expected: Int, after deadline: NookInstant) async -> NookInstant? {
        guard expected == generation, card != nil else { return nil }
        await drawCard()
        return expected == generation ? nextFrameTime(after: deadline) : nil
    }

    private func stopAnimating() {
        generation += 1
        animator?.cancel()
        animator = nil
    }

    /// Sends the frame unless it is what the LEDs already show: a marquee moves a column at a
    /// time, and each unchanged frame would cost a bus transfer for nothing.
    private func present(force: Bool) async {
        frame.rotate(rotation, into: &turned)
        if !force, let lastPresented, lastPresented == turned { return }
        let sent = turned
        do {
            try await display.present(sent)
            lastPresented = sent
            presentedFrames += 1
            if let observer {
                // An LED frame is a few hundred pixels: kept whole, it costs nothing.
                lastDrawn = frame
                observer.presented(frame)
            }
            lastError = nil
        } catch {
            if lastError != error { onWarning("display: \(error)") }
            lastError = error
        }
    }
}
