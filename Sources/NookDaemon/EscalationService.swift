import NookLogging
import NookActivities
import NookConfig
import NookInput

extension Service {
    /// Z4: a blocker left unanswered escalates, step by step.
    final class Escalation: DaemonService {
        typealias Settings = Escalator.Settings
        typealias Section = Settings
        static let name = "escalation"
        static var needs: [any DaemonService.Type] { [Brightness.self, Queues.self] }
        static let keys = settings.map(\.key)

        private let queues: [NookActivityQueue]
        private let quiet: NookQuietHours
        private let brightness: Brightness
        private let clock: any NookClock
        private let logger: Logger
        private let stops = StopActions()

        init(queues: [NookActivityQueue], quiet: NookQuietHours, brightness: Brightness, clock: any NookClock, logger: Logger) {
            (self.queues, self.quiet, self.brightness, self.clock, self.logger) = (queues, quiet, brightness, clock, logger)
        }

        func start(_ section: Section) async throws(DaemonError) {
            guard !section.steps.isEmpty else { return }
            let escalation = Escalator(settings: section, clock: clock, quiet: quiet, logger: logger,
                                               brighter: { [brightness] in await brightness.current.withLock { $0 }?.boost() },
                                               pulse: { [brightness] in await brightness.current.withLock { $0 }?.pulse() })
            let relays = queues.map { queue in
                let events = queue.events(where: Escalator.matters)
                return Task { for await event in events { await escalation.observe(event) } }
            }
            stops.add { relays.forEach { $0.cancel() } }
        }

        func stop() async { await stops.run() }
    }
}

extension Service.Escalation: DeclaresSettings {
    static let after = Setting<Int>.integer("escalation.after_s", default: 60, in: 1...86_400, reload: .restart)
    static let every = Setting<Int>.integer("escalation.every_s", default: 60, in: 1...86_400, reload: .restart)
    /// No steps: blockers never escalate.
    static let steps = Setting<[String]>.texts("escalation.steps", default: [], reload: .restart, shownDefault: "none")
    static let onEscalate = Setting<[String]>.texts("escalation.on_escalate", default: [], reload: .restart)
    static let settings = [after.declaration, every.declaration, steps.declaration, onEscalate.declaration]
}

extension Service.Escalation: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.escalation }

    /// `[escalation]` (Z4), each key through its declaration; a hook step needs a command.
    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        var escalation = settings
        if let seconds = try after.read(reader) { escalation.after = .seconds(seconds) }
        if let seconds = try every.read(reader) { escalation.every = .seconds(seconds) }
        escalation.command = try onEscalate.read(reader) ?? onEscalate.defaultValue
        for name in try steps.read(reader) ?? steps.defaultValue {
            guard let step = Escalator.Step(rawValue: name) else {
                throw reader.error(steps.key, "steps are brighter, pulse and hook, got \"\(name)\"")
            }
            escalation.steps.append(step)
        }
        if escalation.steps.contains(.hook), escalation.command.first?.isEmpty ?? true {
            throw reader.error(onEscalate.key, "the hook step needs a command: an argument list such as [\"/usr/local/bin/ring\", \"--loud\"]")
        }
        return escalation
    }
}

extension Service.Escalation: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.Escalation {
        Service.Escalation(queues: try wiring.moduleQueues, quiet: wiring.quiet, brightness: try wiring.part(Service.Brightness.self), clock: wiring.clock,
                           logger: wiring.logger)
    }
}
