import NookLogging
import NookActivities
import NookConfig
import NookDisplay
import NookInput
import NookProtocol

extension Service {
    /// Touch (T1–T3): a touch panel's gestures act on the glass. Off (`touch.enabled = false`)
    /// it starts nothing. Unset, it reads a touchscreen that is there when nookd starts, and
    /// stops looking if there is none (an idle nookd wakes once a minute; a reader looking for a
    /// device would wake it every second). On, it also waits for one plugged in later (I4:
    /// missing hardware is a line in the log and in `status`, never a reason not to run).
    final class Touch: DaemonService {
        typealias Settings = TouchConfig

        struct Section: Equatable, Sendable {
            var touch: TouchConfig
            /// The reader turns touches with the picture: a new rotation restarts it.
            var rotation: Rotation
        }

        static let name = "touch"
        /// The journal hands over the snoozes the last run left; quiet hours end a returning one.
        static var needs: [any DaemonService.Type] {
            [Presence.self, Recall.self, Apps.self, Queues.self, ActionCardTracking.self, Display.self, Screen.self, History.self, Journal.self,
             QuietHours.self]
        }
        static let keys = settings.map(\.key)
        /// Every key applies: the reader is started again with the new settings (a finger on
        /// the glass at that moment is let go first).
        static let appliesAtReload = true

        static func section(of config: DaemonConfig) -> Section { Section(touch: config.touch, rotation: config.screen.rotation) }

        private struct Running {
            var section: Section
            var reader: (any TouchReading)?
            /// Why no reader runs although touch is not off (none found at start).
            var stopped: String?
        }

        /// The longest an unset `touch.enabled` waits for the reader's first look at the devices
        /// (a scan of /dev/input: milliseconds), in real time: it holds up nookd's start.
        static let firstLookBound: Duration = .seconds(2)

        let actions: TouchActions
        private let snoozes: Snoozes
        private let glass: CardsOnGlass
        private let queues: [NookActivityQueue]
        private let display: any DisplayBackend
        private let makeReader: TouchReaderMaker?
        private let logger: Logger
        private let running = Locked<Running?>(nil)
        private let stops = StopActions()

        /// - Parameter makeReader: nil in a build without a touch reader.
        init(effects: TouchActions.Effects, display: any DisplayBackend, clock: any NookClock,
             config: TouchConfig, makeReader: TouchReaderMaker?, keeping: Snoozes.Keeping = Snoozes.Keeping(), logger: Logger) {
            let log: @Sendable (String) -> Void = { logger.info("\($0)") }
            snoozes = Snoozes(duration: config.snooze, clock: clock, queues: effects.queues, keeping: keeping, log: log)
            actions = TouchActions(effects: effects, snoozes: snoozes, log: log)
            (self.glass, self.queues, self.display, self.makeReader, self.logger) = (effects.glass, effects.queues, display, makeReader, logger)
        }

        /// Every gesture goes here (a test's too).
        func handle(_ gesture: TouchGesture) { actions.handle(gesture) }

        func start(_ section: Section) async throws(DaemonError) {
            let observations = queues.enumerated().map { index, queue in
                queue.observe { [glass, snoozes] in
                    glass.observe($0, queue: index)
                    snoozes.observe($0)
                }
            }
            stops.add { observations.forEach { $0.cancel() } }
            stops.add { [snoozes] in snoozes.cancelAll() }
            await snoozes.restore()
            running.withLock { $0 = Running(section: section, reader: nil) }
            await startReader(section)
        }

        func stop() async {
            stopReader()
            actions.releaseAll()
            await stops.run()
        }

        func apply(_ section: Section) async {
            snoozes.duration = section.touch.snooze
            let old = running.withLock { $0?.section }
            guard let old, old != section else { return }
            var readerOnly = old
            readerOnly.touch.snooze = section.touch.snooze
            // Only the snooze changed: the reader goes on.
            guard readerOnly != section else {
                running.withLock { $0?.section = section }
                return
            }
            let (wasReading, hadStopped) = running.withLock { ($0?.reader != nil, $0?.stopped != nil) }
            stopReader()
            if section.touch.enabled == false { actions.releaseAll() }
            running.withLock { $0?.section = section }
            // Unset: a reload never holds its answer for a first look. A reader that found a
            // panel at start goes on; one that found none stays stopped (as its log line said).
            if section.touch.enabled == nil && old.touch.enabled == nil {
                if hadStopped {
                    logger.info("touch: still not looking for a touchscreen (none when nookd started; touch.enabled = true waits for one)")
                    return
                }
                if wasReading {
                    await startReader(section, firstLook: .none)
                    return
                }
            }
            await startReader(section, firstLook: .inBackground)
        }

        /// How an unset `touch.enabled` decides whether to keep the reader.
        private enum FirstLook {
            /// Before nookd is ready, so the descriptors and threads of an idle nookd do not
            /// change after.
            case awaited
            /// Without holding a reload's answer.
            case inBackground
            /// Kept: it found a panel before.
            case none
        }

        private func startReader(_ section: Section, firstLook: FirstLook = .awaited) async {
            let touch = section.touch
            guard touch.enabled != false else {
                logger.info("touch: off (touch.enabled = false)")
                return
            }
            guard let makeReader else {
                logger.warning("touch: this build of nookd has no touch reader")
                return
            }
            let geometry = TouchGeometry(picture: display.mode.size.rotated(section.rotation.then(display.panelOrientation).inverse),
                                         rotation: section.rotation, panelOrientation: display.panelOrientation)
            // Unset, a board without touch is the usual case, not a warning: the first look's
            // warnings are details until it has found a touchscreen.
            let looking = Locked(touch.enabled == nil)
            let reader = makeReader(touch, geometry, { [actions] in actions.handle($0) },
                                    { [logger] in logger.info("\($0)") },
                                    { [logger] in looking.withLock { $0 } ? logger.debug("\($0)") : logger.warning("\($0)") })
            let before = reader.reading
            reader.start()
            running.withLock { running in
                running?.reader = reader
                running?.stopped = nil
            }
            // Unset: kept only if its first look found a touchscreen.
            if touch.enabled == nil {
                switch firstLook {
                case .awaited:
                    guard await keepAfterFirstLook(reader, before: before) else { return }
                case .inBackground:
                    Task { [weak self] in
                        guard let self, await self.keepAfterFirstLook(reader, before: before) else { return }
                        looking.withLock { $0 = false }
                    }
                    return
                case .none:
                    break
                }
                looking.withLock { $0 = false }
            }
            logger.info("touch: reading \(touch.device.map { "\"\($0)\"" } ?? "the first touchscreen found"); a swipe is \(Int((touch.swipeFraction * 100).rounded())) % of the width, a long press \(Int(touch.longPress / .milliseconds(1))) ms, a snooze \(Snoozes.describe(touch.snooze))")
        }

        /// Waits (bounded, in real time) for the reader's first look at the devices; stops it
        /// and says why if it found no touchscreen. False if stopped (or replaced meanwhile).
        private func keepAfterFirstLook(_ reader: any TouchReading, before: TouchReadingState) async -> Bool {
            let deadline = ContinuousClock.now + Self.firstLookBound
            while reader.reading == before, reader.reading.device == nil, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
            guard reader.reading.device == nil else { return running.withLock { $0?.reader === reader } }
            let problem = reader.reading.problem ?? "no touchscreen"
            let current = running.withLock { running -> Bool in
                guard running?.reader === reader else { return false }
                running?.reader = nil
                running?.stopped = "\(problem) when nookd started; touch.enabled = true waits for one"
                return true
            }
            reader.stop()
            if current {
                logger.info("touch: \(problem); not looking again until nookd restarts (touch.enabled = true waits for one plugged in later)")
            }
            return false
        }

        /// Stops the reader, and lets go of a finger it had down.
        private func stopReader() {
            let reader = running.withLock { running -> (any TouchReading)? in
                defer { running?.reader = nil }
                return running?.reader
            }
            guard let reader else { return }
            reader.stop()
            actions.liftFinger()
        }

        /// Snoozed cards `matches` picks, dropped (see ``Snoozes/drop(where:)``).
        func dropSnoozes(where matches: (NookActivity) -> Bool) async -> [NookActivityID] { await snoozes.drop(where: matches) }

        /// The snoozed card with this id, if one waits to come back.
        func snoozed(_ id: NookActivityID) -> NookActivity? { snoozes.waiting(id) }

        /// `status`'s `touch` member; nil when touch is off.
        func status() -> StatusAnswer.Touch? {
            guard let running = running.withLock({ $0 }), running.section.touch.enabled != false else { return nil }
            let reading = running.reader?.reading
                ?? TouchReadingState(problem: running.stopped ?? (makeReader == nil ? "this build has no touch reader" : "not started"))
            return StatusAnswer.Touch(device: reading.device, name: reading.name, lastGesture: actions.lastGesture, gestures: actions.gestures,
                                      open: actions.isOpen, snoozed: snoozes.count, problem: reading.problem)
        }
    }
}

extension Service.Touch: DeclaresSettings {
    private static let defaults = TouchConfig()

    /// Unset: a panel there at start is read; true also waits for one; false starts nothing.
    static let enabled = Setting<Bool?>.bool("touch.enabled", reload: .applied)
    /// A path under /dev/input or the kernel's name of the device; unset, the first touchscreen.
    static let device = Setting<String?>.text("touch.device", reload: .applied)
    static let swipeFraction = Setting<Double>.number("touch.swipe_fraction", default: defaults.swipeFraction, in: 0.02...0.9, reload: .applied)
    static let longPressMs = Setting<Int>.integer("touch.long_press_ms", default: Int(defaults.longPress / .milliseconds(1)), in: 200...5000, reload: .applied)
    /// Six numbers, LIBINPUT_CALIBRATION_MATRIX's order.
    static let calibration = Setting<[Double]?>.numbers("touch.calibration", in: -1e6...1e6, reload: .applied)
    static let swapAxes = Setting<Bool>.bool("touch.swap_axes", default: defaults.swapAxes, reload: .applied)
    static let invertX = Setting<Bool>.bool("touch.invert_x", default: defaults.invertX, reload: .applied)
    static let invertY = Setting<Bool>.bool("touch.invert_y", default: defaults.invertY, reload: .applied)
    /// A duration with a unit, a minute to a day (``TouchConfig/snoozeRange``).
    static let snooze = Setting<String?>.text("touch.snooze", reload: .applied, shownDefault: "10 minutes")

    static let settings = [enabled.declaration, device.declaration, swipeFraction.declaration, longPressMs.declaration, calibration.declaration,
                           swapAxes.declaration, invertX.declaration, invertY.declaration, snooze.declaration]
}

extension Service.Touch: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.touch }

    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        try TouchConfig(reading: reader)
    }
}

extension Service.Touch: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Touch {
        let (journal, history) = (try wiring.part(Service.Journal.self), try wiring.part(Service.History.self))
        let quietHours = try wiring.part(Service.QuietHours.self)
        let effects = TouchActions.Effects(engagement: wiring.engagement, queues: try wiring.moduleQueues, rules: try wiring.inputRules(),
                                           glass: CardsOnGlass(), presses: wiring.presses, screen: try wiring.screen)
        let quiet = wiring.quiet
        let keeping = Snoozes.Keeping(journal: journal.journal, modules: wiring.config.queues.modules, suppresses: { [quiet] in quiet.suppresses($0) },
                                      endSuppressed: { [quietHours] in await quietHours.endSuppressed() },
                                      recovered: { [journal] in journal.recoveredSnoozes.withLock { $0 } },
                                      ended: { [history] activity, module, reason in history.history.endedAway(activity, module: module, how: reason) })
        return Service.Touch(effects: effects, display: try wiring.part(Service.Display.self).display, clock: wiring.clock, config: wiring.config.touch,
                             makeReader: Daemon.touchReaderMaker, keeping: keeping, logger: wiring.logger)
    }
}

extension Service.Touch: ReportsStatus {
    func report(into status: inout StatusAnswer) async { status.touch = self.status() }
}
