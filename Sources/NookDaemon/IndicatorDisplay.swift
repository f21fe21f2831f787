import NookActivities
import NookDisplay
import NookProtocol

/// The indicator lights (M1, AWTRIX's `indicator1..3`) drawn over every frame on its way to the
/// display, so cards, apps and home content are all under them whatever screen drew the frame.
/// With none lit, frames pass untouched and nothing is copied. A blink or fade redraws the
/// screen (``redraw``) on the injected clock at each change of colour, never closer than
/// ``IndicatorMarks/shortestStep``. The lights live in memory: a restart of nookd forgets them.
final class IndicatorDisplay: DisplayBackend {
    let inner: any DisplayBackend
    let kind: IndicatorMarks.Kind
    private let clock: any NookClock

    private struct State {
        var lights: [Int: IndicatorMarks.Light] = [:]
        /// The turn from the drawn frame to the display, which the screen sets (R6).
        var turned: Rotation = .none
        var ticker: Task<Void, Never>?
        var generation = 0
        /// The generation whose ticker is redrawing now, if one is.
        var redrawing: Int?
        /// The display is off (idle blanking, nobody in the room): a blink redraws nothing then;
        /// the screen presents afresh, lights included, when it comes back on.
        var blanked = false
    }

    private let state = Locked(State())
    private let redrawAction = Locked<KeptClosure<@Sendable () async -> Void>?>(nil)

    init(_ inner: any DisplayBackend, kind: IndicatorMarks.Kind, clock: any NookClock) {
        (self.inner, self.kind, self.clock) = (inner, kind, clock)
    }

    deinit { state.withLock { $0.ticker?.cancel() } }

    var mode: DisplayMode { inner.mode }
    var panelOrientation: Rotation { inner.panelOrientation }
    var pageFlips: PageFlipCounts? { inner.pageFlips }
    func connectionChanges() -> AsyncStream<Bool> { inner.connectionChanges() }
    /// While the display is off no blink or fade wakes nookd: the ticker ends, and starts
    /// again, at the light's next edge, when the display comes back on.
    func setBlanked(_ blanked: Bool) async throws(DisplayError) {
        try await inner.setBlanked(blanked)
        let changed = state.withLock { state in
            defer { state.blanked = blanked }
            return state.blanked != blanked
        }
        if changed { restartTicker() }
    }
    func restore() {
        state.withLock { $0.ticker?.cancel() }
        inner.restore()
    }

    /// What presents the screen's current frame again (the daemon's screen).
    func redraw(with action: @escaping @Sendable () async -> Void) { redrawAction.withLock { $0 = KeptClosure(action) } }

    /// Presents the screen's frame again, with the lights as they are now.
    func redraw() async {
        if let redraw = redrawAction.withLock({ $0?.call }) { await redraw() }
    }

    /// The screen's turn from its drawn frames to the display.
    func setTurn(_ turned: Rotation) { state.withLock { $0.turned = turned } }

    func present(_ frame: Frame) async throws(DisplayError) {
        guard let marked = marked(frame, upright: false) else { return try await inner.present(frame) }
        try await inner.present(marked)
    }

    /// `frame` with the lights drawn on it at this moment, nil when none is lit: turned as the
    /// display is sent it, or `upright` as drawn (the live view's).
    func marked(_ frame: Frame, upright: Bool) -> Frame? {
        let (lights, turn) = state.withLock { ($0.lights, $0.turned) }
        guard !lights.isEmpty else { return nil }
        var marked = frame
        IndicatorMarks.draw(lights, at: clock.now, on: &marked, turned: upright ? .none : turn, kind: kind)
        return marked
    }

    /// Each light as `status` reports it, 1 to 3.
    var lights: [StatusAnswer.Indicator] {
        let lights = state.withLock { $0.lights }
        return NookIndicator.numbers.map { number in
            let light = lights[number]
            return StatusAnswer.Indicator(number: number, color: light.map { NookIndicator.hex($0.color) },
                                          blinkMs: light?.blink.map(Self.milliseconds) ?? 0, fadeMs: light?.fade.map(Self.milliseconds) ?? 0)
        }
    }

    /// Sets one light as `setting` asks, as AWTRIX reads it: black turns it off; no colour keeps
    /// its colour and whether it is lit, with the blink and fade asked; a blink wins over a
    /// fade. Returns the light as it is now and what is drawn otherwise than asked. The screen
    /// is redrawn before this returns.
    func set(_ setting: NookIndicator) async -> IndicatorAnswer {
        var warnings: [String] = []
        var blink = setting.blinkMs > 0 ? Duration.milliseconds(setting.blinkMs) : nil
        if let asked = blink, asked < IndicatorMarks.shortestStep {
            warnings.append("blink: \(setting.blinkMs) ms is drawn as \(Self.milliseconds(IndicatorMarks.shortestStep)) ms, "
                            + "the shortest the board redraws the glass for an indicator")
            blink = IndicatorMarks.shortestStep
        }
        var fade = setting.fadeMs > 0 ? Duration.milliseconds(setting.fadeMs) : nil
        if blink != nil, fade != nil {
            warnings.append("fade: not drawn while the indicator blinks (as AWTRIX, the blink wins)")
            fade = nil
        }
        if let asked = fade, asked < IndicatorMarks.shortestFade {
            warnings.append("fade: \(setting.fadeMs) ms is drawn as \(Self.milliseconds(IndicatorMarks.shortestFade)) ms, "
                            + "the shortest fade the board's redraws show")
            fade = IndicatorMarks.shortestFade
        }
        let now = clock.now
        let light: IndicatorMarks.Light? = state.withLock { state in
            let color = setting.color ?? state.lights[setting.number]?.color ?? 0
            state.lights[setting.number] = color == 0 ? nil : IndicatorMarks.Light(color: color, blink: blink, fade: fade, since: now)
            return state.lights[setting.number]
        }
        if light == nil, setting.color == nil, setting.blinkMs > 0 || setting.fadeMs > 0 {
            warnings.append("indicator\(setting.number) is off: a blink or fade without a colour changes nothing until it is lit")
        }
        let upright = inner.mode.size.rotated(state.withLock { $0.turned }.inverse)
        if light != nil, IndicatorMarks.cells(of: setting.number, kind: kind, size: upright).isEmpty {
            warnings.append("indicator\(setting.number): not drawn: this \(upright.width)x\(upright.height) display has no place for it")
        }
        restartTicker()
        await redraw()
        return IndicatorAnswer(number: setting.number, color: light.map { NookIndicator.hex($0.color) },
                               blinkMs: light?.blink.map(Self.milliseconds) ?? 0, fadeMs: light?.fade.map(Self.milliseconds) ?? 0,
                               warnings: warnings)
    }

    /// Redraws at each change of a blinking or fading light's colour, at most once a
    /// ``IndicatorMarks/shortestStep``, while one is lit and the display is on; steady lights
    /// need no timer.
    private func restartTicker() {
        let (lights, generation) = state.withLock { state in
            // A ticker mid-redraw is let finish it: cancelled while the display waits for its
            // vertical blank, the frame would be lost and the display said to have failed. It
            // sees the generation moved on and ends.
            if state.redrawing != state.generation { state.ticker?.cancel() }
            state.ticker = nil
            state.generation += 1
            return (state.blanked ? [] : state.lights.values.filter(\.animates), state.generation)
        }
        guard !lights.isEmpty else { return }
        let ticker = Task { [clock, redrawAction, state] in
            var last = clock.now
            while !Task.isCancelled {
                guard let next = lights.compactMap({ $0.nextChange(after: clock.now) }).min() else { return }
                do { try await clock.sleep(until: max(next, last + IndicatorMarks.shortestStep)) } catch { return }
                last = clock.now
                let due: Bool? = state.withLock { state in
                    guard state.generation == generation else { return nil }
                    guard !state.blanked else { return false }
                    state.redrawing = generation
                    return true
                }
                guard let due else { return }
                guard due else { continue }
                if let redraw = redrawAction.withLock({ $0?.call }) { await redraw() }
                let current = state.withLock { state in
                    if state.redrawing == generation { state.redrawing = nil }
                    return state.generation == generation
                }
                guard current else { return }
            }
        }
        state.withLock { state in
            if state.generation == generation { state.ticker = ticker } else { ticker.cancel() }
        }
    }

    static func milliseconds(_ duration: Duration) -> Int { Int((duration.nookSeconds * 1000).rounded()) }
}

/// The live view's frames (V1) with the indicator lights drawn on them, upright as drawn.
final class IndicatorFrames: PresentedFrames {
    let inner: any PresentedFrames
    let indicators: IndicatorDisplay

    init(_ inner: any PresentedFrames, _ indicators: IndicatorDisplay) { (self.inner, self.indicators) = (inner, indicators) }

    func presented(_ frame: Frame) { inner.presented(indicators.marked(frame, upright: true) ?? frame) }
    func showing(_ frame: Frame) { inner.showing(indicators.marked(frame, upright: true) ?? frame) }
}
