import NookLogging
import NookActivities
import NookConfig
import NookInput
import NookProtocol

extension Service {
    /// Z2: the brightness levels, through a backlight or by dimming the drawn frames, with a
    /// `[brightness]` table; without one nookd leaves the brightness alone.
    final class Brightness: DaemonService {
        struct Settings: Equatable, Sendable {
            /// Whether `[brightness]` says anything: without it nookd leaves the brightness alone.
            var configured = false
            /// The backlight's name under `root`; nil, with a `[brightness]` table, dims the
            /// drawn frames instead.
            var backlightName: String?
            var root = "/sys/class/backlight"
            var levels = BrightnessController.Levels()
            var fade: Duration = .milliseconds(400)
            /// The ambient light sensor (`brightness.ambient_*`); nil: the levels are fixed.
            var ambient: AmbientSettings?
        }
        typealias Section = Settings

        static let name = "brightness"
        static var needs: [any DaemonService.Type] { [Display.self, Queues.self, Recall.self] }
        static let keys = settings.map(\.key)

        /// The levels in force; nil until started, and without `[brightness]`.
        let current = Locked<BrightnessController?>(nil)
        /// Each change of the brightness a hub reads (``BrightnessController/percent``): `watch`'s
        /// status line `display`, on which a mirror of the status (nook-mqtt's light) reads it again.
        let changes = NookObserverList<Void>()
        private let dimmer: DimmingDisplay?
        private let queues: [NookActivityQueue]
        private let quiet: NookQuietHours
        private let clock: any NookClock
        private let logger: Logger
        private let stops = StopActions()

        /// - Parameter queues: every queue whose cards light the panel, the recall's (U5) too.
        init(dimmer: DimmingDisplay?, queues: [NookActivityQueue], quiet: NookQuietHours, clock: any NookClock, logger: Logger) {
            (self.dimmer, self.queues, self.quiet, self.clock, self.logger) = (dimmer, queues, quiet, clock, logger)
        }

        func start(_ section: Section) async throws(DaemonError) {
            guard section.configured, let dimmer else { return }
            var output: any BrightnessOutput = dimmer
            if let name = section.backlightName {
                do {
                    let backlight = try Backlight(name: name, root: section.root)
                    output = backlight
                    logger.info("brightness through \(backlight.directory) (max \(backlight.maximum))")
                } catch {
                    // Like a missing sensor (I4): a warning, and the frames are dimmed instead.
                    logger.warning("brightness: \(error); dimming the drawn frames instead")
                }
            } else {
                logger.info("brightness: no backlight configured, dimming the drawn frames")
            }
            let service = BrightnessController(backlight: output, levels: section.levels, fade: section.fade,
                                            clock: clock, ambient: section.ambient?.curve, warn: { [logger] in logger.warning("\($0)") },
                                            percentChanged: { [changes] in changes.notify(()) })
            // Z2: the room's light before the first level, so a dark room does not start bright
            // and fade down (one read; a sensor that cannot answer leaves the fixed levels).
            let sensor = section.ambient.map { AmbientLightSensor(settings: $0.sensor, clock: clock, warn: { [logger] in logger.warning("\($0)") }) }
            if let lux = await sensor?.firstReading() { await service.setAmbient(lux: lux) }
            await service.setQuiet(quiet.isQuiet)
            current.withLock { $0 = service }
            if let ambient = section.ambient, let sensor {
                // A missing sensor is a warning inside the sensor, and the levels stay fixed (I4).
                let task = Task { await sensor.run { lux in await service.setAmbient(lux: lux) } }
                let points = ambient.curve.points.map { "\($0.lux) lx: \(Int(($0.scale * 100).rounded())) %" }.joined(separator: ", ")
                logger.info("brightness follows the room's light from \(sensor.label) (\(points) of the active and idle levels, hysteresis \(Int((ambient.curve.hysteresis * 100).rounded())) %)")
                stops.add { task.cancel() }
            }
            let relays = queues.map { queue in
                let events = queue.events(where: BrightnessController.matters)
                return Task { for await event in events { await service.observe(event) } }
            }
            stops.add { relays.forEach { $0.cancel() } }
        }

        func stop() async { await stops.run() }
    }
}

extension Service.Brightness: DeclaresSettings {
    private static func percent(_ level: Double) -> Int { Int((level * 100).rounded()) }
    private static let levels = BrightnessController.Levels()

    /// A name under ``sysfsRoot``; without it the drawn frames are dimmed instead.
    static let backlight = Setting<String?>.text("brightness.backlight", reload: .restart)
    static let sysfsRoot = Setting<String?>.text("brightness.sysfs_root", reload: .restart)
    /// The levels, in percent of the panel's brightness.
    static let active = Setting<Int>.integer("brightness.active", default: percent(levels.active), in: 0...100, reload: .restart)
    static let night = Setting<Int>.integer("brightness.night", default: percent(levels.night), in: 0...100, reload: .restart)
    static let idle = Setting<Int>.integer("brightness.idle", default: percent(levels.idle), in: 0...100, reload: .restart)
    static let quiet = Setting<Int>.integer("brightness.quiet", default: percent(levels.quiet), in: 0...100, reload: .restart)
    static let dim = Setting<Int>.integer("brightness.dim", default: percent(levels.dim), in: 0...100, reload: .restart)
    static let fadeMs = Setting<Int>.integer("brightness.fade_ms", default: 400, in: 300...10_000, reload: .restart)

    /// Z2's ambient light sensor: `sensor` or `device` says which, the others need one of them.
    static let ambientSensor = Setting<String?>.text("brightness.ambient_sensor", reload: .restart)
    static let ambientDevice = Setting<String?>.text("brightness.ambient_device", reload: .restart)
    /// "LUX:PERCENT" points rising in lux; the default is ``AmbientSettings/defaultCurve``.
    static let ambientCurve = Setting<[String]>.texts("brightness.ambient_curve", default: [], reload: .restart, shownDefault: nil)
    static let ambientHysteresisPct = Setting<Int>.integer("brightness.ambient_hysteresis_pct", default: percent(AmbientBrightness(points: []).hysteresis),
                                                           in: 0...100, reload: .restart)
    static let ambientIntervalMs = Setting<Int>.integer("brightness.ambient_interval_ms",
                                                        default: Int(AmbientLightSensor.Settings().interval / .milliseconds(1)), in: 100...60_000, reload: .restart)
    static let ambientSysfsRoot = Setting<String?>.text("brightness.ambient_sysfs_root", reload: .restart)

    static let settings = [backlight.declaration, sysfsRoot.declaration, active.declaration, night.declaration, idle.declaration, quiet.declaration,
                           dim.declaration, fadeMs.declaration, ambientSensor.declaration, ambientDevice.declaration, ambientCurve.declaration,
                           ambientHysteresisPct.declaration, ambientIntervalMs.declaration, ambientSysfsRoot.declaration]
}

extension Service.Brightness: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.brightness }

    /// `[brightness]` (Z2): with any of its keys set, nookd drives the brightness.
    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        var settings = settings
        settings.backlightName = try backlight.read(reader)
        settings.root = try sysfsRoot.read(reader) ?? settings.root
        settings.configured = reader.document.entries.contains { $0.key.hasPrefix("brightness.") }
        let levels: [(Setting<Int>, WritableKeyPath<BrightnessController.Levels, Double>)] = [
            (active, \.active), (night, \.night), (idle, \.idle), (quiet, \.quiet), (dim, \.dim),
        ]
        for (setting, level) in levels {
            if let percent = try setting.read(reader) { settings.levels[keyPath: level] = Double(percent) / 100 }
        }
        if let milliseconds = try fadeMs.read(reader) { settings.fade = .milliseconds(milliseconds) }
        settings.ambient = try AmbientSettings.reading(reader)
        return settings
    }
}

extension Service.Brightness: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Brightness {
        Service.Brightness(dimmer: try wiring.part(Service.Display.self).dimmer, queues: try wiring.moduleQueues + [try wiring.part(Service.Recall.self).recall.queue],
                           quiet: wiring.quiet, clock: wiring.clock, logger: wiring.logger)
    }
}

extension Service.Brightness: ReportsStatus {
    func report(into status: inout StatusAnswer) async { status.brightness = await current.withLock { $0 }?.status }
}
