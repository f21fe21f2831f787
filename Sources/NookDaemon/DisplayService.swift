import NookLogging
import NookActivities
import NookConfig
import NookDisplay
import NookRender

extension Service {
    /// The panel, LEDs or mock nookd draws on (D4): chosen when nookd is built, restored last.
    final class Display: DaemonService {
        struct Settings: Equatable, Sendable {
            var backend: DaemonConfig.Backend = .auto
            /// Size of the mock display.
            var mockSize = PixelSize(width: 1280, height: 400)
            /// DRM: the card (`/dev/dri/card0`), connector (`HDMI-A-1`) and mode (`1280x400@60`);
            /// nil takes the first card with a connected connector and its preferred mode.
            var card, connector, mode: String?
            /// fbdev: the framebuffer device (`/dev/fb1`); nil takes the first one.
            var fbdev: String?
            /// `display.page_flip = false`: one buffer and dirty-fb even where the driver flips.
            var pageFlip = Service.Display.pageFlip.defaultValue
            /// Where the mock writes its PNG frames; nil writes none.
            var frames: String?
            /// How many frame files the mock keeps there; older ones are removed (the disk stays bounded).
            var framesLimit = Service.Display.framesLimit.defaultValue
            var refreshHz = Service.Display.refreshHz.defaultValue
            /// The LEDs the `led-*` backends drive (`[led]`).
            var led = LEDSettings()
            /// Fault injection for the watchdog's tests (W1, `debug.hang_display_file`): the
            /// display loop hangs at the first present after this file appears. Nil: never.
            var hangDisplayFile: String?
        }
        typealias Section = Settings

        static let name = "display"
        static var needs: [any DaemonService.Type] { [] }
        static let keys = settings.map(\.key)

        let display: any DisplayBackend
        /// Z2: the frames' dimmer, with `[brightness]` (used where there is no backlight).
        let dimmer: DimmingDisplay?
        /// M1: the indicator lights, drawn over every frame (and dimmed with it).
        let indicators: IndicatorDisplay
        let backendName: String
        private let frameWriter: FrameWriter?

        init(_ config: DaemonConfig, clock: any NookClock, logger: Logger) throws(DaemonError) {
            let selection = try DisplaySelection.choose(config, clock: clock, logger: logger)
            var chosen = selection.display
            if let trigger = config.display.hangDisplayFile {
                logger.warning("debug.hang_display_file is set: the display loop hangs when \(trigger) appears (a test of the watchdog, W1)")
                chosen = HangingDisplay(chosen, triggerPath: trigger, warn: { logger.warning("\($0)") })
            }
            // Z2: frames pass through untouched unless brightness without a backlight dims them.
            dimmer = config.brightness.configured ? DimmingDisplay(chosen) : nil
            let size = chosen.mode.size
            let kind: IndicatorMarks.Kind = !config.display.backend.isLED ? .panel : size.width == 1 || size.height == 1 ? .strip : .matrix
            indicators = IndicatorDisplay(dimmer ?? chosen, kind: kind, clock: clock)
            display = indicators
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

extension Service.Display: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.display }

    /// `[display]`'s keys of the panel, `[led]` (L1, L2, L5) and the watchdog's fault injection.
    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        var settings = settings
        if let name = try backend.read(reader) { settings.backend = DaemonConfig.Backend(rawValue: name)! }
        if let text = try size.read(reader) { settings.mockSize = try reader.checked(size.key, SettingValue.size(text)) }
        settings.frames = try frames.read(reader)
        settings.framesLimit = try framesLimit.read(reader) ?? settings.framesLimit
        settings.refreshHz = try refreshHz.read(reader) ?? settings.refreshHz
        settings.card = try card.read(reader)
        settings.fbdev = try fbdev.read(reader)
        settings.connector = try connector.read(reader)
        if let mode = try self.mode.read(reader) {
            let parts = mode.split(separator: "@")
            guard (1...2).contains(parts.count), PixelSize(parsing: String(parts[0])) != nil, parts.count == 1 || Int(parts[1]) != nil else {
                throw reader.error(self.mode.key, "must be WIDTHxHEIGHT or WIDTHxHEIGHT@HZ such as \"1280x400@60\", got \"\(mode)\"")
            }
            settings.mode = mode
        }
        settings.pageFlip = try pageFlip.read(reader) ?? settings.pageFlip
        if let path = try hangDisplayFile.read(reader) { settings.hangDisplayFile = try reader.checked(hangDisplayFile.key, SettingValue.absolutePath(path)) }
        settings.led = try LEDSettings(reading: reader, backend: settings.backend)
        return settings
    }
}

extension Service.Display: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Display {
        try Service.Display(wiring.config, clock: wiring.clock, logger: wiring.logger)
    }
}
