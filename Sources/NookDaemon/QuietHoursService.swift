import NookLogging
import NookActivities
import NookConfig
import NookProtocol
import NookRender

extension Service {
    /// Z1: quiet hours' schedule and policy (the arbiter's gate holds back the claims below the
    /// minimum on its own); this ends the pending activities that are not to wait, each time
    /// quiet hours may have begun, and tells the brightness. The schedule applies at a reload.
    final class QuietHours: DaemonService {
        typealias Settings = QuietConfig
        typealias Section = Settings
        static let name = "quiet hours"
        static var needs: [any DaemonService.Type] { [Brightness.self, Queues.self] }
        static let keys = settings.map(\.key)
        static let appliesAtReload = true

        private let quiet: NookQuietHours
        private let queues: [(NookModuleID, NookActivityQueue)]
        private let brightness: Brightness
        private let clock: any NookClock
        private let logger: Logger
        private let stops = StopActions()

        init(quiet: NookQuietHours, queues: [(NookModuleID, NookActivityQueue)], brightness: Brightness, clock: any NookClock, logger: Logger) {
            (self.quiet, self.queues, self.brightness, self.clock, self.logger) = (quiet, queues, brightness, clock, logger)
        }

        func start(_ section: Section) async throws(DaemonError) {
            let task = Task { [weak self] in await self?.run() }
            stops.add { task.cancel() }
        }

        func stop() async { await stops.run() }

        func apply(_ section: Section) async {
            quiet.configure(schedule: section.schedule, policy: section.policy)
            await endSuppressed()
        }

        /// At the start of every minute (schedule boundaries are whole minutes, and the wall clock
        /// may have been set), and at a `quiet until` duration's end. The minute's start is the
        /// clock tick's instant, so both are one wake.
        private func run() async {
            while !Task.isCancelled {
                await endSuppressed()
                await brightness.current.withLock { $0 }?.setQuiet(quiet.isQuiet)
                let status = quiet.status()
                var wait = LocalTime.now().untilNextMinute
                if let until = status.until { wait = min(wait, .seconds(max(1, until.seconds - QuietConfig.systemLocalTime().seconds))) }
                do { try await clock.sleep(until: clock.now + wait) } catch { return }
            }
        }

        /// Ends, as `suppressed`, every pending activity that quiet hours now suppress.
        func endSuppressed() async {
            guard quiet.isQuiet, !quiet.policy.suppressed.isEmpty else { return }
            for (module, queue) in queues {
                let ended = await queue.suppressPending { [quiet] in quiet.suppresses($0.priority) }
                if !ended.isEmpty { logger.info("quiet hours: ended \(ended.count) pending activities as suppressed", metadata: ["module": "\(module)"]) }
            }
        }
    }
}

extension Daemon {
    /// Ends, as `suppressed`, every pending activity that quiet hours now suppress.
    func endSuppressed() async { await parts.quietHours.endSuppressed() }

    /// `quiet on|off|until|status`.
    func quietRequest(_ setting: QuietSetting) async throws(ProtocolError) -> QuietAnswer {
        switch setting {
        case .on: quiet.set(.on)
        case .off: quiet.turnOff()
        case .status: break
        case .until(let text):
            switch QuietConfig.until(text, now: QuietConfig.systemLocalTime()) {
            case .success(let end): quiet.set(.until(end))
            case .failure(let problem): throw ProtocolError(.invalid, field: "until", problem.description)
            }
        }
        if setting != .status {
            await brightness.withLock { $0 }?.setQuiet(quiet.isQuiet)
            logger.info("quiet hours: \(setting) → \(quiet.status().quiet ? "quiet" : "not quiet")")
            // Do-not-disturb is for what plays now too (B3).
            await parts.sound.roomChanged()
            await endSuppressed()
        }
        let status = quiet.status()
        return QuietAnswer(quiet: status.quiet, source: status.source, until: status.until?.description, minimum: status.minimum)
    }
}

extension Daemon {
    /// `quiet`, owned by the quiet hours service.
    static let quietHandlers: [OperationHandler] = [
        OperationHandler(\.device.quiet) { daemon, setting, reply in
            try await daemon.quietOperation(setting, reply)
        },
    ]

    /// `quiet` (Z1): changing quiet hours is a whole-device change, reading them open (the dispatch checked the
    /// scope).
    func quietOperation(_ setting: QuietSetting, _ reply: RequestReply) async throws(ProtocolError) {
        reply.answer(try await quietRequest(setting))
    }
}

extension Service.QuietHours: DeclaresSettings {
    static let schedule = Setting<[String]>.texts("quiet.schedule", default: [], reload: .applied)
    static let minimumPriority = Setting<String>.choice("quiet.minimum_priority", among: ["low", "normal", "high"], default: "high", reload: .applied)
    static let suppress = Setting<[String]>.texts("quiet.suppress", default: [], reload: .applied)
    static let settings = [schedule.declaration, minimumPriority.declaration, suppress.declaration]
}

extension Service.QuietHours: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.quiet }

    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        try QuietConfig(reading: reader)
    }
}

extension Service.QuietHours: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.QuietHours {
        Service.QuietHours(quiet: wiring.quiet, queues: try wiring.queuesInOrder, brightness: try wiring.part(Service.Brightness.self), clock: wiring.clock,
                           logger: wiring.logger)
    }
}
