import NookLogging
import NookActivities
import NookConfig
import NookDisplay
import NookRender

extension Service {
    /// Every event in the log, only when asked for: at info a busy daemon should not pay for it.
    final class EventLog: DaemonService {
        struct Settings: Equatable, Sendable { var logLevel = Service.EventLog.logLevel.defaultValue }
        typealias Section = Settings
        static let name = "event log"
        static var needs: [any DaemonService.Type] { [Queues.self] }
        /// The level is set when logging is bootstrapped, before the daemon exists.
        static let keys = settings.map(\.key)

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
}

extension Service.EventLog: DeclaresSettings {
    static let logLevel = Setting<String>.choice("daemon.log_level", among: SettingValue.logLevels, default: "info", reload: .restart)
    static let settings = [logLevel.declaration]
}

extension Service.EventLog: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.eventLog }

    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        Settings(logLevel: try logLevel.read(reader) ?? settings.logLevel)
    }
}

extension Service.EventLog: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.EventLog {
        Service.EventLog(queues: try wiring.queuesInOrder, logger: wiring.logger)
    }
}
