import NookActivities
import NookDisplay
import NookPixel
import NookRender

/// The screen nookd drives: the cairo card compositor (`NookScreen`) on pixel panels, or the
/// pixel renderer's `PixelScreen` on LED matrices and strips (L3). The daemon talks to this
/// seam only, so neither screen knows of the other.
final class DaemonScreen: Sendable {
    private enum Kind: Sendable {
        case cards(NookScreen)
        case pixels(PixelScreen, PixelRenderer)
    }

    private let kind: Kind
    /// What `status` reports for an LED screen (the theme does not apply to it; the rotation is
    /// the one the LEDs were started with).
    private let pixelSettings: Locked<NookScreen.Settings>
    /// The indicator lights (M1), drawn on the glass as a snapshot takes it.
    private let indicators: IndicatorDisplay?
    /// While a mood light is on (M1), the home content it covers: what comes back when it goes
    /// off, a glance or a reload's home taking its place meanwhile.
    private let underLight = Locked<HomeContent?>(nil)
    /// The last change of the home content asked for, which the next one waits for.
    private let homeChanges = Locked<Task<Void, Never>?>(nil)

    init(cards: NookScreen, settings: NookScreen.Settings, indicators: IndicatorDisplay? = nil) {
        kind = .cards(cards)
        pixelSettings = Locked(settings)
        self.indicators = indicators
    }

    init(display: any DisplayBackend, clock: any NookClock, settings: NookScreen.Settings, scrollSpeed: Double,
         onWarning: @escaping @Sendable (String) -> Void, observer: (any PresentedFrames)? = nil, indicators: IndicatorDisplay? = nil) {
        self.indicators = indicators
        var settings = settings
        settings.rotation = Self.ledRotation(settings.rotation, size: display.mode.size)
        let renderer = PixelRenderer(size: display.mode.size.rotated(settings.rotation.inverse), scrollSpeed: scrollSpeed)
        let screen = PixelScreen(display: display, clock: clock, renderer: renderer, rotation: settings.rotation, home: Self.pixelHome(settings.home),
                                 blankAfter: settings.blankAfter, localTime: { let now = LocalTime.now(); return (now.hour, now.minute, Double(now.second) + Double(now.nanosecond) / 1e9) }, onWarning: onWarning,
                                 observer: observer, iconLoader: Self.pixelIcon)
        kind = .pixels(screen, renderer)
        pixelSettings = Locked(settings)
    }

    /// The turn a matrix gets (R6). A strip gets none: it has no top to turn, only a chain
    /// direction, and which end comes first is `[led] origin`'s to say.
    static func ledRotation(_ rotation: Rotation, size: PixelSize) -> Rotation {
        size.width == 1 || size.height == 1 ? .none : rotation
    }

    static func pixelHome(_ content: HomeContent) -> PixelHome {
        switch content {
        case .clock: .clock
        case .blank: .blank
        case .text(let text): .text(text)
        // An LED matrix has no room for a grid: it shows the glance's first line with text.
        case .glance(let glance): glance.lines.first { !$0.allSatisfy { $0 == " " } }.map { .text($0.trimmingSpaces) } ?? .blank
        case .light(let color): .light(color)
        }
    }

    /// An icon file as the LED screen draws it (M3): every frame, read and decoded as a panel's is.
    @Sendable static func pixelIcon(_ path: String) -> Result<PixelIconImage, PixelScreen.IconLoadError> {
        do throws(IconFileError) {
            let picture = try IconFile.loadPicture(path: path)
            return .success(PixelIconImage(width: picture.frames[0].width, height: picture.frames[0].height,
                                           frames: picture.frames.map(\.pixels), delays: picture.delays))
        } catch {
            return .failure(PixelScreen.IconLoadError(error.description))
        }
    }

    /// What this screen will not show of a card's or app's text and icon, for the request's
    /// answer (M3): on an LED matrix the characters its font lacks, a subtitle, an icon it has
    /// no drawing of; on a panel, which draws the rest, that an animated GIF is drawn still.
    func undrawn(title: String?, subtitle: String?, icon: String?, titleField: String = "title") -> [String] {
        guard case .pixels(_, let renderer) = kind else {
            guard let icon, icon.hasPrefix("/"), IconFile.isAnimatedGIF(path: icon) else { return [] }
            return ["the panel draws the animated icon '\(SaidText.shown(icon, scalars: 100))' still, its first frame"]
        }
        return renderer.undrawn(title: title, subtitle: subtitle, icon: icon, titleField: titleField,
                                known: { NookIconNames.warning(for: $0) == nil })
    }

    /// The activity as this screen needs it: on an LED matrix a timed card whose title
    /// scrolls stays at least one full marquee pass (L3), so nobody sees half a title.
    /// An invalid activity is returned as it came, so the queue refuses it for what the
    /// sender wrote (a zero dwell is not made valid by lengthening it).
    func fitted(_ activity: NookActivity) -> NookActivity {
        // Only an LED matrix changes anything; other screens skip the validation.
        guard case .pixels(_, let renderer) = kind, !activity.isBlocker else { return activity }
        do { try activity.validate() } catch { return activity }
        guard let pass = renderer.marqueePass(for: activity), pass > activity.dwell else { return activity }
        var fitted = activity
        fitted.dwell = pass
        return fitted
    }

    /// One scroll of the activity's text on an LED matrix, nil when it fits or on other screens:
    /// a blocker (an app's card) is not lengthened by ``fitted(_:)``, so the app rotation asks
    /// this to lengthen the turn instead (L3).
    func scrollPass(of activity: NookActivity) -> Duration? {
        guard case .pixels(_, let renderer) = kind else { return nil }
        return renderer.marqueePass(for: activity)
    }

    /// Draws the lifecycle `events` of `queue`, reporting each finished slide-in back to it so
    /// the card's dwell counts from when it is really on the glass (Q13).
    func run(_ events: AsyncStream<NookActivityEvent>, reportingTo queue: NookActivityQueue, heartbeat: NookLoopHeartbeat? = nil) async {
        switch kind {
        case .cards(let screen): await screen.run(events, reportingTo: queue, heartbeat: heartbeat)
        case .pixels(let screen, _): await screen.run(events, reportingTo: queue, heartbeat: heartbeat)
        }
    }

    /// The panel is back (Q15): present again what the screen shows, without resetting it.
    func redisplay() async {
        switch kind {
        case .cards(let screen): await screen.redisplay()
        case .pixels(let screen, _): await screen.redisplay()
        }
    }

    /// The panel is back (Q15): kept dark if the screen keeps it dark (a re-plugged panel
    /// comes back lit), then presented again. LEDs keep their blanking through a loss (the
    /// LED display holds it and a lost chip is only cleared), so they are only redrawn.
    func displayReturned() async {
        switch kind {
        case .cards(let screen): await screen.displayReturned()
        case .pixels(let screen, _): await screen.redisplay()
        }
    }

    /// T2: the card on the glass follows a finger sideways. An LED screen has no card to move.
    func dragCard(by dx: Double) async {
        if case .cards(let screen) = kind { await screen.dragCard(by: dx) }
    }

    /// T2: the finger lifted without a swipe; a card it moved springs back.
    func releaseCard() async {
        if case .cards(let screen) = kind { await screen.releaseCard() }
    }

    /// T2: the card `id` is being swiped away towards `dx`'s side; its slide out goes sideways.
    func markSwiped(_ id: NookActivityID, dx: Double) {
        if case .cards(let screen) = kind { screen.markSwiped(id, dx: dx) }
    }

    /// R3: an update that changed nothing named the icon file of card `id` again; the file at
    /// that path may hold another picture now. An LED screen reads it again for its next card.
    func recheckIcon(of id: NookActivityID) async {
        if case .cards(let screen) = kind { await screen.recheckIcon(of: id) }
    }

    /// Lets go of the card compositor's spare frames after `delay` of home content.
    func releaseFrames(after delay: Duration?) async {
        if case .cards(let screen) = kind { await screen.releaseFrames(after: delay) }
    }

    /// Why the panel is held dark, cards included.
    enum DarkReason: Hashable, Sendable {
        /// Z3: nobody is in the room.
        case nobodyThere
        /// M1: switched off (`display`, AWTRIX's `power` and `sleep`, LaMetric's `on`).
        case switchedOff
    }

    private let darkReasons = Locked<Set<DarkReason>>([])

    /// The panel dark while any reason holds; back on, showing what the screen shows, when none
    /// does.
    func holdDark(_ dark: Bool, for reason: DarkReason) async {
        setDark(dark, for: reason)
        await applyDark()
    }

    /// Records whether `reason` holds, for ``applyDark()`` to carry out: apart, so a caller can
    /// change it under a lock of its own, in the order its changes are made.
    func setDark(_ dark: Bool, for reason: DarkReason) {
        darkReasons.withLock { reasons in
            if dark { reasons.insert(reason) } else { reasons.remove(reason) }
        }
    }

    /// The panel dark or lit as the reasons say. Two reasons changing at once on two tasks may
    /// reach the screen out of order: each call applies again until what it applied is what the
    /// reasons say after it.
    func applyDark() async {
        var wanted = darkReasons.withLock { !$0.isEmpty }
        while true {
            switch kind {
            case .cards(let screen): await screen.holdDark(wanted)
            case .pixels(let screen, _): await screen.holdDark(wanted)
            }
            let now = darkReasons.withLock { !$0.isEmpty }
            if now == wanted { return }
            wanted = now
        }
    }

    /// Whether the panel is held dark for `reason`.
    func isHeldDark(for reason: DarkReason) -> Bool { darkReasons.withLock { $0.contains(reason) } }

    func showHome() async {
        switch kind {
        case .cards(let screen): await screen.showHome()
        case .pixels(let screen, _): await screen.showHome()
        }
    }

    func runClock() async {
        switch kind {
        case .cards(let screen): await screen.runClock()
        case .pixels(let screen, _): await screen.runClock()
        }
    }

    /// `home` (R4): `content` shown, a mood light replaced too. `keepingLight` (a glance, E8):
    /// while a mood light is on, `content` goes under it instead, and nil is returned. Returns
    /// what was shown before. `lit` hears whether a mood light is on once the change is made.
    @discardableResult
    func setHome(_ content: HomeContent, keepingLight: Bool = false, lit: @escaping @Sendable (Bool) -> Void = { _ in }) async -> HomeContent? {
        await oneHomeChangeAtATime { [self] in
            let covered: Bool = underLight.withLock { under in
                guard under != nil else { return false }
                if keepingLight { under = content } else { under = nil }
                return keepingLight
            }
            let replaced = covered ? nil : await show(content)
            lit(isLit)
            return replaced
        }
    }

    /// The mood light (M1) on in `color`, or off (nil, or black: a black lamp is no lamp): the
    /// content it covers comes back (with none on, nothing changes). Returns what was shown and
    /// what is now; `lit` hears whether the light is on once it is.
    func setMoodLight(_ color: UInt32?, lit: @escaping @Sendable (Bool) -> Void) async -> (replaced: HomeContent, shown: HomeContent) {
        await oneHomeChangeAtATime { [self] in
            let shown = await currentSettings.home
            defer { lit(isLit) }
            guard let color, color & 0xFF_FFFF != 0 else {
                guard let under = underLight.withLock({ under in defer { under = nil }; return under }) else { return (shown, shown) }
                await show(under)
                return (shown, under)
            }
            underLight.withLock { under in if under == nil { under = shown } }
            await show(.light(color))
            return (shown, .light(color))
        }
    }

    /// Runs one change of the home content whole, after every change asked before it: a change
    /// reads what is shown, then shows something else, and two at once (a `light-off` beside a
    /// `light`) would each read the glass before the other's change and leave the light under a
    /// light, which no `light-off` could end.
    private func oneHomeChangeAtATime<Result: Sendable>(_ change: @escaping @Sendable () async -> Result) async -> Result {
        let task: Task<Result, Never> = homeChanges.withLock { last in
            let previous = last
            let task = Task { _ = await previous?.value; return await change() }
            last = Task { _ = await task.value }
            return task
        }
        return await task.value
    }

    /// Whether a mood light is on.
    var isLit: Bool { underLight.withLock { $0 != nil } }

    /// Shows `content` on the screen; returns the home content it replaced.
    @discardableResult
    private func show(_ content: HomeContent) async -> HomeContent {
        switch kind {
        case .cards(let screen): return await screen.setHome(content)
        case .pixels(let screen, _):
            let replaced = pixelSettings.withLock { settings in
                defer { settings.home = content }
                return settings.home
            }
            await screen.setHome(Self.pixelHome(content))
            return replaced
        }
    }

    /// A reload's settings; while a mood light is on, their home goes under it.
    func apply(_ settings: NookScreen.Settings) async {
        await oneHomeChangeAtATime { [self] in await applyNow(settings) }
    }

    private func applyNow(_ settings: NookScreen.Settings) async {
        var settings = settings
        let shown = await currentSettings.home
        underLight.withLock { under in
            guard under != nil else { return }
            under = settings.home
            settings.home = shown
        }
        switch kind {
        case .cards(let screen): await screen.apply(settings)
        case .pixels(let screen, _):
            // The renderer's size follows the rotation, so a new one waits for a restart;
            // `status` keeps reporting the turn the LEDs really have.
            pixelSettings.withLock { $0 = NookScreen.Settings(theme: settings.theme, rotation: $0.rotation, home: settings.home, blankAfter: settings.blankAfter) }
            await screen.setHome(Self.pixelHome(settings.home))
        }
    }

    /// Hands the frame on the glass, as drawn, to the live view again (it starts watching).
    func offerCurrentFrame() async {
        switch kind {
        case .cards(let screen): await screen.offerCurrentFrame()
        case .pixels(let screen, _): await screen.offerCurrentFrame()
        }
    }

    /// The glass as a person sees it: on LEDs, the round-LED picture of the matrix.
    var lastPresentedFrame: Frame? {
        get async {
            switch kind {
            case .cards(let screen): return await screen.lastPresentedFrame.map { indicators?.marked($0, upright: false) ?? $0 }
            case .pixels(let screen, _):
                return await screen.lastPresentedFrame.map { LEDMockImage.render(indicators?.marked($0, upright: false) ?? $0, cell: $0.height == 1 ? 12 : 16) }
            }
        }
    }

    var currentSettings: NookScreen.Settings {
        get async {
            switch kind {
            case .cards(let screen): return await screen.currentSettings
            case .pixels: return pixelSettings.withLock { $0 }
            }
        }
    }

    var medianSlideFrameInterval: Duration? {
        get async {
            switch kind {
            case .cards(let screen): return await screen.medianSlideFrameInterval
            case .pixels: return nil
            }
        }
    }
}

extension String {
    /// Without leading and trailing white space (a sysfs value's newline included).
    var trimmingSpaces: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
