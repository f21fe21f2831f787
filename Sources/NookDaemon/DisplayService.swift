import NookLogging
import NookActivities
import NookConfig
import NookDisplay
import NookRender

extension Service {
    /// The panel, LEDs or mock nookd draws on (D4): chosen when nookd is built, restored last.
    final class Display: DaemonService {
        struct Section: Equatable, Sendable {
            var backend: DaemonConfig.Backend
            var mockSize: PixelSize
            var card, connector, mode, fbdev: String?
            var pageFlip: Bool
            var frames: String?
            var framesLimit: Int
            var refreshHz: Double
            var led: LEDSettings
            var hangDisplayFile: String?
        }

        static let name = "display"
        static var needs: [any DaemonService.Type] { [] }
        static let keys = settings.map(\.key)

        static func section(of config: DaemonConfig) -> Section {
            Section(backend: config.backend, mockSize: config.mockSize, card: config.drmCard, connector: config.drmConnector, mode: config.drmMode,
                    fbdev: config.fbdevPath, pageFlip: config.drmPageFlip, frames: config.framesDirectory, framesLimit: config.framesLimit,
                    refreshHz: config.refreshHz, led: config.led, hangDisplayFile: config.hangDisplayFile)
        }

        let display: any DisplayBackend
        /// Z2: the frames' dimmer, with `[brightness]` (used where there is no backlight).
        let dimmer: DimmingDisplay?
        let backendName: String
        private let frameWriter: FrameWriter?

        init(_ config: DaemonConfig, clock: any NookClock, logger: Logger) throws(DaemonError) {
            let selection = try DisplaySelection.choose(config, clock: clock, logger: logger)
            var chosen = selection.display
            if let trigger = config.hangDisplayFile {
                logger.warning("debug.hang_display_file is set: the display loop hangs when \(trigger) appears (a test of the watchdog, W1)")
                chosen = HangingDisplay(chosen, triggerPath: trigger, warn: { logger.warning("\($0)") })
            }
            // Z2: frames pass through untouched unless brightness without a backlight dims them.
            dimmer = config.brightnessConfigured ? DimmingDisplay(chosen) : nil
            display = dimmer ?? chosen
            backendName = selection.name
            frameWriter = selection.writer
        }

        func start(_ section: Section) async throws(DaemonError) {}

        /// What the screen showed before nookd is put back.
        func stop() async {
            await frameWriter?.finish()
            display.restore()
        }
    }
}

extension Service.Display: DeclaresSettings {
    static let backend = Setting<String>.choice("display.backend", among: DaemonConfig.Backend.allCases.map(\.rawValue), default: "auto", reload: .restart)
    /// The mock's size as text, read through ``SettingValue/size(_:)``.
    static let size = Setting<String?>.text("display.size", reload: .restart, shownDefault: "\"1280x400\"")
    static let card = Setting<String?>.text("display.card", reload: .restart)
    static let connector = Setting<String?>.text("display.connector", reload: .restart)
    static let mode = Setting<String?>.text("display.mode", reload: .restart)
    static let pageFlip = Setting<Bool>.bool("display.page_flip", default: true, reload: .restart)
    static let fbdev = Setting<String?>.text("display.fbdev", reload: .restart)
    static let frames = Setting<String?>.text("display.frames", reload: .restart, shownDefault: "none")
    static let framesLimit = Setting<Int>.integer("display.frames_limit", default: FrameWriter.defaultLimit, in: 1...10_000_000, reload: .restart)
    static let refreshHz = Setting<Double>.number("display.refresh_hz", default: 60, in: 1...240, reload: .restart)
    /// A file whose presence makes the mock display hang (tests of a stuck display).
    static let hangDisplayFile = Setting<String?>.text("debug.hang_display_file", reload: .restart)
    static let settings = [backend.declaration, size.declaration, card.declaration, connector.declaration, mode.declaration,
                           pageFlip.declaration, fbdev.declaration, frames.declaration, framesLimit.declaration, refreshHz.declaration]
        + LED.settings + [hangDisplayFile.declaration]
}

extension Service.Display: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Display {
        try Service.Display(wiring.config, clock: wiring.clock, logger: wiring.logger)
    }
}
