import NookLogging
import NookActivities
import NookConfig
import NookProtocol

extension Service {
    /// What requests read from the config as they come: the icon directories (R3), each
    /// sender's share of a queue (Q16) and `debug.press_inputs`; a reload's new values serve
    /// the next request.
    final class RequestSettings: DaemonService {
        struct Settings: Equatable, Sendable {
            /// Directories icon image files may come from (R3); nookd reads nothing else on a
            /// client's behalf.
            var iconDirectories = IconPolicy.defaultDirectories
            /// `queue.per_sender`: the most pending activities one sender may hold in a module (a
            /// uid's own programs together; each name a relay states, a nook-http token, apart);
            /// 0: no share smaller than the capacity.
            var perSender = Service.RequestSettings.perSender.defaultValue
            /// `debug.press_inputs`: the `press` operation acts as the open or dismiss button
            /// (tests, boards without buttons). Off: `press` is refused.
            var pressInputs = Service.RequestSettings.pressInputs.defaultValue
        }
        typealias Section = Settings

        static let name = "requests"
        static var needs: [any DaemonService.Type] { [] }
        static let keys = settings.map(\.key)
        static let appliesAtReload = true

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

extension Service.RequestSettings: OwnsSettings {
    static var member: WritableKeyPath<DaemonConfig, Settings> { \.requests }

    static func read(_ reader: ConfigReader, over settings: Settings, in reading: SettingsReading) throws(ConfigError) -> Settings {
        var settings = settings
        if let directories = try iconDirectories.read(reader) {
            for directory in directories where !directory.hasPrefix("/") {
                throw reader.error(iconDirectories.key, "must list absolute paths, got \"\(directory)\"")
            }
            settings.iconDirectories = directories
        }
        settings.perSender = try perSender.read(reader) ?? settings.perSender
        settings.pressInputs = try pressInputs.read(reader) ?? settings.pressInputs
        return settings
    }
}

extension Service.RequestSettings: BuiltService {
    static func build(_ wiring: ServiceWiring) throws(DaemonError) -> Service.RequestSettings {
        Service.RequestSettings()
    }
}
