import NookLogging
import NookActivities
import NookProtocol

/// Z2: the brightness follows what the display is doing — a card on the glass (`active`; during
/// quiet hours `night`), home content (`idle`), quiet hours with nothing on the glass (`quiet`), nobody in the room
/// for a while (`dimmed`, Z3, whatever is on the glass) — and every change fades through at
/// least ten levels over `fade` instead of jumping. The levels go to the panel's backlight, or,
/// where there is none, scale the drawn frames (``DimmingDisplay``). With an ambient light
/// sensor the room's light scales `active` and `idle` (``AmbientBrightness``); quiet, night and
/// dim keep their fixed levels, capped at the scaled level of the state under them.
actor BrightnessController {
    enum State: String, Sendable { case active, night, idle, quiet, dimmed }

    struct Levels: Hashable, Sendable {
        var active = 1.0, night = 0.4, idle = 0.6, quiet = 0.1, dim = 0.05
        func level(_ state: State) -> Double {
            switch state {
            case .active: active
            case .night: night
            case .idle: idle
            case .quiet: quiet
            case .dimmed: dim
            }
        }
    }

    private let backlight: any BrightnessOutput
    private let levels: Levels
    private let fade: Duration
    private let clock: any NookClock
    private let warn: @Sendable (String) -> Void
    /// Told when ``percent`` changes (the room's light, a brightness set): what a hub reads as the
    /// brightness moved, so a watcher reads the status again.
    private let percentChanged: @Sendable () -> Void
    private var announcedPercent: Int?
    /// The level last written.
    private(set) var current: Int?
    private(set) var state: State?
    private var fading: Task<Void, Never>?
    private var showing: NookActivityID?
    private var quiet = false
    private var dimmed = false
    /// The room's light, with an ambient light sensor.
    private var ambient: AmbientTracker?
    /// The level the state (and the room's light) asks for, last aimed at.
    private(set) var target: Int?
    /// Z4's `brighter` or `pulse` holds the level until the state changes: the room's light
    /// does not take it back.
    private var overridden = false
    /// The brightness set over the API (`display`, M1's `BRI`, M4's `PUT display`), a
    /// percentage; nil: nook.toml's levels and the room's light.
    private(set) var percentSet: Int?

    init(backlight: any BrightnessOutput, levels: Levels, fade: Duration, clock: any NookClock,
         ambient: AmbientBrightness? = nil, warn: @escaping @Sendable (String) -> Void, percentChanged: @escaping @Sendable () -> Void = {}) {
        (self.backlight, self.levels, self.fade, self.clock, self.warn) = (backlight, levels, fade, clock, warn)
        self.percentChanged = percentChanged
        self.ambient = ambient.map(AmbientTracker.init(curve:))
    }

    /// The events ``observe(_:)`` needs.
    @Sendable static func matters(_ event: NookActivityEvent) -> Bool {
        switch event.kind {
        case .animateIn, .hidden, .requeued: true
        default: false
        }
    }

    /// A lifecycle event from any queue: a card coming onto or leaving the glass.
    func observe(_ event: NookActivityEvent) async {
        switch event.kind {
        case .animateIn: showing = event.id
        case .hidden, .requeued: if showing == event.id { showing = nil }
        default: return
        }
        await apply()
    }

    func setQuiet(_ quiet: Bool) async {
        guard quiet != self.quiet || state == nil else { return }
        self.quiet = quiet
        await apply()
    }

    /// Z3: nobody has been near for a while (`true`), or someone is back.
    func setDimmed(_ dimmed: Bool) async {
        guard dimmed != self.dimmed else { return }
        self.dimmed = dimmed
        await apply()
    }

    /// A reading of the room's light in lux, or nil when the sensor stopped giving one (the
    /// fixed levels again). Ignored without ``AmbientBrightness``.
    func setAmbient(lux: Double?) async {
        guard var tracker = ambient else { return }
        let changed = tracker.take(lux)
        ambient = tracker
        guard changed, !overridden, percentSet == nil, state != nil else { return }
        await apply()
    }

    /// The reading the scale follows (nil: none, the fixed levels).
    var ambientLux: Double? { ambient?.reference }

    /// A brightness set over the API: a card shows at `percent` of the panel's brightness and
    /// every other state keeps its proportion to nook.toml's `brightness.active`; the room's light
    /// is not followed meanwhile (LaMetric's manual mode, AWTRIX's `ABRI` off). Nil gives the
    /// levels back to nook.toml and the room. An escalation's `brighter` or `pulse` under way
    /// keeps the glass until what it shows changes: a blocker's alarm is not dimmed by it.
    func setPercent(_ percent: Int?) async {
        guard percent != percentSet else { return }
        percentSet = percent
        guard state != nil else { return }
        await apply()
    }

    /// Z4's `brighter` step: full brightness until what the display does changes.
    func boost() async {
        overridden = true
        await fade(to: backlight.maximum)
    }

    /// Z4's `pulse` step: the brightness swings between full and a fifth of it, one fade each
    /// way, until what the display does changes (the blocker acknowledged ends it).
    func pulse() async {
        overridden = true
        fading?.cancel()
        let high = backlight.maximum
        let low = high / 5
        let start = current ?? high
        let swings = [NookBrightnessFade(from: start, to: high, over: fade).steps,
                      NookBrightnessFade(from: high, to: low, over: fade).steps,
                      NookBrightnessFade(from: low, to: high, over: fade).steps]
        let began = clock.now
        fading = Task { [clock, fade] in
            var origin = began
            var swing = 0
            while !Task.isCancelled {
                for step in swings[swing] {
                    do { try await clock.sleep(until: origin + step.offset) } catch { return }
                    guard !Task.isCancelled else { return }
                    await self.write(step.level)
                }
                origin = origin + fade
                swing = swing == 1 ? 2 : 1
            }
        }
    }

    private func apply() async {
        let wanted: State = dimmed ? .dimmed : showing != nil ? (quiet ? .night : .active) : quiet ? .quiet : .idle
        let level = level(for: wanted)
        guard wanted != state || (level != target && !overridden) else { return }
        state = wanted
        target = level
        overridden = false
        if let now = percent, now != announcedPercent {
            if announcedPercent != nil { percentChanged() }
            announcedPercent = now
        }
        await fade(to: level)
    }

    /// The raw level for `state`. Z2: the room's light scales active and idle; quiet hours,
    /// night and dim keep their fixed levels, but never above what the scaled active or idle
    /// level under them would be (a dark room at 20 % is not lit to night's 40 % by quiet hours).
    /// A scaled level never rounds to off while its fixed level is on (a backlight with one
    /// step, gpio-backlight, would go dark below half).
    private func level(for state: State) -> Int {
        func raw(_ fraction: Double) -> Int { Int((fraction * Double(backlight.maximum)).rounded()) }
        if let percentSet {
            // The set percentage is the active level; the others keep their proportion to it. A
            // level above 0 never rounds to off (a backlight with one step would go dark below half).
            let set = Double(percentSet) / 100
            let level = raw(levels.active > 0 ? min(1, levels.level(state) * set / levels.active) : set)
            return percentSet > 0 && levels.level(state) > 0 ? max(1, level) : level
        }
        let fixed = raw(levels.level(state))
        guard let ambient, ambient.reference != nil else { return fixed }  // no reading: the fixed levels
        let scale = ambient.scale
        let under: State = state == .active || state == .night || (state == .dimmed && showing != nil) ? .active : .idle
        let scaled = raw(levels.level(under) * scale)
        let floor = raw(levels.level(under)) > 0 ? max(1, scaled) : scaled
        return state == under ? floor : min(fixed, floor)
    }

    private func fade(to target: Int) async {
        fading?.cancel()
        guard let start = current else {
            await write(target)  // the first level, at start-up: nothing on the glass to fade from
            return
        }
        let steps = NookBrightnessFade(from: start, to: target, over: fade).steps
        let began = clock.now
        fading = Task { [clock] in
            for step in steps {
                do { try await clock.sleep(until: began + step.offset) } catch { return }
                guard !Task.isCancelled else { return }
                await self.write(step.level)
            }
        }
    }

    private func write(_ level: Int) async {
        do {
            try await backlight.apply(level: level)
        } catch {
            if current != nil || state != nil { warn("brightness: \(error)") }
        }
        current = level
    }

    /// The brightness as a percentage set over the API would give it: the one set, else the one
    /// that keeps the level aimed at in the state the display is in (a hub reading it and writing
    /// it back changes nothing). Nil before the first level.
    var percent: Int? {
        if let percentSet { return percentSet }
        guard var state, var target else { return nil }
        // With an active level of 0 a set percentage is every state's level: the glass's own.
        guard levels.active > 0 else { return min(100, max(0, Int((Double(target) * 100 / Double(max(1, backlight.maximum))).rounded()))) }
        if levels.level(state) == 0 {
            // A state at 0 (quiet or dim at 0 %) says nothing of the scale: the state under it does,
            // with the room's light.
            state = state == .active || state == .night || (state == .dimmed && showing != nil) ? .active : .idle
            target = level(for: state)
            guard levels.level(state) > 0 else { return Int((levels.active * 100).rounded()) }
        }
        let fraction = Double(target) / Double(max(1, backlight.maximum))
        return min(100, max(0, Int((fraction * levels.active / levels.level(state) * 100).rounded())))
    }

    /// Z4's `brighter` or `pulse` holds the glass: a level set now shows once what the display
    /// does changes.
    var isOverridden: Bool { overridden }

    /// What `status` shows (nil before the first level is written).
    var status: StatusAnswer.Brightness? {
        guard let current, let state else { return nil }
        let output = backlight is DimmingDisplay ? "frames" : backlight.name
        return StatusAnswer.Brightness(state: state.rawValue, level: current, maximum: backlight.maximum, output: output, lux: ambientLux,
                                       percentSet: percentSet, percent: percent)
    }

    /// Q15: a panel plugged back in comes with a re-probed backlight at its driver's default
    /// level; the level last written goes to it again (a fade under way writes its next step
    /// anyway). A backlight not back yet is the usual warning, and the next change writes it.
    func displayReturned() async {
        guard let current else { return }
        await write(current)
    }

    /// Waits for the fade under way (tests).
    func settle() async { await fading?.value }
}
