import Logging
import NookActivities
import NookDisplay
import NookRender

extension Service {
    /// The loops that draw each module's events on the glass, and the screen's settings:
    /// theme, home content, rotation and blanking apply at a reload.
    final class Screen: DaemonService {
        struct Section: Equatable, Sendable {
            var theme: Theme
            var rotation: Rotation
            var home: HomeContent
            var blankAfter: Duration?
            var isLED: Bool
        }

        static let name = "screen"
        static let needs = ["display", "queues", "watchdog"]
        static let keys = ["theme.*", "theme.palette.*", "home.*", "display.rotation", "display.blank_after_s"]
        static let appliesAtReload = true

        static func section(of config: DaemonConfig) -> Section {
            Section(theme: config.theme, rotation: config.rotation, home: config.home, blankAfter: config.blankAfter, isLED: config.backend.isLED)
        }

        /// Everything applies, but an LED matrix's turn is set up at start (a strip has none).
        static func reload(from old: Section, to new: Section, changed: [String], in context: ReloadContext) -> ReloadDecision {
            guard old != new else { return ReloadDecision() }
            var decision = ReloadDecision()
            for key in owned(changed) {
                if key == "display.rotation", new.isLED,
                   DaemonScreen.ledRotation(new.rotation, size: context.displaySize) != DaemonScreen.ledRotation(old.rotation, size: context.displaySize) {
                    decision.needsRestart.append(key)
                } else {
                    decision.applied.append(key)
                }
            }
            return decision
        }

        private let screen: DaemonScreen
        private let display: any DisplayBackend
        private let queues: [NookActivityQueue]
        private let watchdog: SystemdWatchdog
        private let stops = StopActions()

        init(screen: DaemonScreen, display: any DisplayBackend, queues: [NookActivityQueue], watchdog: SystemdWatchdog) {
            (self.screen, self.display, self.queues, self.watchdog) = (screen, display, queues, watchdog)
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
            await screen.apply(.init(theme: section.theme, rotation: section.rotation.then(panelTurn), home: section.home, blankAfter: section.blankAfter))
        }
    }

    /// Every event in the log, only when asked for: at info a busy daemon should not pay for it.
    final class EventLog: DaemonService {
        struct Section: Equatable, Sendable { var logLevel: String }
        static let name = "event log"
        static let needs = ["queues"]
        /// The level is set when logging is bootstrapped, before the daemon exists.
        static let keys = ["daemon.log_level"]

        static func section(of config: DaemonConfig) -> Section { Section(logLevel: config.logLevel) }

        private let queues: [(NookModuleID, NookActivityQueue)]
        private let logger: Logger
        private let stops = StopActions()

        init(queues: [(NookModuleID, NookActivityQueue)], logger: Logger) { (self.queues, self.logger) = (queues, logger) }

        func start(_ section: Section) async throws(DaemonError) {
            let task = Task { [logger, queues] in
                guard logger.logLevel <= .debug else { return }
                await withTaskGroup(of: Void.self) { group in
                    for (module, queue) in queues {
                        group.addTask {
                            for await event in queue.events() {
                                logger.debug("\(event.kind.name) \(event.id) \"\(LogText.short(event.activity.title))\"", metadata: ["module": "\(module)"])
                            }
                        }
                    }
                }
            }
            stops.add { task.cancel() }
        }

        func stop() async { await stops.run() }
    }

    /// Which card on the glass has an action (E3), followed from every queue.
    final class ActionCardTracking: DaemonService {
        typealias Section = NoSection
        static let name = "action cards"
        static let needs = ["queues"]

        private let queues: [NookActivityQueue]
        private let actionCards: ActionCards
        private let stops = StopActions()

        init(queues: [NookActivityQueue], actionCards: ActionCards) { (self.queues, self.actionCards) = (queues, actionCards) }

        func start(_ section: NoSection) async throws(DaemonError) {
            let observations = queues.map { queue in queue.observe { [actionCards] in actionCards.observe($0) } }
            stops.add { observations.forEach { $0.cancel() } }
        }

        func stop() async { await stops.run() }
    }

    /// The home screen and its clock, once the journal's cards are back; an idle display keeps
    /// home only: the spare frames of the last card go after 10 s.
    final class HomeClock: DaemonService {
        typealias Section = NoSection
        static let name = "home clock"
        static let needs = ["screen", "journal"]

        private let screen: DaemonScreen
        private let stops = StopActions()

        init(screen: DaemonScreen) { self.screen = screen }

        func start(_ section: NoSection) async throws(DaemonError) {
            await screen.releaseFrames(after: .seconds(10))
            await screen.showHome()
            let clockTask = Task { [screen] in await screen.runClock() }
            stops.add { clockTask.cancel() }
        }

        func stop() async { await stops.run() }
    }

    /// Q15: an unplugged panel suspends every queue (nothing is shown to nobody); plugged back
    /// in, they resume and the card that was cut off is shown again.
    final class DisplayWatch: DaemonService {
        typealias Section = NoSection
        static let name = "display watch"
        static let needs = ["display", "screen", "recall", "brightness"]

        private let display: any DisplayBackend
        private let queues: [NookActivityQueue]
        private let screen: DaemonScreen
        private let brightness: Brightness
        private let logger: Logger
        private let stops = StopActions()

        init(display: any DisplayBackend, queues: [NookActivityQueue], screen: DaemonScreen, brightness: Brightness, logger: Logger) {
            (self.display, self.queues, self.screen, self.brightness, self.logger) = (display, queues, screen, brightness, logger)
        }

        func start(_ section: NoSection) async throws(DaemonError) {
            let watch = Task { [display, queues, logger, screen, brightness] in
                await DisplayAvailability.relay(from: display, to: queues, screen: screen, logger: logger,
                                                brightness: { brightness.current.withLock { $0 } })
            }
            stops.add { watch.cancel() }
        }

        func stop() async { await stops.run() }
    }
}
