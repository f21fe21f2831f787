import NookLogging
import NookActivities
import NookConfig
import NookProtocol

extension Service {
    /// What requests read from the config as they come: the icon directories (R3), each
    /// sender's share of a queue (Q16) and `debug.press_inputs`; a reload's new values serve
    /// the next request.
    final class RequestSettings: DaemonService {
        struct Section: Equatable, Sendable {
            var iconDirectories: [String]
            var perSender: Int
            var pressInputs: Bool
        }

        static let name = "requests"
        static var needs: [any DaemonService.Type] { [] }
        static let keys = settings.map(\.key)
        static let appliesAtReload = true

        static func section(of config: DaemonConfig) -> Section { Section(iconDirectories: config.iconDirectories, perSender: config.perSender, pressInputs: config.pressInputs) }

        func start(_ section: Section) async throws(DaemonError) {}
    }
}

extension Service.RequestSettings: DeclaresSettings {
    /// Absolute paths; the page lists the two defaults with a capital "Default".
    static let iconDirectories = Setting<[String]>.texts("daemon.icon_directories", default: IconPolicy.defaultDirectories, reload: .applied)
        .showing(default: nil)
    static let perSender = Setting<Int>.integer("queue.per_sender", default: 0, in: 0...100_000, reload: .applied)
    static let pressInputs = Setting<Bool>.bool("debug.press_inputs", default: false, reload: .applied)
    static let settings = [iconDirectories.declaration, perSender.declaration, pressInputs.declaration]
}

extension Service.RequestSettings: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.RequestSettings {
        Service.RequestSettings()
    }
}
