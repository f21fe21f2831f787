import NookLogging
import NookActivities
import NookConfig
import NookInput
import NookProtocol

extension Service {
    /// The engagement inputs (I1–I4): the proximity sensor and the GPIO lines. A missing
    /// sensor or line is a warning inside them, never a reason not to run.
    final class Inputs: DaemonService {
        struct Settings: Equatable, Sendable {
            /// An IIO proximity sensor driving `hover` (I2); nil runs without one.
            var proximity: ProximitySensor.Settings?
            /// GPIO inputs (I1), `[gpio.NAME]` tables in file order.
            var gpioLines: [GPIOLineSettings] = []
        }
        typealias Section = Settings

        static let name = "inputs"
        static var needs: [any DaemonService.Type] { [Presence.self, Recall.self, Apps.self, Queues.self, ActionCardTracking.self] }
        static let keys = settings.map(\.key)

        /// Every key needs a restart, and so does the recall's hold for the buttons: it is set
        /// on the GPIO lines at start (the socket's `press` follows the new hold at once).
        static func reload(from old: Section, to new: Section, changed: [String], in context: ReloadContext) -> ReloadDecision {
            guard old != new else { return ReloadDecision() }
            var decision = ReloadDecision(needsRestart: owned(changed))
            if old.gpioLines.map(\.longPressAfter) != new.gpioLines.map(\.longPressAfter) {
                decision.needsRestart.append("history.recall_hold_ms (for the GPIO buttons)")
            }
            return decision
        }

        private let engagement: NookEngagement
        private let presses: InputBroadcast
        /// What a press of the buttons does (I1, E3, E8, U5), as for every other way in.
        let rules: InputRules
        private let state: Locked<Daemon.State>
        private let clock: any NookClock
        private let logger: Logger
        private let gpio = Locked<GPIOInputs?>(nil)
        private let stops = StopActions()

        init(engagement: NookEngagement, presses: InputBroadcast, rules: InputRules, state: Locked<Daemon.State>, clock: any NookClock, logger: Logger) {
            (self.engagement, self.presses, self.rules, self.state, self.clock, self.logger) = (engagement, presses, rules, state, clock, logger)
        }

        func start(_ section: Section) async throws(DaemonError) {
            if let proximity = section.proximity {
                let sensor = ProximitySensor(settings: proximity, engagement: engagement, clock: clock,
                                             warn: { [logger] in logger.warning("\($0)") })
                state.withLock { $0.proximity = sensor }
                let sensorTask = Task { await sensor.run() }
                stops.add { sensorTask.cancel() }
                let presence = proximity.presenceThreshold.map { ", presence from \($0)" } ?? ""
                logger.info("reading proximity from \(proximity.label) (threshold \(proximity.threshold)\(presence), hysteresis \(proximity.hysteresis), in the units in_proximity_raw prints)")
            }
            if let inputs = startGPIO(section.gpioLines) {
                stops.add { inputs.stop() }
            }
            if section.proximity == nil && section.gpioLines.isEmpty {
                logger.notice("no engagement inputs configured: activities never wait for a user")
            }
        }

        func stop() async { await stops.run() }

        /// Starts watching the configured GPIO lines (I1); nil when there are none or none can
        /// be had (a warning, I4).
        private func startGPIO(_ lines: [GPIOLineSettings]) -> GPIOInputs? {
            guard !lines.isEmpty else { return nil }
            let inputs: GPIOInputs
            // What each press does is ``InputRules``'s to say; the toggle is the line's own. The
            // open press's outcome is kept from `invoke` (asked first) for `pressed` (told after,
            // on the same poll thread) to stream whether it was taken.
            let rules = rules
            let lastOpen = Locked<InputRules.Open?>(nil)
            do {
                inputs = try GPIOInputs(
                    lines: lines, engagement: engagement,
                    dismiss: { _ = rules.dismiss(because: "dismiss pressed") },
                    pressed: { [presses] role, label, _ in
                        switch role {
                        case .open:
                            let taken = lastOpen.withLock { last in defer { last = nil }; return last?.taken ?? false }
                            presses.publish(InputMessage(input: .open, source: label, taken: taken))
                        case .dismiss: presses.publish(InputMessage(input: .dismiss, source: label))
                        case .hover, .presence: break
                        }
                    },
                    invoke: {
                        let outcome = rules.open()
                        lastOpen.withLock { $0 = outcome }
                        return outcome.keepsToggle
                    },
                    longPress: { rules.longPress() },
                    info: { [logger] in logger.info("\($0)") },
                    warn: { [logger] in logger.warning("\($0)") })
            } catch {
                logger.warning("GPIO inputs unavailable: \(error); running without them")
                return nil
            }
            let library = GPIOInputs.library
            logger.info("watching \(lines.count) GPIO line(s) through libgpiod \(library.version)")
            inputs.start()
            gpio.withLock { $0 = inputs }
            return inputs
        }

        /// `status`'s `gpio` member: the libgpiod in use and each line's live state.
        func gpioStatus() -> StatusAnswer.GPIO? {
            guard let inputs = gpio.withLock({ $0 }) else { return nil }
            let library = GPIOInputs.library
            return StatusAnswer.GPIO(library: library.version, api: library.api, lines: inputs.states.map { line in
                StatusAnswer.GPIOLine(name: line.name, role: line.role.rawValue, location: line.location, active: line.isActive,
                                      changes: line.changes,
                                      lastEdgeToWakeMs: line.lastEdgeToWake.map { ($0 / .microseconds(1)).rounded() / 1000 },
                                      problem: line.problem)
            })
        }
    }
}

extension Service.Inputs: DeclaresSettings {
    /// `[proximity]` (I2): an IIO proximity sensor; every key but the two that say which
    /// sensor needs one of them.
    enum Proximity {
        private static let defaults = ProximitySensor.Settings()
        static let name = Setting<String?>.text("proximity.name", reload: .restart)
        static let device = Setting<String?>.text("proximity.device", reload: .restart)
        static let threshold = Setting<Int>.integer("proximity.threshold", default: defaults.threshold, in: 1...1_000_000, reload: .restart)
        static let hysteresis = Setting<Int>.integer("proximity.hysteresis", default: defaults.hysteresis, in: 0...1_000_000, reload: .restart)
        /// Between the hysteresis and the threshold.
        static let presenceThreshold = Setting<Int?>.integer("proximity.presence_threshold", in: 1...1_000_000, reload: .restart, shownDefault: "none")
            .showing(range: "between the hysteresis and the threshold")
        static let intervalMs = Setting<Int>.integer("proximity.interval_ms", default: Int(defaults.interval / .milliseconds(1)), in: 10...10_000, reload: .restart)
        static let sysfsRoot = Setting<String?>.text("proximity.sysfs_root", reload: .restart)
        /// The keys that need `name` or `device` beside them.
        static let sensorKeys = [threshold.key, hysteresis.key, presenceThreshold.key, intervalMs.key, sysfsRoot.key]
        static let settings = [name.declaration, device.declaration, threshold.declaration, hysteresis.declaration, presenceThreshold.declaration,
                               intervalMs.declaration, sysfsRoot.declaration]

        /// The sensor `[proximity]` describes; nil without `device` or `name` (then any other
        /// key of the table is a mistake, not a quiet no-op).
        static func read(_ reader: ConfigReader) throws(ConfigError) -> ProximitySensor.Settings? {
            let device = try self.device.read(reader)
            let name = try self.name.read(reader)
            guard device != nil || name != nil else {
                if let stray = sensorKeys.first(where: { reader.document[$0] != nil }) {
                    throw reader.error(stray, "needs \(self.device.key) or \(self.name.key) to say which sensor")
                }
                return nil
            }
            var sensor = ProximitySensor.Settings(device: device, name: name)
            sensor.threshold = try threshold.read(reader) ?? sensor.threshold
            sensor.hysteresis = try hysteresis.read(reader) ?? sensor.hysteresis
            guard sensor.hysteresis <= sensor.threshold else {
                throw reader.error(hysteresis.key, "must not exceed \(threshold.key) (\(sensor.threshold)), got \(sensor.hysteresis)")
            }
            if let presence = try presenceThreshold.read(reader) {
                guard presence <= sensor.threshold else {
                    throw reader.error(presenceThreshold.key, "must not exceed \(threshold.key) (\(sensor.threshold)): it is the farther reach, someone in the room rather than at the nook; got \(presence)")
                }
                guard sensor.hysteresis <= presence else {
                    throw reader.error(presenceThreshold.key, "must not be below \(hysteresis.key) (\(sensor.hysteresis)), got \(presence)")
                }
                sensor.presenceThreshold = presence
            }
            if let milliseconds = try intervalMs.read(reader) { sensor.interval = .milliseconds(milliseconds) }
            sensor.sysfsRoot = try sysfsRoot.read(reader) ?? sensor.sysfsRoot
            return sensor
        }
    }

    /// `[gpio.NAME]` (I1): one GPIO input each, its keys declared with `*` for the name.
    enum GPIO {
        private static let defaults = GPIOLineSettings(name: "", role: .open)
        static let role = Setting<String?>.choice("gpio.*.role", among: GPIOLineSettings.Role.allCases.map(\.rawValue), reload: .restart)
        static let line = Setting<String?>.text("gpio.*.line", reload: .restart)
        static let chip = Setting<String?>.text("gpio.*.chip", reload: .restart)
        static let offset = Setting<Int?>.integer("gpio.*.offset", in: 0...4095, reload: .restart)
        /// The page says "toggles (the default)".
        static let mode = Setting<String>.choice("gpio.*.mode", among: GPIOLineSettings.OpenMode.allCases.map(\.rawValue), default: defaults.openMode.rawValue,
                                                 reload: .restart).showing(default: nil)
        static let activeLow = Setting<Bool>.bool("gpio.*.active_low", default: defaults.activeLow, reload: .restart)
        /// The page says "as-is (the default)".
        static let bias = Setting<String>.choice("gpio.*.bias", among: GPIOLineSettings.Bias.allCases.map(\.rawValue), default: defaults.bias.rawValue,
                                                 reload: .restart).showing(default: nil)
        static let debounceMs = Setting<Int>.integer("gpio.*.debounce_ms", default: Int(defaults.debounce / .milliseconds(1)), in: 0...1000, reload: .restart)
        static let settings = [role.declaration, mode.declaration, line.declaration, chip.declaration, offset.declaration, activeLow.declaration,
                               bias.declaration, debounceMs.declaration]
    }

    static let settings = Proximity.settings + GPIO.settings
}

extension Service.Inputs: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.inputs }

    /// `[proximity]` and the `[gpio.NAME]` tables; a toggle button's long press is the recall
    /// gesture (U5), held as long as the recall says; a switch's level is a state.
    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        let proximity = try Proximity.read(reader)
        var lines = try GPIOConfig.lines(from: reader)
        for index in lines.indices where lines[index].role == .open && lines[index].openMode == .toggle {
            lines[index].longPressAfter = reading.earlier.recall.hold
        }
        return Settings(proximity: proximity, gpioLines: lines)
    }
}

extension Service.Inputs: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Inputs {
        Service.Inputs(engagement: wiring.engagement, presses: wiring.presses, rules: try wiring.inputRules(),
                       state: wiring.state, clock: wiring.clock, logger: wiring.logger)
    }
}

extension Service.Inputs: ReportsStatus {
    func report(into status: inout StatusAnswer) async { status.gpio = gpioStatus() }
}
