import NookLogging
import NookActivities
import NookConfig
import NookDisplay
import NookPixel
import NookRender

extension Service {
    /// The loops that draw each module's events on the glass, and the screen's settings:
    /// theme, home content, rotation and blanking apply at a reload.
    final class Screen: DaemonService {
        struct Settings: Equatable, Sendable {
            var theme: Theme = .dark
            var rotation: Rotation = .none
            var home: HomeContent = .clock
            /// Blank the panel after this long without a card; nil never blanks.
            var blankAfter: Duration?
        }

        struct Section: Equatable, Sendable {
            var theme: Theme
            var rotation: Rotation
            var home: HomeContent
            var blankAfter: Duration?
            /// The display's: an LED matrix's turn is set up at start.
            var isLED: Bool
        }

        static let name = "screen"
        static var needs: [any DaemonService.Type] { [Display.self, Queues.self, SystemdWatchdog.self] }
        static let keys = settings.map(\.key)
        static let appliesAtReload = true

        static func section(of config: DaemonConfig) -> Section {
            let screen = config.screen
            return Section(theme: screen.theme, rotation: screen.rotation, home: screen.home, blankAfter: screen.blankAfter, isLED: config.display.backend.isLED)
        }

        /// Everything applies, but an LED matrix's turn is set up at start (a strip has none).
        static func reload(from old: Section, to new: Section, changed: [String], in context: ReloadContext) -> ReloadDecision {
            guard old != new else { return ReloadDecision() }
            var decision = ReloadDecision()
            for key in owned(changed) {
                if key == rotation.key, new.isLED,
                   DaemonScreen.ledRotation(new.rotation, size: context.displaySize) != DaemonScreen.ledRotation(old.rotation, size: context.displaySize) {
                    decision.needsRestart.append(key)
                } else {
                    decision.applied.append(key)
                }
            }
            return decision
        }

        let screen: DaemonScreen
        /// The live view (V1): the glass's generation and, while watched, its newest frame.
        let liveGlass = LiveGlass()
        /// The live view's PNGs, one encoding per generation.
        let livePNGs: LiveFramePNGs
        private let display: any DisplayBackend
        private let indicators: IndicatorDisplay
        private let queues: [NookActivityQueue]
        private let watchdog: SystemdWatchdog
        private let stops = StopActions()

        /// The screen for `output`'s display: the pixel renderer for LEDs (L3: the cairo
        /// compositor is never made for them), the card compositor for a panel.
        init(_ config: DaemonConfig, output: Display, clock: any NookClock, queues: [NookActivityQueue], watchdog: SystemdWatchdog, logger: Logger) {
            let display = output.display
            (self.display, self.queues, self.watchdog) = (display, queues, watchdog)
            indicators = output.indicators
            // R6: the configured turn, then the one the panel's orientation property asks for.
            let configured = config.screen
            let settings = NookScreen.Settings(theme: configured.theme, rotation: configured.rotation.then(display.panelOrientation), home: configured.home,
                                               blankAfter: configured.blankAfter)
            if config.display.backend.isLED {
                if configured.rotation != .none, DaemonScreen.ledRotation(configured.rotation, size: display.mode.size) == .none {
                    logger.notice("display.rotation does not turn an LED strip; say which end comes first with [led] origin instead")
                }
                screen = DaemonScreen(display: display, clock: clock, settings: settings, scrollSpeed: config.display.led.scrollSpeed,
                                      onWarning: { logger.warning("\($0)") }, observer: IndicatorFrames(liveGlass, output.indicators),
                                      indicators: output.indicators)
                livePNGs = LiveFramePNGs(picture: { LEDMockImage.render($0, cell: $0.height == 1 ? 12 : 16) })
            } else {
                screen = DaemonScreen(cards: NookScreen(display: display, clock: clock, settings: settings, onWarning: { logger.warning("\($0)") },
                                                        observer: IndicatorFrames(liveGlass, output.indicators)),
                                      settings: settings, indicators: output.indicators)
                livePNGs = LiveFramePNGs()
            }
            output.dimmer?.redraw { [screen] in await screen.redisplay() }
            output.indicators.redraw { [screen] in await screen.redisplay() }
            indicators.setTurn(config.display.backend.isLED ? DaemonScreen.ledRotation(settings.rotation, size: display.mode.size) : settings.rotation)
        }

        func start(_ section: Section) async throws(DaemonError) {
            let heartbeat = watchdog.heartbeat
            let feeders = queues.map { queue in
                // Subscribed here, not inside the task: the journal's restored activities follow at once.
                let events = queue.events(where: NookScreen.draws)
                return Task { [screen] in await screen.run(events, reportingTo: queue, heartbeat: heartbeat) }
            }
            stops.add { feeders.forEach { $0.cancel() } }
        }

        func stop() async { await stops.run() }

        func apply(_ section: Section) async {
            // R6: the configured turn, then the one the panel's orientation property asks for.
            let panelTurn = display.panelOrientation
            // An LED matrix keeps the turn it started with (a new one needs a restart).
            if !section.isLED { indicators.setTurn(section.rotation.then(panelTurn)) }
            await screen.apply(.init(theme: section.theme, rotation: section.rotation.then(panelTurn), home: section.home, blankAfter: section.blankAfter))
        }
    }
}

extension Service.Screen: DeclaresSettings {
    /// Seconds without a card before the panel goes dark; 0 never blanks.
    static let blankAfter = Setting<Int>.integer("display.blank_after_s", default: 0, in: 0...86_400, reload: .applied)
    /// Degrees clockwise, a quarter turn's multiple (checked by ``SettingValue/rotation(_:)``).
    static let rotation = Setting<Int>.integer("display.rotation", default: 0, in: 0...270, reload: .applied, shownRange: "0, 90, 180 or 270")
    /// The page says "clock (the default)".
    static let homeContent = Setting<String>.choice("home.content", among: ["clock", "blank", "text"], default: "clock", reload: .applied)
        .showing(default: nil)
    static let homeText = Setting<String?>.text("home.text", reload: .applied)
    /// `[theme]` (R2), read by NookRender's ``Theme/load(from:table:directory:)``, which theme
    /// files share: the keys are its ``Theme/configKeys``, each applied at a reload.
    static let theme: [SettingDeclaration] = Theme.configKeys.map { key in
        let kind: SettingKind = switch key {
        case "appearance": .choice(Theme.Appearance.allCases.map(\.rawValue))
        case "corner_radius": .number(Theme.cornerRadiusRange)
        case "title_scale", "subtitle_scale": .number(Theme.textScaleRange)
        default: .text
        }
        return SettingDeclaration(key: "theme." + key, kind: kind, shownDefault: key == "appearance" ? "dark" : nil, reload: .applied,
                                  shownRange: kind.shownRange)
    }
    static let settings = [blankAfter.declaration, rotation.declaration, homeContent.declaration, homeText.declaration] + theme
}

extension Service.Screen: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.screen }

    /// The picture's turn and blanking (`[display]`), `[theme]` (R2) and `[home]`.
    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        var settings = settings
        if let degrees = try rotation.read(reader) { settings.rotation = try reader.checked(rotation.key, SettingValue.rotation(degrees)) }
        if let seconds = try blankAfter.read(reader), seconds > 0 { settings.blankAfter = .seconds(seconds) }
        settings.theme = try Theme.load(from: reader, directory: reading.directory)
        settings.home = try readHome(reader) ?? settings.home
        return settings
    }

    /// `[home]`: what the glass shows with no card; nil when the file does not say.
    static func readHome(_ reader: ConfigReader) throws(ConfigError) -> HomeContent? {
        switch try homeContent.read(reader) {
        case "blank"?: return .blank
        case "clock"?:
            _ = try homeText.read(reader)
            return .clock
        case "text"?:
            guard let text = try homeText.read(reader), !text.isEmpty else { throw reader.error(homeText.key, "is required when \(homeContent.key) is \"text\"") }
            return .text(text)
        default:
            _ = try homeText.read(reader)
            return nil
        }
    }
}

extension Service.Screen: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Screen {
        Service.Screen(wiring.config, output: try wiring.part(Service.Display.self), clock: wiring.clock, queues: try wiring.moduleQueues,
                       watchdog: try wiring.part(Service.SystemdWatchdog.self), logger: wiring.logger)
    }
}
